package web_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/web"
)

// TestMovingBrowsersMovesTheLearnerStream: Ada follows the class live on
// her phone, beside Bo, then goes on on her laptop with a device code.
// The phone is signed out, so its stream ends (it neither holds one of
// Ada's places nor hears the class any more); the laptop's stream
// follows the class, pushes included, like any learner's; Bo's is
// untouched.
func TestMovingBrowsersMovesTheLearnerStream(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		ts, _ := startServer(t, web.Config{Classroom: st, Class: web.ClassConfig{Live: web.LearnerLiveConfig{Poll: time.Hour}}})
		base := ts.URL
		c := createClass(t, base, "Devices")
		owner := teacher(t, base, c.TeacherKey)
		phone, _ := join(t, base, c.Code, "Ada")
		bo, _ := join(t, base, c.Code, "Bo")
		onPhone, onBo := mustOpen(t, phone), mustOpen(t, bo)
		onPhone.next(t, "the phone's state on connect")
		onBo.next(t, "Bo's state on connect")

		laptop := newPerson(t, base)
		wantStatus(t, laptop.postForm("/class/continue", url.Values{"code": {deviceCode(t, phone)}}), http.StatusSeeOther, "continuing on the laptop")
		onPhone.waitEnd(t, "the signed-out phone's stream")

		// The class changes before the laptop follows it, and again after.
		push := func(body string) {
			t.Helper()
			wantStatus(t, owner.postJSON("/api/classes/"+c.Code+"/push", body), http.StatusOK, "a push")
		}
		push(`{"preset":"` + presetName(t) + `"}`)
		if sc := onBo.next(t, "the push for Bo").Class.Scenario; sc == nil {
			t.Error("Bo's stream did not carry the push")
		}
		onLaptop := mustOpen(t, laptop)
		if sc := onLaptop.next(t, "the laptop's state on connect").Class.Scenario; sc == nil {
			t.Error("the laptop's stream did not open on the pushed scenario")
		}
		push(`{}`)
		if sc := onLaptop.next(t, "the clear on the laptop").Class.Scenario; sc != nil {
			t.Errorf("after the clear the laptop's stream says %+v", sc)
		}
		if sc := onBo.next(t, "the clear for Bo").Class.Scenario; sc != nil {
			t.Errorf("after the clear Bo's stream says %+v", sc)
		}
	})
}
