package web

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/leaselab/playground/engine"
)

// fuzzSession is a websocket session without a socket: handle queues its
// answers, which the fuzz targets read back. Everything behind handle
// (the decoder, the engine, a live run) is the real one.
func fuzzSession(srv *Server) *session { return newSession(srv, nil, nil) }

// finish waits for the session's run, if one started, to end (stopping
// it first when stop is set), then returns what the session queued.
func finish(tb testing.TB, ss *session, stop bool) []ServerMessage {
	tb.Helper()
	if lr := ss.live; lr != nil {
		if stop {
			ss.cancel()
		}
		select {
		case <-lr.done:
		case <-time.After(60 * time.Second):
			tb.Fatal("the run did not end within 60 s")
		}
	}
	ss.cancel()
	ss.mu.Lock()
	defer ss.mu.Unlock()
	var out []ServerMessage
	for _, f := range ss.queue {
		if f.data == nil || f.close != 0 {
			continue
		}
		var m ServerMessage
		if err := json.Unmarshal(f.data, &m); err != nil {
			tb.Fatalf("the session queued a message that is not JSON: %v\n%.300s", err, f.data)
		}
		out = append(out, m)
	}
	return out
}

// checkAnswers holds a session's answers to the protocol: an error is
// the user's (never "internal"), says what is wrong, and is short.
func checkAnswers(tb testing.TB, in []byte, msgs []ServerMessage) {
	tb.Helper()
	for _, m := range msgs {
		if m.Type != MsgError {
			continue
		}
		if m.Code == codeInternal || m.Code == "" || m.Message == "" {
			tb.Fatalf("%.300q: error %+v", in, m)
		}
		if utf8.RuneCountInString(m.Message) > maxMessage || utf8.RuneCountInString(m.Field) > maxField {
			tb.Fatalf("%.300q: an error of %d characters", in, utf8.RuneCountInString(m.Message))
		}
	}
}

func presetJSON(tb testing.TB, name string) string {
	tb.Helper()
	p, err := engine.LoadPreset(name)
	if err != nil {
		tb.Fatal(err)
	}
	data, err := json.Marshal(p.Scenario)
	if err != nil {
		tb.Fatal(err)
	}
	return string(data)
}

// FuzzWebsocketMessage sends one message, anything at all, to a fresh
// session: it is answered (an error, or a run's first state), never with
// an internal error or a panic, and a run it starts is stopped cleanly.
func FuzzWebsocketMessage(f *testing.F) {
	srv, err := NewServer(Config{})
	if err != nil {
		f.Fatal(err)
	}
	sc := presetJSON(f, "paused-holder")
	for _, s := range []string{
		`{"type":"start","scenario":` + sc + `,"speed":1}`,
		`{"type":"start","scenario":` + sc + `}`,
		`{"type":"start","scenario":"clients: [{name: a, steps: [{do: acquire}]}]"}`,
		`{"type":"start","scenario":{"clients":[{"name":"a","steps":[{"do":"fly"}]}]}}`,
		`{"type":"start","speed":-1,"scenario":{}}`, `{"type":"start","speed":1e308,"scenario":{}}`,
		`{"type":"pause"}`, `{"type":"inject","fault":{"do":"pause","target":"client-1","for":"1s"}}`,
		`{"type":"dance"}`, `{"type":`, `[1,2]`, `{"type":"pause"} {"type":"stop"}`, `{"type":"pause","extra":1}`,
		`null`, ``, `"start"`, `{"type":"speed","speed":"fast"}`, `{"type":"start","scenario":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if int64(len(data)) > srv.cfg.MaxMessageBytes {
			return // the socket's read limit closes the connection first
		}
		ss := fuzzSession(srv)
		ss.handle(data)
		started := ss.live != nil
		msgs := finish(t, ss, true)
		if len(msgs) == 0 && !started {
			// (A run stopped before its turn came may end silently: its
			// session is the one that stopped it.)
			t.Fatalf("%.300q: no answer", data)
		}
		checkAnswers(t, data, msgs)
	})
}

// FuzzWebsocketInject injects a fault, anything at all, into a live run of
// paused-holder (a Raft lock group of three), then turns it to full speed
// so that it applies the fault and runs to its end: a bad fault is refused
// naming its field, a good one runs; nothing panics, no error is
// internal, and the run ends with its summary.
func FuzzWebsocketInject(f *testing.F) {
	srv, err := NewServer(Config{})
	if err != nil {
		f.Fatal(err)
	}
	start := []byte(`{"type":"start","scenario":` + presetJSON(f, "paused-holder") + `,"speed":0.001}`)
	for _, s := range []string{
		`{"do":"pause","target":"client-1","for":"1s"}`, `{"do":"crash","target":"node-1"}`,
		`{"do":"crash","target":"leader"}`, `{"do":"restart","target":"node-2"}`,
		`{"do":"partition","target":"node-1","for":"5s"}`, `{"do":"delay","target":"storage","for":"2s"}`,
		`{"do":"pause","target":"client-9","for":"1s"}`, `{"do":"pause","target":"client-1","for":"-1s"}`,
		`{"do":"pause","target":"client-1","for":"99999h"}`, `{"do":"fly"}`, `{}`, `null`, `[]`, `"pause"`,
		`{"do":"pause","target":"client-1","for":"1s","extra":true}`, `{"do":"clock","target":"node-1","by":"5s"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, fault []byte) {
		msg := []byte(`{"type":"inject","fault":` + string(fault) + `}`)
		if int64(len(msg)) > srv.cfg.MaxMessageBytes {
			return
		}
		ss := fuzzSession(srv)
		ss.handle(start)
		if ss.live == nil {
			t.Fatalf("paused-holder did not start: %+v", finish(t, ss, true))
		}
		// At a thousandth of real time the run is still at its start; a
		// fault sent before it has its slot waits and applies as it
		// starts, as a browser's would.
		ss.handle(msg)
		ss.handle([]byte(`{"type":"speed","speed":0}`))
		msgs := finish(t, ss, false)
		checkAnswers(t, msg, msgs)
		summary := false
		for _, m := range msgs {
			if m.Type == MsgError && m.Field != "" && m.Field != "fault" && !strings.HasPrefix(m.Field, "fault.") {
				t.Fatalf("%.300q: an error about %q, not the fault", fault, m.Field)
			}
			summary = summary || m.Type == MsgSummary
		}
		if !summary {
			t.Fatalf("%.300q: the run ended without a summary", fault)
		}
	})
}
