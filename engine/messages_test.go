package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/leaselab/playground/engine"
)

// runMessages runs sc keeping its messages, on a fresh group or one from
// pool.
func runMessages(t *testing.T, sc engine.Scenario, pool *engine.RaftPool) *engine.Result {
	t.Helper()
	var streamed []engine.Message
	r, err := engine.Start(t.Context(), mustPrepare(t, sc), engine.Options{Messages: true, Pool: pool,
		OnMessage: func(m engine.Message) { streamed = append(streamed, m) }})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := jsonOf(t, streamed), jsonOf(t, res.Messages); got != want {
		t.Fatalf("the records streamed differ from the result's:\n%s\n---\n%s", got, want)
	}
	return res
}

// TestMessagesLeaveTheTimelineAlone runs every preset with and without
// its messages kept: the timeline is the same byte for byte, and a run
// that did not ask has no records.
func TestMessagesLeaveTheTimelineAlone(t *testing.T) {
	for _, name := range engine.PresetNames() {
		t.Run(name, func(t *testing.T) {
			sc := mustPreset(t, name, false)
			plain := mustRun(t, sc)
			if plain.Messages != nil {
				t.Fatalf("a run that did not ask kept %d messages", len(plain.Messages))
			}
			with := runMessages(t, sc, nil)
			if got, want := jsonOf(t, with), jsonOf(t, plain); got != want {
				t.Fatalf("keeping messages changed the timeline:\n%s\n---\n%s", got, want)
			}
			if len(with.Messages) == 0 {
				t.Fatal("no message recorded")
			}
		})
	}
}

// TestMessagesAreDeterministic: the same scenario gives the same records,
// on fresh Raft groups and on pooled ones.
func TestMessagesAreDeterministic(t *testing.T) {
	pool := newPool(t, engine.RaftPoolSize{Three: 1})
	for _, name := range []string{"paused-holder", "ambiguous-commit", "delayed-write", "lease-read-stale", "raft-failover"} {
		t.Run(name, func(t *testing.T) {
			sc := mustPreset(t, name, true)
			want := jsonOf(t, runMessages(t, sc, nil).Messages)
			for i := range 2 {
				if got := jsonOf(t, runMessages(t, sc, nil).Messages); got != want {
					t.Fatalf("fresh run %d differs:\n%s\n---\n%s", i, got, want)
				}
				if got := jsonOf(t, runMessages(t, sc, pool).Messages); got != want {
					t.Fatalf("pooled run %d differs:\n%s\n---\n%s", i, got, want)
				}
			}
		})
	}
	if st := pool.Stats(); st.Hits == 0 {
		t.Errorf("no run got a warm group: %+v", st)
	}
}

// TestLostAnswerIsRecordedLost: in ambiguous-commit with node-1's crash
// moved to 170 ms, node-1 commits client-1's acquire (at 150 ms: the
// copies' round trip) and crashes before its answer is back (200 ms); the
// request arrived, its answer is lost, and says why.
func TestLostAnswerIsRecordedLost(t *testing.T) {
	res := runMessages(t, mustPreset(t, "ambiguous-commit", false, "faults[0].at", "170ms"), nil)
	req := res.Messages[indexOf(t, res.Messages, func(m engine.Message) bool {
		return m.Kind == "acquire" && m.From == "client-1" && m.To == "node-1"
	})]
	if req.Lost || req.Sent != 0 || req.At != 50 {
		t.Errorf("the acquire should reach node-1 at 50 ms: %+v", req)
	}
	ans := res.Messages[indexOf(t, res.Messages, func(m engine.Message) bool { return m.Answer == req.ID })]
	if !ans.Lost || ans.From != "node-1" || ans.To != "client-1" || !strings.Contains(ans.Why, "node-1 crashed") {
		t.Errorf("the answer should be lost in node-1's crash: %+v", ans)
	}
	if len(find(res, "node-1", "answer_lost")) != 1 {
		t.Error("the timeline should say answer_lost")
	}
	for _, m := range res.Messages {
		if m.Lost && m.ID != ans.ID {
			t.Errorf("only the one answer is lost: %+v", m)
		}
	}
}

// TestDelayedMessageIsRecordedLate: delayed-write's write leaves at 1 s
// and the network holds it 12 s; a renewal delayed by a fault is late too,
// and a request no server could answer is lost.
func TestDelayedMessageIsRecordedLate(t *testing.T) {
	res := runMessages(t, mustPreset(t, "delayed-write", false), nil)
	var late []engine.Message
	for _, m := range res.Messages {
		if m.Late {
			late = append(late, m)
		}
	}
	if len(late) != 1 || late[0].Kind != "write" || late[0].From != "client-1" || late[0].To != "storage" ||
		late[0].Sent != 1000 || late[0].At != 13000 || late[0].Why != "held 12s by the network" {
		t.Fatalf("one late write, 1s to 13s: %+v", late)
	}

	sc := mustPreset(t, "paused-holder", false)
	sc.Faults = []engine.Fault{{At: engine.Ms(2500), Do: "delay", Target: "client-1", Kind: "renew", By: engine.Ms(2000)}}
	res = runMessages(t, sc, nil)
	i := indexOf(t, res.Messages, func(m engine.Message) bool { return m.Kind == "renew" && m.Late })
	if m := res.Messages[i]; m.Sent != 3000 || m.At != 5000 || m.To != "node-1" {
		t.Errorf("the renewal sent at 3s should arrive late at 5s: %+v", m)
	}

	res = runMessages(t, mustPreset(t, "lock-server-down", false), nil)
	i = indexOf(t, res.Messages, func(m engine.Message) bool { return m.Lost && m.Answer == 0 })
	if m := res.Messages[i]; !strings.HasPrefix(m.From, "client-") || m.To != "node-1" || m.Why != "no lock server could answer it" {
		t.Errorf("a request nobody answered is lost: %+v", m)
	}
}

// TestRaftReplicationIsRecorded: on a 3-node group every command the
// leader commits reaches both followers as one append each, carrying
// what it was; a follower cut off is sent none it can receive.
func TestRaftReplicationIsRecorded(t *testing.T) {
	res := runMessages(t, mustPreset(t, "paused-holder", false), nil)
	served := 0
	appends := map[string]int{}
	for _, m := range res.Messages {
		switch {
		case m.Kind == "append":
			if m.From != "node-1" || m.Lost || m.Sent != m.At || !strings.HasPrefix(m.Text, "client-") {
				t.Errorf("an append from node-1 as it commits: %+v", m)
			}
			appends[m.Text+" → "+m.To+fmt.Sprint(m.Sent)]++
		case m.Answer == 0 && strings.HasPrefix(m.To, "node-"):
			served++
		}
	}
	if served == 0 || len(appends) != 2*served {
		t.Fatalf("%d commands served, %d appends: each should reach both followers once", served, len(appends))
	}
	if len(runMessages(t, mustPreset(t, "clock-jump", false), nil).Messages) == 0 {
		t.Error("a single server's run has messages too")
	}
	for _, m := range runMessages(t, mustPreset(t, "clock-jump", false), nil).Messages {
		if m.Kind == "append" {
			t.Errorf("a single server replicates nothing: %+v", m)
		}
	}

	res = runMessages(t, mustPreset(t, "lease-read-stale", false), nil)
	cut := 0
	for _, m := range res.Messages {
		if m.Kind == "append" && m.Lost {
			cut++
			if !strings.Contains(m.Why, "cut off") {
				t.Errorf("a lost append says the follower is cut off: %+v", m)
			}
		}
	}
	if cut == 0 {
		t.Error("lease-read-stale cuts node-1 off: its appends to it should be lost")
	}
}

func indexOf(t *testing.T, ms []engine.Message, ok func(engine.Message) bool) int {
	t.Helper()
	for i, m := range ms {
		if ok(m) {
			return i
		}
	}
	t.Fatalf("no such message among %d", len(ms))
	return -1
}

// TestMessagesAreBounded: a run busy enough to carry more than
// MaxMessages keeps the first ones and says so.
func TestMessagesAreBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 Raft commits")
	}
	sc := mustPreset(t, "baseline", false)
	sc.Until = engine.Ms(3_600_000)
	sc.Clients = sc.Clients[:1]
	sc.Clients[0].Steps = []engine.Step{{Do: "acquire"}, {Do: "work", For: engine.Ms(3_000_000)}}
	for i := 2; i <= 10; i++ {
		sc.Clients = append(sc.Clients, engine.Client{Name: fmt.Sprintf("client-%d", i), RetryEvery: engine.Ms(10),
			Steps: []engine.Step{{Do: "acquire"}}})
	}
	res := runMessages(t, sc, nil)
	if !res.Summary.Truncated || !res.MessagesTruncated || len(res.Messages) != engine.MaxMessages {
		t.Fatalf("events truncated %v; messages truncated %v, %d kept (limit %d)", res.Summary.Truncated, res.MessagesTruncated, len(res.Messages), engine.MaxMessages)
	}
	if last := res.Messages[len(res.Messages)-1]; last.ID != engine.MaxMessages {
		t.Errorf("the last record kept is %d", last.ID)
	}
}

// TestALostRequestSaysWhatCutItOff: a request that reached no server
// blames a partition when one cut its client off from a lock service that
// could serve, and names the server it was sent to when the client aims
// at each (Redlock); "no lock server could answer it" is left for a
// service that could answer nobody (TestDelayedMessageIsRecordedLate).
func TestALostRequestSaysWhatCutItOff(t *testing.T) {
	sc := mustPreset(t, "paused-holder", false)
	sc.Faults = []engine.Fault{{At: engine.Ms(2500), Do: "partition", Side: []string{"client-1"}, For: engine.Sec(3)}}
	res := runMessages(t, sc, nil)
	i := indexOf(t, res.Messages, func(m engine.Message) bool { return m.Kind == "renew" && m.Lost && m.Answer == 0 })
	if m := res.Messages[i]; m.From != "client-1" || m.To != "node-1" || m.Why != "client-1 was cut off from the lock service by a partition" {
		t.Errorf("a renewal sent while a partition cut client-1 off from every node: %+v", m)
	}

	sc = mustPreset(t, "paused-holder", false)
	sc.Faults = []engine.Fault{{At: engine.Ms(2500), Do: "partition", Side: []string{"client-1", "node-2"}, For: engine.Sec(3)}}
	res = runMessages(t, sc, nil)
	i = indexOf(t, res.Messages, func(m engine.Message) bool { return m.Kind == "renew" && m.Lost && m.Answer == 0 })
	if m := res.Messages[i]; m.To != "node-1" || m.Why != "a partition cut client-1 off from node-1, which serves the lock" {
		t.Errorf("a renewal sent while a partition cut client-1 off from the leader alone: %+v", m)
	}

	res = runMessages(t, mustPreset(t, "redlock-clock-jump", false), nil)
	i = indexOf(t, res.Messages, func(m engine.Message) bool { return m.Kind == "acquire" && m.Lost && m.To == "node-4" })
	if m := res.Messages[i]; m.From != "client-1" || m.Why != "client-1 is cut off from node-4" {
		t.Errorf("an acquire sent to node-4, cut off at first: %+v", m)
	}
}
