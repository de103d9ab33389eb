package web_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/leaselab/playground/classroom"
)

// TestAnArchivedClassOffersNoScoring: an archived class takes no changes,
// scores included, so its dashboard draws an open answer's Save off (the
// server refuses it); restored, the same page offers it again.
func TestAnArchivedClassOffersNoScoring(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		base := startClass(t, st)
		c := createClass(t, base, "Week 9")
		ada, _ := join(t, base, c.Code, "Ada")
		wantStatus(t, ada.postJSON("/api/exercises/sms-twice/check", `{"answer":"An idempotency key made from the reminder."}`), http.StatusOK, "an open answer")
		owner := teacher(t, base, c.TeacherKey)
		save := regexp.MustCompile(`<button[^>]*data-testid="review-save"[^>]*>`)
		saveOn := func() bool {
			b := save.FindString(owner.get("/class/" + c.Code + "/teacher").body)
			if b == "" {
				t.Fatal("the dashboard has no Save for the open answer")
			}
			return !strings.Contains(b, "disabled")
		}
		if !saveOn() {
			t.Error("an open class's dashboard draws the answer's Save off")
		}
		archive := "/api/classes/" + c.Code + "/archive"
		wantStatus(t, owner.postJSON(archive, `{"archived":true}`), http.StatusOK, "archive")
		if saveOn() {
			t.Error("an archived class's dashboard offers to score an answer it would refuse")
		}
		wantStatus(t, owner.postJSON(archive, `{"archived":false}`), http.StatusOK, "restore")
		if !saveOn() {
			t.Error("a restored class's dashboard still draws the answer's Save off")
		}
	})
}
