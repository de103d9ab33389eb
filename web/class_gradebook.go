package web

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/classroom"
)

// apiGradebookCSV: GET /api/classes/{code}/gradebook.csv?format=canvas|moodle|plain
// [&by=exercise|lesson] with the teacher key: one row per learner, one
// column per exercise (or lesson), points from the credit rules, blank
// where nothing was attempted.
func (w *classWeb) apiGradebookCSV(c echo.Context) error {
	format := c.QueryParam("format")
	if format == "" {
		format = classroom.GradebookPlain
	}
	if !slices.Contains(classroom.GradebookFormats, format) {
		return badRequest("format", "must be canvas, moodle or plain (got %s)", excerpt(format))
	}
	by := c.QueryParam("by")
	if by != "" && by != "exercise" && by != "lesson" {
		return badRequest("by", "must be exercise or lesson (got %s)", excerpt(by))
	}
	d, err := w.store().Dashboard(c.Request().Context(), c.Param("code"), teacherKey(c))
	if err != nil {
		return err
	}
	items := w.gradeItems(d, by == "lesson")
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, "text/csv; charset=utf-8")
	h.Set(echo.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="%s-gradebook-%s.csv"`, d.Class.Code, format))
	h.Set("Cache-Control", "no-store")
	c.Response().WriteHeader(http.StatusOK)
	return classroom.WriteGradebookCSV(c.Response(), d, format, items, d.Class.Name)
}

// gradeItems are the gradebook's columns: every exercise in the catalog's
// order (then any the catalog no longer has that someone tried), or one
// per lesson summing its exercises' points.
func (w *classWeb) gradeItems(d *classroom.Dashboard, byLesson bool) []classroom.GradeItem {
	var items []classroom.GradeItem
	seen := map[string]bool{}
	if byLesson && w.s.cfg.Lessons != nil {
		for _, l := range w.s.cfg.Lessons.Lessons() {
			it := classroom.ItemOf(l.Slug, l.ExerciseIDs, w.s.ExercisePoints)
			for _, id := range l.ExerciseIDs {
				seen[id] = true
			}
			if len(it.Parts) > 0 {
				items = append(items, it)
			}
		}
	}
	for _, id := range w.exerciseOrder(d) {
		if !seen[id] {
			items = append(items, classroom.ItemOf(id, []string{id}, w.s.ExercisePoints))
		}
	}
	return items
}
