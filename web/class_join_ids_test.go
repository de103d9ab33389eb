package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestJoinWithStudentIDAndEmail(t *testing.T) {
	base := startClass(t, openSQLite(t))
	c := createClass(t, base, "Ids")
	p := newPerson(t, base)
	a := p.postJSON("/api/classes/"+c.Code+"/join", `{"name":"Ada","student_id":"s-1815","email":"ada@uni.example.edu"}`)
	wantStatus(t, a, http.StatusCreated, "join with identifiers")
	if !strings.Contains(a.body, `"student_id":"s-1815"`) || !strings.Contains(a.body, `"email":"ada@uni.example.edu"`) {
		t.Errorf("join answer lacks the identifiers: %s", a.body)
	}
	for _, tc := range []struct{ body, field string }{
		{`{"name":"Bo","email":"not-an-email"}`, "email"},
		{`{"name":"Bo","student_id":"` + strings.Repeat("9", 65) + `"}`, "student_id"},
		{`{"name":"Bo","student_id":"a;b"}`, "student_id"},
		{`{"name":"Bo","student_id":7}`, "student_id"},
	} {
		a := newPerson(t, base).postJSON("/api/classes/"+c.Code+"/join", tc.body)
		var e struct{ Field, Code string }
		a.decode(t, &e)
		if a.status != http.StatusBadRequest || e.Field != tc.field {
			t.Errorf("join %s: %d %s, want 400 naming %s", tc.body, a.status, a.body, tc.field)
		}
	}
	// The form without JavaScript: a bad email is shown on the form, which
	// opens the folded identifiers and keeps what was typed.
	a = newPerson(t, base).postForm("/class/join", url.Values{"code": {c.Code}, "name": {"Cy"}, "student_id": {"s-2"}, "email": {"cy@"}})
	if a.status != http.StatusBadRequest || !strings.Contains(a.body, "email: must be one address") ||
		!strings.Contains(a.body, `value="s-2"`) || !strings.Contains(a.body, `<details class="join-ids" open`) {
		t.Errorf("form join with a bad email: %d %.600s", a.status, a.body)
	}
	a = newPerson(t, base).postForm("/class/join", url.Values{"code": {c.Code}, "name": {"Cy"}, "student_id": {"s-2"}, "email": {"cy@uni.example.edu"}})
	wantStatus(t, a, http.StatusSeeOther, "form join with identifiers")
}
