package web_test

import (
	"net/http"
	"testing"

	"github.com/leaselab/playground/classroom"
)

// TestAnEmptyPushFieldIsRefused: a push that names a field and leaves it
// empty ({"preset":""}, what Push with nothing picked sent) used to take
// the class's push down without a word; it is a 400 naming the field, and
// the push stays. Two things at once name the second; only {} clears.
func TestAnEmptyPushFieldIsRefused(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		base := startClass(t, st)
		c := createClass(t, base, "Push")
		owner := teacher(t, base, c.TeacherKey)
		push := "/api/classes/" + c.Code + "/push"
		wantStatus(t, owner.postJSON(push, `{"lesson":"leases"}`), http.StatusOK, "push a lesson")
		pushed := func() bool {
			t.Helper()
			cl := readDashboard(t, owner, c.Code).raw["class"].(map[string]any)
			return cl["scenario"] != nil
		}
		for body, field := range map[string]string{
			`{"preset":""}`:     "preset",
			`{"lesson":"  "}`:   "lesson",
			`{"scenario":null}`: "scenario",
			`{"lesson":"leases","exercise":"outlive-lease"}`: "exercise",
		} {
			a := owner.postJSON(push, body)
			var e struct{ Field string }
			a.decode(t, &e)
			if a.status != http.StatusBadRequest || e.Field != field {
				t.Errorf("%s: %d %s, want 400 naming %s", body, a.status, a.body, field)
			}
			if !pushed() {
				t.Fatalf("%s took the push down", body)
			}
		}
		wantStatus(t, owner.postJSON(push, `{}`), http.StatusOK, "clear")
		if pushed() {
			t.Error("{} did not take the push down")
		}
	})
}
