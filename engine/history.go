package engine

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
)

// history records every answered lock-service operation with its call and
// return in simulated order, for a linearizability check against a
// lease-lock model. Operations that got no answer were never applied and
// are left out. Timestamps are a counter that follows the simulation's
// order, finer than its milliseconds (many things happen at one instant).
type history struct {
	clock   int64
	ops     []porcupine.Operation
	clients map[string]int
	// model is the backend's (its registry entry's history). Where a
	// client counts a majority of independent servers, the operations are
	// quorum calls recorded at the client, checked against that backend's
	// own model; atClient is set for such a backend, whose client computes
	// its own lease (lockClient.ownLease): its history is judged at the
	// client, in true time.
	model    porcupine.Model
	atClient bool
	// clockModel is model judged by the answering nodes' clocks alone
	// (the entry's clockHistory; ServerClockModel when unset).
	clockModel porcupine.Model
}

// lockInput and lockOutput are one operation's call and answer.
type lockInput struct {
	Op     string `json:"op"`
	Client string `json:"client"`
	Token  int64  `json:"token,omitempty"`
	Lease  int64  `json:"lease,omitempty"`
	Delay  int64  `json:"delay,omitempty"` // an acquire's lock-delay
}

type lockOutput struct {
	OK         bool   `json:"ok"`
	Token      int64  `json:"token,omitempty"`
	LeaseUntil int64  `json:"lease_until,omitempty"`
	Holder     string `json:"holder,omitempty"`
	Now        int64  `json:"now"` // when the service applied it, by its clock
	// True is when the service applied it in true simulated time, and
	// Node the node that answered: the check judges leases by true time
	// and, where the two disagree, names the clocks that disagreed.
	True int64  `json:"true"`
	Node string `json:"node,omitempty"`
	// Unknown marks an operation the service applied whose answer never
	// reached its client: pending, returning after every other operation.
	Unknown bool `json:"unknown,omitempty"`
}

func (h *history) tick() int64 {
	h.clock++
	return h.clock
}

// served is where and when (in true time) the service applied a command,
// and how far that node's clock read from true time then (skewed: it was
// read, world.servedBy): a refusal was judged by the clock as it read
// when the node served it, whatever it reads when the answer arrives.
type served struct {
	node   string
	at     int64
	skew   int64
	skewed bool
}

func (h *history) record(cmd Command, r Reply, by served, call, ret int64) {
	h.add(commandInput(cmd), lockOutput{OK: r.OK, Token: r.Token, LeaseUntil: r.LeaseUntil, Holder: r.Holder, Now: r.Now, True: by.at, Node: by.node}, call, ret)
}

// pending records an operation the service applied whose answer never
// reached its client. The client cannot know its outcome, so it stays
// open: it returns after every other operation (see operations).
func (h *history) pending(cmd Command, r Reply, by served, call int64) {
	h.add(commandInput(cmd), lockOutput{OK: r.OK, Token: r.Token, LeaseUntil: r.LeaseUntil, Holder: r.Holder, Now: r.Now, True: by.at, Node: by.node, Unknown: true}, call, 0)
}

func commandInput(cmd Command) lockInput {
	return lockInput{Op: cmd.Op.String(), Client: cmd.Client, Token: cmd.Token, Lease: cmd.Lease, Delay: cmd.Delay}
}

// operations returns the recorded operations, each pending one returning
// after all the others: porcupine may place it anywhere after its call.
func (h *history) operations() []porcupine.Operation {
	end := h.clock + 1
	ops := make([]porcupine.Operation, len(h.ops))
	for i, o := range h.ops {
		if o.Output.(lockOutput).Unknown {
			o.Return = end
		}
		ops[i] = o
	}
	return ops
}

// add appends one operation of the client named in in.
func (h *history) add(in lockInput, out lockOutput, call, ret int64) {
	if h.clients == nil {
		h.clients = map[string]int{}
	}
	id, ok := h.clients[in.Client]
	if !ok {
		id = len(h.clients)
		h.clients[in.Client] = id
	}
	h.ops = append(h.ops, porcupine.Operation{ClientId: id, Input: in, Call: call, Output: out, Return: ret})
}

// export is the run's history as the Result hands it out.
func (h *history) export() *History {
	return &History{ops: h.operations(), model: h.model, atClient: h.atClient, clockModel: h.clockModel}
}

// lockState is the model's state: one lease lock.
type lockState struct {
	Holder     string
	Token      int64
	LeaseUntil int64 // by the clock of the node that granted or renewed it
	TrueUntil  int64 // the same lease in true time: granted at True, for Lease
	Next       int64 // the next token; 0 until the first grant shows it
	Last       int64 // the latest true time an operation was applied at
	Delay      int64 // the holder's lock-delay, from when its lease ends
}

// LeaseLockModel is the sequential specification of a lease lock with
// fencing tokens, judged by true time: a grant only when the lock is free
// or its lease ran out (by the answering node's clock, as the node
// decides, and by true time, as the holder counts on: a lease granted at
// true time t for L lasts until t+L), tokens that grow by one with every
// grant, renew, release and check only with the current token, and time
// that never runs backwards. A node whose clock runs fast or jumps ahead
// grants again while the first holder's lease still runs in true time:
// not linearizable, though by that node's clock each grant was legal
// (ServerClockModel).
var LeaseLockModel = leaseModel(true)

// ServerClockModel is LeaseLockModel judged by the answering node's clock
// alone: what the lock service itself believed. A history that fails
// LeaseLockModel and passes this one broke the lock only because of a
// clock.
var ServerClockModel = leaseModel(false)

func leaseModel(trueTime bool) porcupine.Model {
	return porcupine.Model{
		Init: func() any { return lockState{} },
		Step: func(state, input, output any) (bool, any) {
			s, in, out := state.(lockState), input.(lockInput), output.(lockOutput)
			ok, next := leaseLockStep(s, in, out, trueTime)
			if out.Unknown && !ok {
				// Nobody saw this answer, so no output can contradict the
				// model: placed where it could not have happened, it changed
				// nothing.
				return true, s
			}
			return ok, next
		},
		DescribeOperation: func(input, output any) string {
			in, out := input.(lockInput), output.(lockOutput)
			at := FormatMS(out.Now)
			if out.True != out.Now {
				at += fmt.Sprintf(" by %s's clock (true time %s)", out.Node, FormatMS(out.True))
			}
			switch {
			case !out.OK:
				return fmt.Sprintf("%s(%s, %d) at %s → refused", in.Op, in.Client, in.Token, at)
			case in.Op == "acquire":
				return fmt.Sprintf("acquire(%s) at %s → token %d until %s", in.Client, at, out.Token, FormatMS(out.LeaseUntil))
			}
			return fmt.Sprintf("%s(%s, %d) at %s → ok", in.Op, in.Client, in.Token, at)
		},
		DescribeState: func(state any) string {
			s := state.(lockState)
			if s.Holder == "" {
				return fmt.Sprintf("free (next token %d)", s.Next)
			}
			return fmt.Sprintf("%s holds token %d until %s (true time %s)", s.Holder, s.Token, FormatMS(s.LeaseUntil), FormatMS(s.TrueUntil))
		},
	}
}

// leaseLockStep is one step of the lease-lock model for an operation whose
// output is known. The answering node decides by its own clock (Now,
// LeaseUntil), so refusals and renewals are judged by it; with trueTime,
// a grant to another client while the holder's lease still runs in true
// time is illegal too.
func leaseLockStep(s lockState, in lockInput, out lockOutput, trueTime bool) (bool, lockState) {
	if out.True < s.Last {
		return false, s
	}
	held := s.Holder != "" && out.Now < s.LeaseUntil
	mine := s.Holder == in.Client && s.Token == in.Token
	next := s
	next.Last = out.True
	switch in.Op {
	case "acquire":
		switch {
		case held && s.Holder != in.Client:
			return !out.OK, next
		case held:
			return out.OK && out.Token == s.Token, next
		case !out.OK:
			// Refused only inside the lock-delay of a lease that ran out.
			return s.Holder != "" && out.Now < s.LeaseUntil+s.Delay, next
		case s.Holder != "" && out.Now < s.LeaseUntil+s.Delay:
			return false, s
		case s.Next != 0 && out.Token != s.Next:
			return false, s
		case trueTime && s.Holder != "" && s.Holder != in.Client && out.True < s.TrueUntil:
			return false, s // the holder's lease still runs in true time
		}
		next.Holder, next.Token, next.LeaseUntil, next.Next = in.Client, out.Token, out.Now+in.Lease, out.Token+1
		next.Delay = in.Delay
		next.TrueUntil = out.True + in.Lease
		return out.LeaseUntil == next.LeaseUntil, next
	case "renew":
		if !(held && mine) {
			return !out.OK, next
		}
		next.LeaseUntil = out.Now + in.Lease
		next.TrueUntil = out.True + in.Lease
		return out.OK && out.LeaseUntil == next.LeaseUntil, next
	case "release":
		if !mine || s.Holder == "" {
			return !out.OK, next
		}
		next.Holder, next.Token, next.LeaseUntil, next.TrueUntil = "", 0, 0, 0
		return out.OK, next
	case "check":
		return out.OK == (held && mine), next
	}
	return false, s
}

// History is the record of a run's lock-service operations: for Raft, a
// single server and an asynchronous replica, each command as the service
// answered it; where a client counts a majority of independent servers,
// each quorum call as its client saw it, the servers together taken as one
// lock.
type History struct {
	ops      []porcupine.Operation
	model    porcupine.Model
	atClient bool // the operations are quorum calls seen at the client
	// clockModel is model judged by the answering nodes' clocks alone.
	clockModel porcupine.Model
}

// Len is the number of operations recorded.
func (h *History) Len() int { return len(h.ops) }

// ClockNote says, for a history that is not linearizable by true time
// but is by the answering nodes' own clocks, whose clocks made each grant
// look legal ("by node-1's clock, each grant was legal"); otherwise "".
// A history of quorum calls is judged at the client, in true time, and gets
// none.
func (h *History) ClockNote(timeout time.Duration) string {
	if h.atClient || len(h.ops) == 0 {
		return ""
	}
	clockModel := h.clockModel
	if clockModel.Step == nil {
		clockModel = ServerClockModel
	}
	if porcupine.CheckOperationsTimeout(h.Model(), h.ops, timeout) != porcupine.Illegal {
		return ""
	}
	if porcupine.CheckOperationsTimeout(clockModel, h.ops, timeout) != porcupine.Ok {
		return ""
	}
	var nodes []string
	for _, o := range h.ops {
		in, out := o.Input.(lockInput), o.Output.(lockOutput)
		if in.Op == "acquire" && out.OK && out.Node != "" && !slices.Contains(nodes, out.Node) {
			nodes = append(nodes, out.Node)
		}
	}
	if len(nodes) == 0 {
		return ""
	}
	if len(nodes) == 1 {
		return "by " + nodes[0] + "'s clock, each grant was legal"
	}
	return "by the clocks of " + strings.Join(nodes[:len(nodes)-1], ", ") + " and " + nodes[len(nodes)-1] + ", each grant was legal"
}

// Model is the sequential specification the history is checked against:
// the one its backend's registry entry names (LeaseLockModel unless the
// entry names its own).
func (h *History) Model() porcupine.Model {
	if h.model.Step == nil {
		return LeaseLockModel
	}
	return h.model
}

// Linearizability is the outcome of a history check.
type Linearizability string

// The outcomes of a check. Unknown means the checker ran out of time: it
// says nothing about the history, and is never reported as a violation.
const (
	LinearizableOK      Linearizability = "ok"
	LinearizableIllegal Linearizability = "illegal"
	LinearizableUnknown Linearizability = "unknown"
)

// Check checks the history against its Model within timeout.
func (h *History) Check(timeout time.Duration) Linearizability {
	switch porcupine.CheckOperationsTimeout(h.Model(), h.ops, timeout) {
	case porcupine.Ok:
		return LinearizableOK
	case porcupine.Illegal:
		return LinearizableIllegal
	}
	return LinearizableUnknown
}

// Linearizable reports whether Check finds the history linearizable; a
// check that did not finish within timeout counts as false.
func (h *History) Linearizable(timeout time.Duration) bool {
	return h.Check(timeout) == LinearizableOK
}

// WriteHTML writes porcupine's visualisation of the history: the
// operations on a time line per client and the longest linearizable
// prefix.
func (h *History) WriteHTML(w io.Writer, timeout time.Duration) error {
	_, info := porcupine.CheckOperationsVerbose(h.Model(), h.ops, timeout)
	return porcupine.Visualize(h.Model(), info, w)
}

// MarshalJSON writes the operations: client, call, return, input, output.
func (h *History) MarshalJSON() ([]byte, error) {
	type op struct {
		Client int        `json:"client"`
		Call   int64      `json:"call"`
		Return int64      `json:"return"`
		Input  lockInput  `json:"input"`
		Output lockOutput `json:"output"`
	}
	out := make([]op, len(h.ops))
	for i, o := range h.ops {
		out[i] = op{o.ClientId, o.Call, o.Return, o.Input.(lockInput), o.Output.(lockOutput)}
	}
	return json.Marshal(out)
}
