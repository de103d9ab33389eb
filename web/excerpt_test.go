package web_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gorilla/websocket"

	"github.com/leaselab/playground/web"
)

// TestErrorsQuoteOnlyAnExcerpt sends inputs tens of thousands of
// characters long where errors used to repeat them: a misspelt field, a
// preset, a learner id, a share link, a client's name in a scenario (over
// HTTP and the websocket). Each error still names the field and says
// what is wrong, in at most a few hundred characters, quoting at most an
// excerpt with the input's length in characters.
func TestErrorsQuoteOnlyAnExcerpt(t *testing.T) {
	base := startClass(t, openSQLite(t))
	c := createClass(t, base, "Excerpts")
	tch := teacher(t, base, c.TeacherKey)
	huge := strings.Repeat("é", 30000) // 60 KB, 30,000 characters
	quoted, _ := json.Marshal(huge)
	client := strings.Repeat("c", 20000)

	check := func(what string, a answer, field, wantIn string) {
		t.Helper()
		var e struct{ Error, Field string }
		a.decode(t, &e)
		if n := utf8.RuneCountInString(e.Error); n > 400 || utf8.RuneCountInString(e.Field) > 100 {
			t.Errorf("%s: an error of %d characters, field of %d: %.200s", what, n, utf8.RuneCountInString(e.Field), e.Error)
		}
		if field != "" && e.Field != field {
			t.Errorf("%s: field %.120q, want %q", what, e.Field, field)
		}
		if !strings.Contains(e.Error, wantIn) {
			t.Errorf("%s: %q, want it to contain %q", what, e.Error, wantIn)
		}
	}
	a := newPerson(t, base).postJSON("/api/classes", `{`+string(quoted)+`: 1}`)
	wantStatus(t, a, http.StatusBadRequest, "an unknown field")
	check("an unknown field", a, "", "is not a field of this request, which takes name")

	a = tch.postJSON("/api/classes/"+c.Code+"/scenario", `{"preset":`+string(quoted)+`}`)
	wantStatus(t, a, http.StatusBadRequest, "a long preset")
	check("a long preset", a, "preset", `… (30000 characters)`)

	a = tch.postJSON("/api/classes/"+c.Code+"/scenario", `{"link":"http://x/%zz?s=`+strings.Repeat("a", 30000)+`"}`)
	wantStatus(t, a, http.StatusBadRequest, "a broken link")
	check("a broken link", a, "link", "(30015 characters) is not a playground link")

	a = tch.get("/api/classes/" + c.Code + "/learners/" + strings.Repeat("9", 5000) + "/progress")
	wantStatus(t, a, http.StatusNotFound, "a long learner id")
	check("a long learner id", a, "id", "(5000 characters)")

	a = newPerson(t, base).postJSON("/api/classes/"+c.Code+"/join", `{"name":`+string(quoted)+`}`)
	wantStatus(t, a, http.StatusBadRequest, "a long name")
	check("a long name", a, "name", "must be at most 40 characters (it has 30000)")

	// The engine's message quotes the step it does not know; the server
	// cuts it to an excerpt whoever wrote it.
	sc := `{"clients":[{"name":"a","steps":[{"do":"` + client + `"}]}]}`
	a = newPerson(t, base).postJSON("/api/run", sc)
	if a.status/100 != 4 {
		t.Fatalf("a scenario with a long step: %d", a.status)
	}
	check("a scenario with a long step", a, "clients[0].steps[0].do", "unknown step")

	ts := strings.TrimPrefix(base, "http")
	conn, _, err := websocket.DefaultDialer.Dial("ws"+ts+"/ws/run", http.Header{"Origin": {base}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.WriteMessage(websocket.TextMessage, []byte(`{"type":"start","scenario":`+sc+`}`)); err != nil {
		t.Fatal(err)
	}
	var m web.ServerMessage
	if err := conn.ReadJSON(&m); err != nil {
		t.Fatal(err)
	}
	if m.Type != web.MsgError || utf8.RuneCountInString(m.Message) > 400 || utf8.RuneCountInString(m.Field) > 100 {
		t.Errorf("websocket error of %d characters: %+.200v", utf8.RuneCountInString(m.Message), m)
	}
}
