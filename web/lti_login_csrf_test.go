package web_test

import (
	"net/http"
	"testing"

	"github.com/leaselab/playground/lti/ltitest"
)

// TestLTILaunchInTheBrowserThatLoggedIn: a launch is taken only from the
// browser that started its login. Eve logs in herself and keeps the
// platform's answer (her id_token and the state) instead of posting it;
// a page of hers then posts it from Ada's browser. Before, Ada's browser
// became Eve's learner: whatever Ada answered then was Eve's credit, in
// the class and in the course's gradebook. The refusal names the state,
// sets no cookie, and spends nothing: Eve's own browser still launches.
func TestLTILaunchInTheBrowserThatLoggedIn(t *testing.T) {
	eachLTIStore(t, func(t *testing.T, kind string) {
		e := startLTI(t, kind)
		eve := newPerson(t, e.url)
		state, nonce := e.login(eve)
		token := e.plat.Sign(e.plat.ResourceLinkClaims(ltitest.Learner, nonce, "link-1", "lesson:leases", ""))

		ada := newPerson(t, e.url)
		a := e.launch(ada, token, state)
		if a.status != http.StatusUnauthorized || refusedCheck(a) != "state" {
			t.Errorf("Eve's token posted from Ada's browser: %d naming %q (%.300s), want 401 naming state", a.status, refusedCheck(a), a.body)
		}
		if len(a.header.Values("Set-Cookie")) != 0 {
			t.Errorf("the refused launch set cookies in Ada's browser: %v", a.header.Values("Set-Cookie"))
		}
		if _, learners := e.counts(); learners != 0 {
			t.Errorf("the refused launch joined %d learners", learners)
		}
		wantStatus(t, e.launch(eve, token, state), http.StatusSeeOther, "the launch in the browser that logged in")
	})
}
