package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/web"
)

// TestEmptyClassesFromManyAddressesLeaveRoom plays hole 4 of the hostile
// client: 250 addresses each try to make six classes nobody will join.
// Each address gets its share (five live classes) and no more; 1,250 empty
// classes count apart from the classes in use; and a teacher from a new
// address still creates a class, and a class beside the attack fills with
// learners as usual.
func TestEmptyClassesFromManyAddressesLeaveRoom(t *testing.T) {
	if testing.Short() {
		t.Skip("1,500 class creations")
	}
	st := openSQLiteWith(t, classroom.Options{Limits: classroom.Limits{MaxClassesPerAddress: 5}})
	ts, _ := startServer(t, web.Config{Classroom: st, Class: web.ClassConfig{CreateRate: web.Rate{PerMinute: 1, Burst: 10}}})
	var mu sync.Mutex
	statuses := map[int]int{}
	addrs := make(chan string)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ip := range addrs {
				p := personFrom(t, ts.URL, ip)
				for i := range 6 {
					a := p.postJSON("/api/classes", fmt.Sprintf(`{"name":"spam %s %d"}`, ip, i))
					mu.Lock()
					statuses[a.status]++
					mu.Unlock()
					if i == 5 && (a.status != http.StatusForbidden || !strings.Contains(a.body, "your address already has 5 live classes")) {
						t.Errorf("%s's sixth class: %d %s", ip, a.status, a.body)
					}
				}
			}
		}()
	}
	for i := range 250 {
		addrs <- fmt.Sprintf("127.0.%d.%d", 1+i/250, 2+i%250)
	}
	close(addrs)
	wg.Wait()
	if statuses[http.StatusCreated] != 1250 || statuses[http.StatusForbidden] != 250 {
		t.Fatalf("the attack's answers by status: %v, want 1250 created and 250 refused", statuses)
	}
	teacherFromNew := personFrom(t, ts.URL, "127.0.2.2")
	a := teacherFromNew.postJSON("/api/classes", `{"name":"Monday's lecture"}`)
	if a.status != http.StatusCreated {
		t.Fatalf("a teacher from a new address after the attack: %d %s", a.status, a.body)
	}
	var c struct{ Code string }
	a.decode(t, &c)
	for _, name := range []string{"Ana", "Bo", "Cy"} {
		if j := personFrom(t, ts.URL, "127.0.2.3").postJSON("/api/classes/"+c.Code+"/join", `{"name":"`+name+`"}`); j.status != http.StatusCreated && j.status != http.StatusOK {
			t.Errorf("%s joins the new class: %d %s", name, j.status, j.body)
		}
	}
}

// TestClassCreationKey: with --class-creation-key set, a class is created
// only with the key, by the API's header or the form's field; without it,
// or with a wrong one, 403 naming what is missing, and nothing is made.
func TestClassCreationKey(t *testing.T) {
	st := openSQLite(t)
	ts, _ := startServer(t, web.Config{Classroom: st, Class: web.ClassConfig{CreationKey: "open sesame"}})
	p := newPerson(t, ts.URL)
	a := p.postJSON("/api/classes", `{"name":"No key"}`)
	if a.status != http.StatusForbidden || !strings.Contains(a.body, "needs its class creation key") || !strings.Contains(a.body, web.ClassCreationKeyHeader) {
		t.Errorf("without the key: %d %s", a.status, a.body)
	}
	a = p.postJSON("/api/classes", `{"name":"Wrong key"}`, web.ClassCreationKeyHeader, "guess")
	if a.status != http.StatusForbidden || !strings.Contains(a.body, "not the server's class creation key") {
		t.Errorf("with a wrong key: %d %s", a.status, a.body)
	}
	if a = p.postJSON("/api/classes", `{"name":"Keyed"}`, web.ClassCreationKeyHeader, "open sesame"); a.status != http.StatusCreated {
		t.Errorf("with the key: %d %s", a.status, a.body)
	}
	// The form asks for the key, and takes it.
	page := p.get("/class")
	doc := parseHTML(t, page.body)
	oneByTestID(t, doc, "creation-key")
	f := p.postForm("/class/new", url.Values{"class_name": {"Form, no key"}, "variants": {"per-learner"}})
	if f.status != http.StatusForbidden || !strings.Contains(text(oneByTestID(t, parseHTML(t, f.body), "create-error")), "needs its class creation key") {
		t.Errorf("the form without the key: %d", f.status)
	}
	f = p.postForm("/class/new", url.Values{"class_name": {"Form"}, "variants": {"per-learner"}, "creation_key": {"open sesame"}})
	if f.status != http.StatusCreated {
		t.Errorf("the form with the key: %d %s", f.status, f.body)
	}
	list, err := st.(classroom.Operator).ListClasses(t.Context())
	if err != nil || len(list) != 2 {
		t.Errorf("classes made: %d %v, want the two with the key", len(list), err)
	}
}
