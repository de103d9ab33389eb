package web_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/leaselab/playground/web"
)

// TestClassFormsAreBounded: the class pages' forms (join, create) take
// a small url-encoded body and nothing else: a large one is refused with
// a 413 naming the body and its limit before any field is looked at (a
// stranger with no key could otherwise make the server hold megabytes
// per request), a multipart one with a 415 naming Content-Type, and the
// page's own form still works.
func TestClassFormsAreBounded(t *testing.T) {
	ts, _ := startServer(t, web.Config{Classroom: openSQLite(t), Class: web.ClassConfig{CreationKey: "open sesame"}})
	base := ts.URL
	made := newPerson(t, base).postJSON("/api/classes", `{"name":"Bounded"}`, web.ClassCreationKeyHeader, "open sesame")
	wantStatus(t, made, http.StatusCreated, "create the class")
	var c struct{ Code string }
	made.decode(t, &c)
	huge := strings.Repeat("a", 1<<20)
	for _, path := range []string{"/class/join", "/class/new"} {
		p := newPerson(t, base)
		a := p.postForm(path, url.Values{"code": {c.Code}, "name": {"Ada"}, "class_name": {"X"}, "pad": {huge}})
		wantStatus(t, a, http.StatusRequestEntityTooLarge, path+" with a 1 MB form")
		if !strings.Contains(a.body, "body") || !strings.Contains(a.body, "8192") {
			t.Errorf("%s with a 1 MB form: %s, want it to name the body and its limit", path, excerptOf(a.body))
		}
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		mw.WriteField("code", c.Code)
		mw.WriteField("name", "Ada")
		mw.Close()
		a = p.do("POST", path, mw.FormDataContentType(), buf.String())
		wantStatus(t, a, http.StatusUnsupportedMediaType, path+" as multipart")
		if !strings.Contains(a.body, "Content-Type") {
			t.Errorf("%s as multipart: %s, want it to name Content-Type", path, excerptOf(a.body))
		}
	}
	// The API takes the creation key in its header only: a form body is
	// not read for it.
	a := newPerson(t, base).postForm("/api/classes", url.Values{"creation_key": {"open sesame"}, "name": {"Sneaky"}})
	if a.status == http.StatusOK || a.status == http.StatusCreated {
		t.Errorf("POST /api/classes with the creation key in a form body: %d, want refused", a.status)
	}
	// The page's own join form still joins.
	ada := newPerson(t, base)
	wantStatus(t, ada.postForm("/class/join", url.Values{"code": {c.Code}, "name": {"Ada"}}), http.StatusSeeOther, "the join form")
	if ada.cookie(web.LearnerCookie) == "" {
		t.Error("the join form set no learner cookie")
	}
}

func excerptOf(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}
