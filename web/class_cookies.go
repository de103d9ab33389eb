package web

import (
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
)

// TeacherCookie names the cookie a teacher link sets (HttpOnly,
// SameSite=Lax): its value is the class's teacher key, so the dashboard,
// its live updates and the CSV links work without the key in any URL.
const TeacherCookie = "pg_teacher"

// cookieAge is how long the class cookies last: a term.
const cookieAge = 180 * 24 * time.Hour

// teacherKey returns the teacher key a request carries: Authorization:
// Bearer first, else the teacher cookie.
func teacherKey(c echo.Context) string {
	if h := c.Request().Header.Get(echo.HeaderAuthorization); h != "" {
		if k, ok := strings.CutPrefix(h, "Bearer "); ok {
			return strings.TrimSpace(k)
		}
		return ""
	}
	if ck, err := c.Cookie(TeacherCookie); err == nil {
		return ck.Value
	}
	return ""
}

func setCookie(c echo.Context, name, value string) {
	c.SetCookie(&http.Cookie{
		Name: name, Value: value, Path: "/",
		MaxAge: int(cookieAge.Seconds()), HttpOnly: true, SameSite: http.SameSiteLaxMode,
		Secure: c.Scheme() == "https",
	})
}

// ClassHintCookie is readable by scripts and holds no secret: it says that
// this browser joined a class, so the playground follows the class
// (/api/me/events, or /api/me) for a pushed scenario only then.
const ClassHintCookie = "pg_class"

func setLearnerCookies(c echo.Context, token string) {
	setCookie(c, LearnerCookie, token)
	c.SetCookie(&http.Cookie{Name: ClassHintCookie, Value: "1", Path: "/", MaxAge: int(cookieAge.Seconds()),
		SameSite: http.SameSiteLaxMode, Secure: c.Scheme() == "https"})
}

// clearLearnerCookies forgets a learner this server no longer knows: the
// session and the hint that makes pages follow a class.
func clearLearnerCookies(c echo.Context) {
	for _, name := range []string{LearnerCookie, ClassHintCookie} {
		c.SetCookie(&http.Cookie{Name: name, Value: "", Path: "/", MaxAge: -1, HttpOnly: name == LearnerCookie,
			SameSite: http.SameSiteLaxMode, Secure: c.Scheme() == "https"})
	}
}
