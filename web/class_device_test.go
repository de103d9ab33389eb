package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/web"
)

// TestALearnerGoesOnInAnotherBrowser: Ada, who answered on her phone,
// asks it for a device code and enters it on a laptop: the laptop is Ada,
// her answer with her, still one row on the teacher's dashboard; the
// phone is signed out. Opening the code's link does not spend it; the code
// works once; a wrong one is refused on the form, naming it. The same goes
// through the API.
func TestALearnerGoesOnInAnotherBrowser(t *testing.T) {
	eachStore(t, func(t *testing.T, st classroom.Store) {
		base := startClass(t, st)
		ids := catalogIDs(t)
		c := createClass(t, base, "Devices")
		owner := teacher(t, base, c.TeacherKey)
		phone, _ := join(t, base, c.Code, "Ada")
		record(t, st, phone, ids[0], "1", true)

		a := phone.postForm("/class/me/device", url.Values{})
		wantStatus(t, a, http.StatusOK, "asking for a device code")
		doc := parseHTML(t, a.body)
		code := text(oneByTestID(t, doc, "device-code"))
		link, _ := attr(oneByTestID(t, doc, "device-link"), "href")
		if len(strings.ReplaceAll(code, "-", "")) != classroom.DeviceCodeLen || !strings.HasSuffix(link, "/class/continue?code="+url.QueryEscape(code)) {
			t.Fatalf("device code %q, link %q", code, link)
		}

		laptop := newPerson(t, base)
		// The link fills the form in; only the form spends the code.
		a = laptop.get(strings.TrimPrefix(link, base))
		wantStatus(t, a, http.StatusOK, "the code's link")
		if v, _ := attr(byID(t, parseHTML(t, a.body), "continue-code"), "value"); v != code {
			t.Errorf("the continue form holds %q, want %q", v, code)
		}
		wantStatus(t, phone.get("/api/me"), http.StatusOK, "the phone after the link was opened")

		a = laptop.postForm("/class/continue", url.Values{"code": {strings.ToLower(code)}})
		if a.status != http.StatusSeeOther || a.header.Get("Location") != "/class/me" {
			t.Fatalf("continuing: %d to %q: %s", a.status, a.header.Get("Location"), a.body)
		}
		var me struct {
			Learner  struct{ Name string }
			Progress []struct{ Exercise string }
		}
		a = laptop.get("/api/me")
		wantStatus(t, a, http.StatusOK, "the laptop's /api/me")
		a.decode(t, &me)
		if me.Learner.Name != "Ada" || len(me.Progress) != 1 || me.Progress[0].Exercise != ids[0] {
			t.Errorf("the laptop is %+v", me)
		}
		if a := phone.get("/api/me"); a.status != http.StatusUnauthorized {
			t.Errorf("the phone after the move: %d", a.status)
		}
		if n := len(readDashboard(t, owner, c.Code).solved); n != 1 {
			t.Errorf("the dashboard has %d rows, want Ada's one", n)
		}

		// Used once; a wrong code says so on the form.
		a = newPerson(t, base).postForm("/class/continue", url.Values{"code": {code}})
		if a.status != http.StatusNotFound || !strings.Contains(text(oneByTestID(t, parseHTML(t, a.body), "continue-error")), "was used or has expired") {
			t.Errorf("a used code: %d %s", a.status, a.body)
		}
		a = newPerson(t, base).postForm("/class/continue", url.Values{"code": {"ABCDE-FGHJ0"}})
		if a.status != http.StatusBadRequest || !strings.Contains(a.body, "no 0, O, 1 or I") {
			t.Errorf("a code with a 0: %d", a.status)
		}

		// The API, from the laptop to a third browser.
		a = laptop.postJSON("/api/me/device-code", "")
		wantStatus(t, a, http.StatusCreated, "a device code over the API")
		var offer struct{ Code, Link string }
		a.decode(t, &offer)
		third := newPerson(t, base)
		a = third.postJSON("/api/classes/continue", `{"code":"`+offer.Code+`"}`)
		wantStatus(t, a, http.StatusOK, "continuing over the API")
		if third.cookie(web.LearnerCookie) == "" || !strings.Contains(a.body, `"Ada"`) {
			t.Errorf("the third browser: %s", a.body)
		}
		if _, _, err := st.Learner(context.Background(), laptop.cookie(web.LearnerCookie)); err == nil {
			t.Error("the laptop kept its session after the third browser took it")
		}
	})
}

// byID finds the element with the id.
func byID(t *testing.T, doc *html.Node, id string) *html.Node {
	t.Helper()
	for _, n := range findAll(doc, func(n *html.Node) bool { v, _ := attr(n, "id"); return v == id }) {
		return n
	}
	t.Fatalf("no element #%s", id)
	return nil
}

// TestGuessedDeviceCodesAreSlowedDown: device codes that name nobody spend
// the address's wrong-code bucket, as wrong class codes do: past its burst
// the next try waits (429 with Retry-After), a right code too.
func TestGuessedDeviceCodesAreSlowedDown(t *testing.T) {
	st := openSQLite(t)
	base := startClass(t, st)
	guesser := newPerson(t, base)
	for i := range web.DefaultWrongCodeRate.Burst {
		code := strings.Repeat("A", classroom.DeviceCodeLen-2) + string(classroom.CodeAlphabet[i/32]) + string(classroom.CodeAlphabet[i%32])
		if a := guesser.postForm("/class/continue", url.Values{"code": {code}}); a.status != http.StatusNotFound {
			t.Fatalf("guess %d: %d", i, a.status)
		}
	}
	a := guesser.postJSON("/api/classes/continue", `{"code":"BBBBB-BBBBB"}`)
	if a.status != http.StatusTooManyRequests || a.header.Get("Retry-After") == "" || !strings.Contains(a.body, "device codes that name no learner") {
		t.Errorf("after %d wrong codes: %d %s", web.DefaultWrongCodeRate.Burst, a.status, a.body)
	}
}
