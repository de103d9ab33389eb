package web_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web"
)

// TestWebsocketSendsMessagesOnlyWhenAsked: a start with "messages" gets
// each message the network carried, as the engine records them, besides
// the same events; a start without gets none.
func TestWebsocketSendsMessagesOnlyWhenAsked(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	sc := preset(t, "ambiguous-commit", false)
	parsed, _ := engine.DecodeScenario(sc)
	r, err := engine.Start(t.Context(), mustPrepare(t, parsed), engine.Options{Messages: true})
	if err != nil {
		t.Fatal(err)
	}
	want, err := r.Wait()
	if err != nil {
		t.Fatal(err)
	}

	c := dial(t, ts.URL, nil)
	c.send(map[string]any{"type": "start", "scenario": sc, "speed": 0, "messages": true})
	msgs := c.until(web.MsgSummary)
	var got []engine.Message
	for _, m := range msgs {
		if m.Type == web.MsgMessage {
			got = append(got, *m.Record)
		}
	}
	gj, _ := json.Marshal(got)
	wj, _ := json.Marshal(want.Messages)
	if string(gj) != string(wj) || len(got) == 0 {
		t.Fatalf("messages streamed differ from the engine's:\n got %s\nwant %s", gj, wj)
	}
	ej, _ := json.Marshal(events(msgs))
	wej, _ := json.Marshal(want.Events)
	if string(ej) != string(wej) {
		t.Fatalf("asking for messages changed the events:\n got %s\nwant %s", ej, wej)
	}

	c.send(map[string]any{"type": "start", "scenario": sc, "speed": 0})
	for _, m := range c.until(web.MsgSummary) {
		if m.Type == web.MsgMessage {
			t.Fatalf("a start that did not ask got a message: %+v", m.Record)
		}
	}
}

// TestAPIRunMessagesOnRequest: POST /api/run?messages=1 adds the records
// beside the same timeline; without it the answer has none; a bad value is
// refused naming the field.
func TestAPIRunMessagesOnRequest(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	body := string(preset(t, "delayed-write", false))
	status, plain := post(t, ts.URL+"/api/run", body)
	if status != 200 || strings.Contains(string(plain), `"messages"`) {
		t.Fatalf("without ?messages: %d, messages present: %v", status, strings.Contains(string(plain), `"messages"`))
	}
	status, with := post(t, ts.URL+"/api/run?messages=1", body)
	if status != 200 {
		t.Fatalf("?messages=1: %d %s", status, with)
	}
	var a, b struct {
		Events   json.RawMessage  `json:"events"`
		Summary  json.RawMessage  `json:"summary"`
		Messages []engine.Message `json:"messages"`
	}
	if err := json.Unmarshal(plain, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(with, &b); err != nil {
		t.Fatal(err)
	}
	if string(a.Events) != string(b.Events) || string(a.Summary) != string(b.Summary) {
		t.Fatal("asking for messages changed the timeline")
	}
	late := 0
	for _, m := range b.Messages {
		if m.Late && m.Kind == "write" && m.Sent == 1000 && m.At == 13000 {
			late++
		}
	}
	if late != 1 {
		t.Fatalf("the held write should be one late message: %+v", b.Messages)
	}
	status, bad := post(t, ts.URL+"/api/run?messages=yes", body)
	if status != 400 || !strings.Contains(string(bad), `"field":"messages"`) {
		t.Fatalf("?messages=yes: %d %s", status, bad)
	}
}
