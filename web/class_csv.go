package web

import (
	"fmt"
	"io"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/classroom"
)

// apiProgressCSV: one row per learner and exercise, in the catalog's order.
func (w *classWeb) apiProgressCSV(c echo.Context) error {
	return w.csv(c, "progress", func(out io.Writer, d *classroom.Dashboard) error {
		return classroom.WriteProgressCSV(out, d, w.exerciseOrder(d))
	})
}

// apiWideCSV: one row per learner, one column per exercise, and the
// learner's total as the dashboard gives it.
func (w *classWeb) apiWideCSV(c echo.Context) error {
	return w.csv(c, "progress-wide", func(out io.Writer, d *classroom.Dashboard) error {
		return classroom.WriteWideCSV(out, d, w.gradeItems(d, false))
	})
}

func (w *classWeb) csv(c echo.Context, name string, write func(io.Writer, *classroom.Dashboard) error) error {
	d, err := w.store().Dashboard(c.Request().Context(), c.Param("code"), teacherKey(c))
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, "text/csv; charset=utf-8")
	h.Set(echo.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="%s-%s.csv"`, d.Class.Code, name))
	h.Set("Cache-Control", "no-store")
	c.Response().WriteHeader(http.StatusOK)
	return write(c.Response(), d)
}
