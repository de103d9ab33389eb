package web

import (
	"bytes"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
)

// render writes a templ component as the whole response. It renders into a
// buffer first, so a failing component becomes a clean 500, not half a page.
func (s *Server) render(c echo.Context, status int, t templ.Component) error {
	var buf bytes.Buffer
	if err := t.Render(c.Request().Context(), &buf); err != nil {
		return err
	}
	return c.HTMLBlob(status, buf.Bytes())
}

// Page is what the layout needs to know about every page.
type Page struct {
	Title  string
	Asset  func(name string) string
	Active string // the navigation entry to mark as current
	// Styles are the stylesheets the page needs beside site.css: the
	// lessons' (their lists, pages, embedded playgrounds and exercises)
	// unless the page says otherwise.
	Styles []string
}

func (s *Server) page(title string) Page {
	return Page{Title: title, Asset: s.asset, Active: title, Styles: []string{"css/lessons.css"}}
}
