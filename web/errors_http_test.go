package web_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/leaselab/playground/web"
)

// TestHTTPAndWebsocketTellTheSameError: a scenario refused by POST /api/run
// is refused over the websocket with the same kind, field and message.
func TestHTTPAndWebsocketTellTheSameError(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	for _, sc := range []string{
		`{"clients":[{"name":"a","steps":[{"do":"acquire"},{"do":"work","for":"-1s"}]}]}`,
		`{"lock":{"backend":"nope"},"clients":[{"name":"a","steps":[{"do":"acquire"}]}]}`,
		`{"seed":"one"}`,
	} {
		status, out := post(t, ts.URL+"/api/run", sc)
		var h struct{ Error, Field, Code string }
		if err := json.Unmarshal(out, &h); err != nil || status != http.StatusBadRequest {
			t.Fatalf("POST %s: %d %s", sc, status, out)
		}
		ws := dial(t, ts.URL, nil)
		ws.send(map[string]any{"type": "start", "scenario": json.RawMessage(sc)})
		m := ws.recv()
		if m.Type != web.MsgError || m.Code != h.Code || m.Field != h.Field || m.Message != h.Error {
			t.Errorf("%s:\n http      %q %q %q\n websocket %q %q %q", sc, h.Code, h.Field, h.Error, m.Code, m.Field, m.Message)
		}
		if h.Code != "invalid" || h.Field == "" {
			t.Errorf("%s: kind %q, field %q", sc, h.Code, h.Field)
		}
	}
}

// TestAPIRunTakesJSONOrYAMLOnly: a form post (curl's default) is a 415
// that says which Content-Type to send.
func TestAPIRunTakesJSONOrYAMLOnly(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	res, err := http.Post(ts.URL+"/api/run", "application/x-www-form-urlencoded", strings.NewReader(`{"seed":1}`))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var e struct{ Error, Field, Code string }
	_ = json.NewDecoder(res.Body).Decode(&e)
	if res.StatusCode != http.StatusUnsupportedMediaType || e.Field != "Content-Type" || e.Code != "media_type" ||
		!strings.Contains(e.Error, "application/json") || !strings.Contains(e.Error, "application/yaml") {
		t.Errorf("form post: %d %+v", res.StatusCode, e)
	}
	yaml := "clients:\n  - name: a\n    steps:\n      - do: acquire\n"
	res, err = http.Post(ts.URL+"/api/run", "application/yaml", strings.NewReader(yaml))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("YAML scenario: %d", res.StatusCode)
	}
}
