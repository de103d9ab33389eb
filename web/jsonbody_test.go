package web

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
)

// TestReadJSONIsStrict: every JSON endpoint reads its body through
// readJSON, so each rule here holds for all of them.
func TestReadJSONIsStrict(t *testing.T) {
	s, err := NewServer(Config{MaxBodyBytes: 1024})
	if err != nil {
		t.Fatal(err)
	}
	type request struct {
		Name  string `json:"name"`
		Open  *bool  `json:"open"`
		Count int    `json:"count"`
	}
	read := func(ctype, body string) (request, problem) {
		req := httptest.NewRequest(http.MethodPost, "/x", strings.NewReader(body))
		if ctype != "" {
			req.Header.Set(echo.HeaderContentType, ctype)
		}
		c := echo.New().NewContext(req, httptest.NewRecorder())
		var v request
		return v, mapError(s.readJSON(c, &v))
	}
	for _, tc := range []struct {
		name, ctype, body string
		want              problem
	}{
		{"unknown field named with what is taken", "application/json", `{"name":"a","admin":true}`,
			problem{400, "invalid", "admin", "admin: is not a field of this request, which takes name, open or count"}},
		{"wrong type named in words", "application/json", `{"count":"three"}`,
			problem{400, "invalid", "count", "count: must be a whole number"}},
		{"wrong type of a pointer field", "application/json", `{"open":"yes"}`,
			problem{400, "invalid", "open", "open: must be true or false"}},
		{"not an object", "application/json", `[1,2]`,
			problem{400, "invalid", "body", "body: must be a JSON object with name, open or count"}},
		{"two values", "application/json", `{"name":"a"}{"name":"b"}`,
			problem{400, "invalid", "body", "body: has more than one JSON value"}},
		{"trailing text", "application/json", `{"name":"a"} x`,
			problem{400, "invalid", "body", "body: has more than one JSON value"}},
		{"broken JSON", "application/json", `{"name":`,
			problem{400, "invalid", "body", "body: is not valid JSON: unexpected EOF"}},
		{"too large names the limit", "application/json", `{"name":"` + strings.Repeat("a", 1100) + `"}`,
			problem{413, "too_large", "body", "body: is larger than the limit of 1024 bytes"}},
		{"a form", "application/x-www-form-urlencoded", `name=a`,
			problem{415, "media_type", "Content-Type", "Content-Type: must be application/json (with curl: -H 'Content-Type: application/json')"}},
		{"text/plain, as a cross-site form sends", "text/plain", `{"name":"a"}`,
			problem{415, "media_type", "Content-Type", "Content-Type: must be application/json (with curl: -H 'Content-Type: application/json')"}},
		{"no Content-Type", "", `{"name":"a"}`,
			problem{415, "media_type", "Content-Type", "Content-Type: must be application/json (with curl: -H 'Content-Type: application/json')"}},
	} {
		if _, got := read(tc.ctype, tc.body); got != tc.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, got, tc.want)
		}
	}
	v, p := read("application/json; charset=utf-8", ` {"name":"Ada","open":false,"count":3} `)
	if p.Status != 0 || v.Name != "Ada" || v.Open == nil || *v.Open || v.Count != 3 {
		t.Errorf("a good body: %+v, %+v", v, p)
	}
	if v, p := read("application/json", ""); p.Status != 0 || v != (request{}) {
		t.Errorf("an empty body is the empty object: %+v, %+v", v, p)
	}
}

// TestReadBodyTakesTheTypesItIsGiven: POST /api/run takes YAML as well.
func TestReadBodyTakesTheTypesItIsGiven(t *testing.T) {
	s, err := NewServer(Config{})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPost, "/x", strings.NewReader("seed: 1\n"))
	req.Header.Set(echo.HeaderContentType, "application/yaml")
	body, err := s.readBody(echo.New().NewContext(req, httptest.NewRecorder()), scenarioTypes...)
	if err != nil || string(body) != "seed: 1\n" {
		t.Fatalf("YAML body: %q, %v", body, err)
	}
	req = httptest.NewRequest(http.MethodPost, "/x", strings.NewReader("seed=1"))
	req.Header.Set(echo.HeaderContentType, "application/x-www-form-urlencoded")
	_, err = s.readBody(echo.New().NewContext(req, httptest.NewRecorder()), scenarioTypes...)
	want := "Content-Type: must be application/json, application/yaml, application/x-yaml or text/yaml (with curl: -H 'Content-Type: application/json')"
	if p := mapError(err); p.Status != 415 || p.Message != want {
		t.Errorf("a form to /api/run: %+v", p)
	}
}
