package web_test

import (
	"testing"

	"github.com/leaselab/playground/lti/ltitest"
)

// TestLTILaunchWithoutGradesKeepsTheLineItem: a graded link is launched
// by its learner, then without the grades claim: by the teacher (a
// platform may leave it out of an instructor's launch) and by a second
// learner. Neither replaces the link's line item, so each learner's
// answer still reaches the course's gradebook; before, such a launch
// erased it and nothing was sent until the next graded launch.
func TestLTILaunchWithoutGradesKeepsTheLineItem(t *testing.T) {
	eachLTIStore(t, func(t *testing.T, kind string) {
		e := startLTI(t, kind)
		item := e.plat.LineItem("11")
		const link, target = "link-outlive", "exercise:outlive-lease"
		ada := newPerson(t, e.url)
		e.launchAs(ada, ltitest.Learner, link, target, item)
		grace := newPerson(t, e.url)
		e.launchAs(grace, ltitest.Teacher, link, target, "")
		bo := newPerson(t, e.url)
		e.launchAs(bo, ltitest.User{Sub: "user-bo", Name: "Bo Bear"}, link, target, "")

		for _, who := range []struct {
			p   *person
			sub string
		}{{ada, ltitest.Learner.Sub}, {bo, "user-bo"}} {
			if res := answerAs(t, who.p, "outlive-lease", "1"); res["correct"] != false {
				t.Fatalf("a wrong answer: %v", res)
			}
			e.deliver()
			var sent *ltitest.Score
			for _, s := range e.plat.Scores() {
				if s.LineItem == item && s.UserID == who.sub {
					sent = &s
				}
			}
			if sent == nil || !sent.Given || sent.ScoreGiven != 0 {
				t.Errorf("%s answered after launches without the grades claim; the line item got %+v, want their 0", who.sub, sent)
			}
		}
	})
}
