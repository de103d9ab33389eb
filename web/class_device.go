package web

import (
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/classroom"
)

// A learner goes on in another browser with a device code from the first
// (classroom/device.go): the first asks for it on the learner's page, the
// second enters it at /class/continue, or opens the link beside it, and
// takes the learner's row over; the first is signed out. The code is
// entered, never used by a GET: a link preview or a prefetch must not
// spend it.

// DefaultDeviceCodeRate bounds the device codes one learner asks for:
// each is a write, and a learner moving between a phone, a laptop and a
// lab machine needs a few, not one a second. The bucket is the learner's
// own, so classmates behind the same address never wait for it.
var DefaultDeviceCodeRate = Rate{PerMinute: 2, Burst: 10}

// deviceOffer is a device code as the learner's page shows it.
type deviceOffer struct {
	Code    string    `json:"code"`    // as typed: ABCDE-FGHJK
	Link    string    `json:"link"`    // the continue page with the code filled in
	Expires time.Time `json:"expires"` // when it stops working
}

// deviceTTLWord is how long a device code lasts, in words.
func deviceTTLWord() string { return fmt.Sprintf("%d minutes", int(classroom.DeviceCodeTTL.Minutes())) }

// ContinueData is the continue page: the code as given, and what was
// wrong with it.
type ContinueData struct {
	Code, Error string
}

// newDeviceOffer asks the store for a code for the learner of c. The
// session is read first, so a request without one (or with a made-up
// one) costs a read, not a write, and the learner's bucket of device
// codes (DefaultDeviceCodeRate) is theirs whatever session they hold.
func (w *classWeb) newDeviceOffer(c echo.Context) (*deviceOffer, error) {
	ctx, token := c.Request().Context(), learnerToken(c)
	l, _, err := w.store().Learner(ctx, token)
	if err != nil {
		return nil, err
	}
	if ok, retry := w.deviceCodes.take(strconv.FormatInt(l.ID, 10)); !ok {
		secs := max(1, int(math.Ceil(retry.Seconds())))
		w.m.limited.WithLabelValues(w.deviceCodes.name).Inc()
		c.Response().Header().Set("Retry-After", strconv.Itoa(secs))
		return nil, &userError{Status: http.StatusTooManyRequests,
			Msg: fmt.Sprintf("too many device codes asked for (at most %d, then %g a minute, for each learner); the newest one you were given works, or try again in %d s",
				w.deviceCodes.rate.Burst, w.deviceCodes.rate.PerMinute, secs)}
	}
	code, expires, err := w.store().DeviceCode(ctx, token)
	if err != nil {
		return nil, err
	}
	shown := classroom.FormatDeviceCode(code)
	return &deviceOffer{Code: shown, Link: origin(c) + "/class/continue?code=" + url.QueryEscape(shown), Expires: expires}, nil
}

// pageDeviceCode: POST /class/me/device, the learner page's "Continue in
// another browser": the page again, with the code.
func (w *classWeb) pageDeviceCode(c echo.Context) error {
	if learnerToken(c) == "" {
		return c.Redirect(http.StatusSeeOther, "/class")
	}
	offer, err := w.newDeviceOffer(c)
	if err != nil {
		return err
	}
	return w.renderLearnerPage(c, offer)
}

// apiDeviceCode: POST /api/me/device-code, the same for a script.
func (w *classWeb) apiDeviceCode(c echo.Context) error {
	offer, err := w.newDeviceOffer(c)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return writeJSON(c, http.StatusCreated, offer)
}

// continuePage: GET /class/continue[?code=...], the form to enter a code.
func (w *classWeb) continuePage(c echo.Context) error {
	code := c.QueryParam("code")
	if len(code) > 4*classroom.DeviceCodeLen {
		code = ""
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return w.s.render(c, http.StatusOK, ContinuePage(w.s.page("Class"), ContinueData{Code: code}))
}

// pageContinue: POST /class/continue with the code: this browser becomes
// the learner's, and goes to their page.
func (w *classWeb) pageContinue(c echo.Context) error {
	code := c.FormValue("code")
	sess, err := w.store().ContinueSession(c.Request().Context(), code)
	if err != nil {
		p, err := formError(err)
		if err != nil {
			return err
		}
		if len(code) > 4*classroom.DeviceCodeLen {
			code = ""
		}
		return w.s.render(c, p.Status, ContinuePage(w.s.page("Class"), ContinueData{Code: code, Error: p.Message}))
	}
	setLearnerCookies(c, sess.Token)
	return c.Redirect(http.StatusSeeOther, "/class/me")
}

// apiContinue: POST /api/classes/continue {"code"}: the same for a script,
// answered with the learner and their class as /api/me says them.
func (w *classWeb) apiContinue(c echo.Context) error {
	var in struct {
		Code string `json:"code"`
	}
	if err := w.s.readJSON(c, &in); err != nil {
		return err
	}
	sess, err := w.store().ContinueSession(c.Request().Context(), in.Code)
	if err != nil {
		return err
	}
	setLearnerCookies(c, sess.Token)
	return writeJSON(c, http.StatusOK, joined{Learner: sess.Learner, Class: w.summarize(sess.Class)})
}
