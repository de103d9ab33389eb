package engine

import (
	"fmt"
	"time"

	"github.com/anishathalye/porcupine"
)

// Conflict names the two operations of a history that is not linearizable
// which no single lock could have answered as they were answered: Earlier
// left the lock in State, and Later's answer contradicts it. porcupine
// finds the longest order of operations that explains every answer;
// Later is the operation it could not add to that order, Earlier the last
// operation in it that changed the lock.
type Conflict struct {
	Earlier *HistoryOp `json:"earlier,omitempty"`
	Later   HistoryOp  `json:"later"`
	State   string     `json:"state"`
	// Why says it in one sentence, with clients by name and times in
	// seconds.
	Why string `json:"why"`
}

// HistoryOp is one operation of a history in words: who asked what, when
// the service applied it and what it answered.
type HistoryOp struct {
	Client string `json:"client"`
	Op     string `json:"op"`
	// Token is the token the client sent (renew, release, check), 0 for
	// an acquire.
	Token int64 `json:"token,omitempty"`
	OK    bool  `json:"ok"`
	// Answer is the service's answer in words: "token 33 until 13s",
	// "refused", "ok", or "answer lost" for one its client never got.
	Answer string `json:"answer"`
	// At is when the service applied it, in true simulated milliseconds;
	// Clock when by the answering node's own clock, and Node that node.
	At    int64  `json:"at_ms"`
	Clock int64  `json:"clock_ms"`
	Node  string `json:"node,omitempty"`
	// Until is, for a granted acquire or renew, when its lease ends in
	// true time (0 otherwise).
	Until int64 `json:"until_ms,omitempty"`
	// Lost marks an operation the service applied whose answer never
	// reached its client.
	Lost bool `json:"lost,omitempty"`
	// Call and Return are the operation's place in the history's order
	// (a counter finer than milliseconds, not a time).
	Call   int64 `json:"call"`
	Return int64 `json:"return"`
}

// Conflict finds, for a history porcupine proves not linearizable within
// timeout, the two operations that conflict; nil for a linearizable
// history, an empty one, or a check that ran out of time.
func (h *History) Conflict(timeout time.Duration) *Conflict {
	if len(h.ops) == 0 {
		return nil
	}
	model := h.Model()
	res, info := porcupine.CheckOperationsVerbose(model, h.ops, timeout)
	if res != porcupine.Illegal {
		return nil
	}
	var best []int
	for _, part := range info.PartialLinearizations() {
		for _, l := range part {
			if len(l) > len(best) {
				best = l
			}
		}
	}
	in := make([]bool, len(h.ops))
	for _, id := range best {
		if id >= 0 && id < len(h.ops) {
			in[id] = true
		}
	}
	later := -1
	for i, o := range h.ops {
		if in[i] {
			continue
		}
		if later < 0 || o.Return < h.ops[later].Return || (o.Return == h.ops[later].Return && o.Call < h.ops[later].Call) {
			later = i
		}
	}
	if later < 0 {
		return nil
	}
	state, earlier := model.Init(), -1
	for _, id := range best {
		before := model.DescribeState(state)
		_, next := model.Step(state, h.ops[id].Input, h.ops[id].Output)
		if model.DescribeState(next) != before {
			earlier = id
		}
		state = next
	}
	c := &Conflict{Later: h.conflictOp(h.ops[later]), State: model.DescribeState(state)}
	if earlier >= 0 {
		e := h.conflictOp(h.ops[earlier])
		c.Earlier = &e
	}
	c.Why = c.explain()
	return c
}

// Ops is every operation of the history in words, in the history's order.
func (h *History) Ops() []HistoryOp {
	out := make([]HistoryOp, len(h.ops))
	for i, o := range h.ops {
		out[i] = h.conflictOp(o)
	}
	return out
}

// conflictOp is o in words.
func (h *History) conflictOp(o porcupine.Operation) HistoryOp {
	in, out := o.Input.(lockInput), o.Output.(lockOutput)
	op := HistoryOp{Client: in.Client, Op: in.Op, Token: in.Token, OK: out.OK, At: out.True, Clock: out.Now, Node: out.Node, Call: o.Call, Return: o.Return}
	if h.atClient {
		// Quorum calls are timed at the client, in true time.
		op.At = out.Now
	}
	granted := out.OK && (in.Op == "acquire" || in.Op == "renew")
	switch {
	case granted && h.atClient:
		op.Until = out.LeaseUntil
	case granted:
		op.Until = op.At + in.Lease
	}
	switch {
	case out.Unknown:
		op.Answer, op.Lost = "answer lost", true
	case !out.OK && out.Holder != "":
		op.Answer = "refused: held by " + out.Holder
	case !out.OK:
		op.Answer = "refused"
	case granted && out.Token != 0:
		op.Answer = fmt.Sprintf("token %d until %s", out.Token, FormatMS(op.Until))
	case granted:
		op.Answer = "a majority until " + FormatMS(op.Until)
	default:
		op.Answer = "ok"
	}
	return op
}

// says is the operation as a clause: "client-2's acquire at 12s → token
// 33 until 22s".
func (o HistoryOp) says() string {
	what := o.Op
	if o.Token != 0 {
		what = fmt.Sprintf("%s with token %d", o.Op, o.Token)
	}
	at := FormatMS(o.At)
	if o.Node != "" && o.Clock != o.At {
		at += fmt.Sprintf(" (%s's clock read %s)", o.Node, FormatMS(o.Clock))
	}
	return fmt.Sprintf("%s's %s at %s → %s", o.Client, what, at, o.Answer)
}

func (c *Conflict) explain() string {
	if c.Earlier == nil {
		return fmt.Sprintf("No lock could have answered %s.", c.Later.says())
	}
	return fmt.Sprintf("After %s, the lock was: %s. One lock could not then have answered %s.", c.Earlier.says(), c.State, c.Later.says())
}
