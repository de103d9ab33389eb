package web_test

import (
	"net/http"
	"testing"

	"github.com/golang-jwt/jwt/v5"

	"github.com/leaselab/playground/lti"
	"github.com/leaselab/playground/lti/ltitest"
	"github.com/leaselab/playground/web"
)

// TestLTILearnerWhoTeachesElsewhereIsALearner: a platform sends the
// user's institution roles beside their roles in the course (Canvas sends
// institution/person#Instructor to anyone who teaches some course). A
// learner of this course who teaches another is a learner here: they join
// the class and land on the linked lesson, with no teacher session. They
// landed on this course's dashboard with its teacher key, where they
// could score their own answers and credit their own late work.
func TestLTILearnerWhoTeachesElsewhereIsALearner(t *testing.T) {
	eachLTIStore(t, func(t *testing.T, kind string) {
		e := startLTI(t, kind)
		ta := newPerson(t, e.url)
		state, nonce := e.login(ta)
		claims := e.plat.ResourceLinkClaims(ltitest.Learner, nonce, "link-1", "lesson:leases", "")
		withRoles(claims,
			"http://purl.imsglobal.org/vocab/lis/v2/institution/person#Instructor",
			"http://purl.imsglobal.org/vocab/lis/v2/institution/person#Student",
			"http://purl.imsglobal.org/vocab/lis/v2/membership#Learner",
			"http://purl.imsglobal.org/vocab/lis/v2/system/person#User")
		a := e.launch(ta, e.plat.Sign(claims), state)
		wantStatus(t, a, http.StatusSeeOther, "a learner's launch")
		if loc := a.header.Get("Location"); loc != "/lessons/leases" {
			t.Errorf("a learner of the course who teaches elsewhere lands on %q, want the linked lesson", loc)
		}
		carryCookies(ta, a)
		if ta.cookieHeader(web.TeacherCookie) != "" {
			t.Errorf("the launch set a teacher session for a learner of the course")
		}
		if _, learners := e.counts(); learners != 1 {
			t.Errorf("%d learners after the launch, want 1: they are a learner of this course", learners)
		}

		// The course's own instructor, and an administrator, still teach.
		for _, roles := range [][]string{
			{"http://purl.imsglobal.org/vocab/lis/v2/institution/person#Student", "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"},
			{"http://purl.imsglobal.org/vocab/lis/v2/institution/person#Administrator"},
		} {
			p := newPerson(t, e.url)
			state, nonce := e.login(p)
			claims := e.plat.ResourceLinkClaims(ltitest.Teacher, nonce, "link-1", "lesson:leases", "")
			withRoles(claims, roles...)
			a := e.launch(p, e.plat.Sign(claims), state)
			wantStatus(t, a, http.StatusSeeOther, "an instructor's launch")
			carryCookies(p, a)
			if p.cookieHeader(web.TeacherCookie) == "" {
				t.Errorf("roles %q: no teacher session, want the dashboard's", roles)
			}
		}
	})
}

// withRoles replaces a launch's roles.
func withRoles(c jwt.MapClaims, roles ...string) { c[lti.ClaimRoles] = roles }

// cookieHeader is the value of a cookie carried in p's Cookie header
// (carryCookies), or "".
func (p *person) cookieHeader(name string) string {
	r := http.Request{Header: http.Header{"Cookie": p.header.Values("Cookie")}}
	if c, err := r.Cookie(name); err == nil {
		return c.Value
	}
	return ""
}
