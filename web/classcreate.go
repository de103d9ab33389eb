package web

import (
	"crypto/subtle"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/classroom"
)

// ClassCreationKeyHeader carries the class creation key on POST
// /api/classes when the server asks for one (Config.Class.CreationKey);
// the /class/new form sends it as the field creation_key.
const ClassCreationKeyHeader = "X-Class-Creation-Key"

// classCreation guards the routes that create a class: with a creation
// key configured, only a request that carries it may, and every class is
// counted against the address it was made from (classroom.WithCreator),
// so one address cannot make every class the server allows.
func (w *classWeb) classCreation(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if want := w.s.cfg.Class.CreationKey; want != "" {
			got := c.Request().Header.Get(ClassCreationKeyHeader)
			// Only the page's form, whose body boundForm has read, carries
			// it as a field; the API takes the header alone.
			if got == "" && c.Path() == "/class/new" {
				got = c.FormValue("creation_key")
			}
			if subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
				msg := "creating a class on this server needs its class creation key; ask the server's operator for it"
				if got != "" {
					msg = "this is not the server's class creation key; check it with the server's operator"
				}
				if c.Path() == "/class/new" {
					d := ClassHomeData{ClassName: c.FormValue("class_name"), CreateError: msg, ErrorField: "creation_key", NeedsKey: true}
					return w.s.render(c, http.StatusForbidden, ClassHomePage(w.s.page("Class"), d))
				}
				return &userError{Status: http.StatusForbidden, Field: ClassCreationKeyHeader, Msg: msg}
			}
		}
		r := c.Request()
		c.SetRequest(r.WithContext(classroom.WithCreator(r.Context(), clientAddress(c))))
		return next(c)
	}
}
