package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/leaselab/playground/lti/ltitest"
)

// TestLTIGiveUpIsGraded: a learner who came by a graded link gives up on
// its exercise before any answer, another answers it wrong. The gradebook
// export says 0 for both (attempted, or shown the answer, and nothing
// earned), and so must the course's gradebook: it was sent nothing, as
// their best score had not risen, and left the cells blank, which a
// course's total does not count.
func TestLTIGiveUpIsGraded(t *testing.T) {
	eachLTIStore(t, func(t *testing.T, kind string) {
		e := startLTI(t, kind)
		item := e.plat.LineItem("7")
		ada := newPerson(t, e.url)
		e.launchAs(ada, ltitest.Learner, "link-outlive", "exercise:outlive-lease", item)
		grace := newPerson(t, e.url)
		a := e.launchAs(grace, ltitest.Teacher, "link-outlive", "exercise:outlive-lease", item)
		code := strings.TrimSuffix(strings.TrimPrefix(a.header.Get("Location"), "/class/"), "/teacher")

		bo := newPerson(t, e.url)
		e.launchAs(bo, ltitest.User{Sub: "user-bo", Name: "Bo Bear"}, "link-outlive", "exercise:outlive-lease", item)

		wantStatus(t, ada.postJSON("/api/exercises/outlive-lease/give-up", `{"variant":0}`), http.StatusOK, "give up")
		if res := answerAs(t, bo, "outlive-lease", "1"); res["correct"] != false {
			t.Fatalf("a wrong answer: %v", res)
		}
		e.deliver()
		book := readCSV(t, grace.get("/api/classes/"+code+"/gradebook.csv?format=plain").body)
		for i, who := range []struct{ name, sub string }{{"Ada Lovelace", "user-ada"}, {"Bo Bear", "user-bo"}} {
			cell := book[i+1][colOf(t, book[0], "outlive-lease")]
			var sent *ltitest.Score
			for _, s := range e.plat.Scores() {
				if s.LineItem == item && s.UserID == who.sub {
					sent = &s
				}
			}
			if book[i+1][0] != who.name || cell != "0" || sent == nil || !sent.Given || sent.ScoreGiven != 0 || sent.Grading != "FullyGraded" {
				t.Errorf("%s: the gradebook says %q, the course was sent %+v; want 0 in both", book[i+1][0], cell, sent)
			}
		}
	})
}
