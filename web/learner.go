package web

import (
	"github.com/labstack/echo/v4"
)

// LearnerCookie names the session cookie of a learner who joined a class
// (HttpOnly, SameSite=Lax, set by the join endpoint). Its value is the
// session token the classroom store issued; it proves who the learner is
// and nothing more.
const LearnerCookie = "pg_learner"

// learnerToken returns the class session token a request carries, or "".
func learnerToken(c echo.Context) string {
	ck, err := c.Cookie(LearnerCookie)
	if err != nil {
		return ""
	}
	return ck.Value
}
