package web

import (
	"errors"
	"mime"
	"net/http"

	"github.com/labstack/echo/v4"
)

// maxFormBytes bounds the body of the class pages' own forms (/class/join,
// /class/new): a handful of short fields, a few hundred bytes even when
// every character of a name is escaped.
const maxFormBytes = 8 << 10

// boundForm reads a page form's body before anything looks at its fields:
// at most maxFormBytes, and only the encoding the pages send
// (application/x-www-form-urlencoded), so that no request can make the
// server hold a large body, or a multipart one spilled to memory. Over the
// limit is a 413 naming the body and the limit, and a form that cannot
// be read is refused, not read as empty fields.
func (s *Server) boundForm(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if mt, _, err := mime.ParseMediaType(r.Header.Get(echo.HeaderContentType)); err != nil || mt != echo.MIMEApplicationForm {
			return &userError{Status: http.StatusUnsupportedMediaType, Field: "Content-Type",
				Msg: "must be " + echo.MIMEApplicationForm + ", as the page's form sends it"}
		}
		r.Body = http.MaxBytesReader(c.Response(), r.Body, maxFormBytes)
		if err := r.ParseForm(); err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				return tooLarge("body", mbe.Limit, "")
			}
			return badRequest("body", "must be a form (application/x-www-form-urlencoded)")
		}
		return next(c)
	}
}
