package web_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/web"
)

// TestALectureHallBehindOneAddressJoinsAndChecks: 400 students behind one
// school NAT (one address) join at the same instant and each checks three
// answers at once; the limits' clock stands still, so nothing comes back
// while they do. Every join and every check goes through. One student who
// then checks again and again spends their own bucket and the address's
// shared one, and is refused; a classmate's check still goes through on
// their own.
func TestALectureHallBehindOneAddressJoinsAndChecks(t *testing.T) {
	if testing.Short() {
		t.Skip("400 joins and 1,200 checks")
	}
	clk := newTestClock()
	ts, _ := startServer(t, web.Config{Classroom: openSQLite(t), Class: web.ClassConfig{Clock: clk.Now}})
	class := createClass(t, ts.URL, "Lecture hall")
	const n = 400
	students := make([]*person, n)
	for i := range n {
		p := newPerson(t, ts.URL)
		if a := p.postJSON("/api/classes/"+class.Code+"/join", `{"name":"Student `+strconv.Itoa(i)+`"}`); a.status != http.StatusCreated {
			t.Fatalf("join %d of %d: %d %s", i+1, n, a.status, a.body)
		}
		students[i] = p
	}
	check := func(p *person) answer {
		return p.postJSON("/api/exercises/outlive-lease/check", `{"answer":"50"}`)
	}
	for round := range 3 {
		for i, p := range students {
			if a := check(p); a.status != http.StatusOK {
				t.Fatalf("check %d of student %d: %d %s", round+1, i+1, a.status, a.body)
			}
		}
	}
	// The eager student spends their own bucket, then the address's
	// shared one, and is refused.
	eager := students[0]
	var last answer
	for i := 0; i < web.DefaultSessionCheckRate.Burst+web.DefaultCheckRate.Burst+1; i++ {
		if last = check(eager); last.status == http.StatusTooManyRequests {
			if want := web.DefaultSessionCheckRate.Burst - 3 + web.DefaultCheckRate.Burst; i != want {
				t.Errorf("the eager student was refused after %d more checks, want %d (their bucket, 3 spent, and the address's)", i, want)
			}
			break
		}
	}
	if last.status != http.StatusTooManyRequests || !strings.Contains(last.body, "too many checks from you and your address") {
		t.Fatalf("the eager student's last check: %d %s", last.status, last.body)
	}
	if a := check(newPerson(t, ts.URL)); a.status != http.StatusTooManyRequests {
		t.Errorf("a check without a session once the address's bucket is spent: %d %s", a.status, a.body)
	}
	if a := check(students[1]); a.status != http.StatusOK {
		t.Errorf("a classmate's check beside the eager student: %d %s", a.status, a.body)
	}
}

// TestSocketsOfLearnersBehindOneAddressFitButLeaveTheRest: a script's
// sockets without a session have the address's share; learners behind
// the same address, each with the session the server issued, open theirs
// beside it, a few places each before they too take the address's share
// (a browser with many tabs), up to the address's share of the whole
// pool; another address still opens its own.
func TestSocketsOfLearnersBehindOneAddressFitButLeaveTheRest(t *testing.T) {
	st := openSQLite(t)
	ts, _ := startServer(t, web.Config{Classroom: st, MaxConnections: 20, ConnectionsPerAddress: 4, ConnectionsPerSession: 2})
	class := createClass(t, ts.URL, "Hall")
	const school = "127.0.0.2"
	want := func(ok bool) int {
		return map[bool]int{true: http.StatusSwitchingProtocols, false: http.StatusTooManyRequests}[ok]
	}
	for i := range 3 {
		if _, status := tryDialFrom(t, ts.URL, school, nil); status != want(true) {
			t.Fatalf("socket %d without a session: %d", i+1, status)
		}
	}
	var learners []http.Header
	for i := range 12 {
		p := personFrom(t, ts.URL, school)
		if a := p.postJSON("/api/classes/"+class.Code+"/join", `{"name":"L`+strconv.Itoa(i)+`"}`); a.status != http.StatusCreated {
			t.Fatalf("join: %d %s", a.status, a.body)
		}
		learners = append(learners, http.Header{"Cookie": {web.LearnerCookie + "=" + p.cookie(web.LearnerCookie)}})
	}
	// A learner's two tabs on their own places, a third on the address's
	// last place without a session, a fourth refused.
	for tab := range 4 {
		if _, status := tryDialFrom(t, ts.URL, school, learners[0]); status != want(tab < 3) {
			t.Fatalf("the learner's tab %d: %d, want %d", tab+1, status, want(tab < 3))
		}
	}
	if _, status := tryDialFrom(t, ts.URL, school, nil); status != want(false) {
		t.Fatalf("a socket without a session past the address's share: %d", status)
	}
	// The address holds 15 of the 20 (its three quarters): 4 on its share,
	// 2 of the first learner's own, 9 more learners'.
	for i := 1; i < 12; i++ {
		if _, status := tryDialFrom(t, ts.URL, school, learners[i]); status != want(i < 10) {
			t.Fatalf("learner %d's socket: %d, want %d", i+1, status, want(i < 10))
		}
	}
	for i := range 5 {
		if _, status := tryDialFrom(t, ts.URL, "127.0.0.3", nil); status != want(i < 4) {
			t.Fatalf("another address's socket %d beside the full school: %d, want %d", i+1, status, want(i < 4))
		}
	}
}

// TestALectureHallBehindOneAddressMovesBrowsers: 400 students behind one
// school NAT join at once; then some mistype class codes and device
// codes, one short of the wrong-code bucket, and ten others go on in
// another browser together, each with their device code: every one of
// them does, and the class still has 400 rows. The limits' clock stands
// still.
func TestALectureHallBehindOneAddressMovesBrowsers(t *testing.T) {
	if testing.Short() {
		t.Skip("400 joins")
	}
	clk := newTestClock()
	ts, _ := startServer(t, web.Config{Classroom: openSQLite(t), Class: web.ClassConfig{Clock: clk.Now}})
	class := createClass(t, ts.URL, "Lecture hall")
	const n, moving = 400, 10
	students := make([]*person, n)
	for i := range n {
		students[i], _ = join(t, ts.URL, class.Code, "Student "+strconv.Itoa(i))
	}
	typos := web.DefaultWrongCodeRate.Burst - 1
	for i := range typos {
		p := newPerson(t, ts.URL)
		if i%2 == 0 {
			wantStatus(t, p.postJSON("/api/classes/ZZZZZZ/join", `{"name":"Typo"}`), http.StatusNotFound, "a mistyped class code")
		} else {
			wantStatus(t, p.postJSON("/api/classes/continue", `{"code":"ZZZZZ-ZZZZ`+string(classroom.CodeAlphabet[i])+`"}`), http.StatusNotFound, "a mistyped device code")
		}
	}
	codes := make([]string, moving)
	for i := range codes {
		a := students[i].postJSON("/api/me/device-code", "")
		wantStatus(t, a, http.StatusCreated, "a device code")
		var offer struct{ Code string }
		a.decode(t, &offer)
		codes[i] = offer.Code
	}
	if got := sendAtOnce(t, ts.URL, codes); got[http.StatusOK] != moving {
		t.Fatalf("%d students going on in another browser at once, after %d typos from their address: %v", moving, typos, got)
	}
	if rows := len(readDashboard(t, teacher(t, ts.URL, class.TeacherKey), class.Code).solved); rows != n {
		t.Errorf("the class has %d rows after %d moved browsers, want %d", rows, moving, n)
	}
}
