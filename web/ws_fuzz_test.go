package web

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web/admission"
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

// drain takes what a session has queued so far, leaving its queue empty:
// a session kept for many inputs answers each one afresh.
func drain(tb testing.TB, ss *session) []ServerMessage {
	tb.Helper()
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
	ss.srv.wsQueued.Add(-ss.queued)
	ss.queue, ss.queued, ss.lastState = ss.queue[:0], 0, -1
	return out
}

// FuzzWebsocketMessage sends one message, anything at all, to a fresh
// session: it is answered (an error, or its place in line), never with an
// internal error or a panic, and a run it starts leaves the line cleanly.
// The server's one live place is held throughout, so a message that would
// start a run is read, checked and queued like any other but runs nothing:
// the engine's own inputs are FuzzParseScenario's and
// FuzzWebsocketInject's, and a run per input would allow a few inputs a
// second instead of thousands.
func FuzzWebsocketMessage(f *testing.F) {
	srv, err := NewServer(Config{MaxLiveRuns: 1})
	if err != nil {
		f.Fatal(err)
	}
	held, err := srv.adm.Acquire(context.Background(), admission.Who{IP: "the fuzz target's own"}, admission.Live, nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(held.Release)
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

// injectRig is a live run of paused-holder (a Raft lock group of three)
// that a fuzz process injects its faults into, a batch at a time.
type injectRig struct {
	ss *session
	n  int // faults sent to it
}

// injectBatch is how many faults one run takes before it is run to its
// end and replaced.
const injectBatch = 64

func newInjectRig(tb testing.TB, srv *Server) *injectRig {
	tb.Helper()
	ss := fuzzSession(srv)
	// Paced at a thousandth of real time, the run stays at its start while
	// the faults arrive.
	ss.handle([]byte(`{"type":"start","scenario":` + presetJSON(tb, "paused-holder") + `,"speed":0.001}`))
	lr := ss.live
	if lr == nil {
		tb.Fatalf("paused-holder did not start: %+v", finish(tb, ss, true))
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		lr.mu.Lock()
		running := lr.run != nil
		lr.mu.Unlock()
		if running {
			break
		}
		if lr.ended() || time.Now().After(deadline) {
			tb.Fatalf("paused-holder did not start running: %+v", finish(tb, ss, true))
		}
		time.Sleep(time.Millisecond)
	}
	drain(tb, ss)
	return &injectRig{ss: ss}
}

// end turns the run to full speed, so that it applies every fault it
// took and runs to its end, and checks that it ends with its summary.
func (r *injectRig) end(tb testing.TB) {
	tb.Helper()
	r.ss.handle([]byte(`{"type":"speed","speed":0}`))
	msgs := finish(tb, r.ss, false)
	checkAnswers(tb, nil, msgs)
	for _, m := range msgs {
		if m.Type == MsgSummary {
			return
		}
	}
	tb.Fatalf("a run that took %d faults ended without a summary: %+v", r.n, msgs)
}

// FuzzWebsocketInject injects a fault, anything at all, into a live run:
// a bad fault is refused naming its field (or the message, when the fault
// breaks the message's JSON), a good one is taken; nothing panics and no
// error is internal. Every injectBatch faults, the run is turned to full
// speed so that it applies them and runs to its end, which it must do
// with its summary; then a new run takes the next batch.
func FuzzWebsocketInject(f *testing.F) {
	srv, err := NewServer(Config{})
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{
		`{"do":"pause","target":"client-1","for":"1s"}`, `{"do":"crash","target":"node-1"}`,
		`{"do":"crash","target":"leader"}`, `{"do":"restart","target":"node-2"}`,
		`{"do":"partition","target":"node-1","for":"5s"}`, `{"do":"delay","target":"storage","for":"2s"}`,
		`{"do":"pause","target":"client-9","for":"1s"}`, `{"do":"pause","target":"client-1","for":"-1s"}`,
		`{"do":"pause","target":"client-1","for":"99999h"}`, `{"do":"fly"}`, `{}`, `null`, `[]`, `"pause"`,
		`{"do":"pause","target":"client-1","for":"1s","extra":true}`, `{"do":"clock","target":"node-1","by":"5s"}`,
		`{`, `{"do":`,
	} {
		f.Add([]byte(s))
	}
	var rig *injectRig
	f.Cleanup(func() {
		if rig != nil {
			rig.end(f)
		}
	})
	f.Fuzz(func(t *testing.T, fault []byte) {
		msg := []byte(`{"type":"inject","fault":` + string(fault) + `}`)
		if int64(len(msg)) > srv.cfg.MaxMessageBytes {
			return
		}
		if rig != nil && rig.n >= injectBatch {
			rig.end(t)
			rig = nil
		}
		if rig == nil {
			rig = newInjectRig(t, srv)
		}
		rig.ss.handle(msg)
		rig.n++
		msgs := drain(t, rig.ss)
		checkAnswers(t, msg, msgs)
		for _, m := range msgs {
			if m.Type != MsgError {
				continue
			}
			onFault := m.Field == "fault" || strings.HasPrefix(m.Field, "fault.")
			// Bytes that are not one JSON value break the message around
			// them (`"", "0": ""` adds a field to it): the error is then
			// the message's.
			onMessage := m.Code == "bad_message" && !json.Valid(fault)
			// Nesting is bounded for the whole message, which the fault's
			// brackets deepen: that refusal names the message.
			deep := m.Field == "message" && strings.Contains(m.Message, "nests deeper than") && nesting(fault) >= 31
			onMessage = onMessage || deep
			if !onFault && !onMessage {
				t.Fatalf("%.300q: an error about %q: %+v", fault, m.Field, m)
			}
		}
	})
}

// nesting is how deep b's arrays and objects go, strings left out.
func nesting(b []byte) int {
	depth, most, inString, escaped := 0, 0, false, false
	for _, c := range b {
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString:
			inString = c != '"'
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			depth++
			most = max(most, depth)
		case c == ']' || c == '}':
			depth--
		}
	}
	return most
}
