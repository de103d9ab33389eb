package web

import (
	"fmt"
	"slices"

	"github.com/leaselab/playground/engine"
)

// HistoryView is the history page's content: a run's lock history, the
// checker's answer and, where it says "not linearizable", the two
// operations that conflict.
type HistoryView struct {
	Share        string // the scenario as a share link carries it
	Linearizable bool
	Unknown      bool // the check ran out of time
	ClockNote    string
	Conflict     *engine.Conflict
	Ops          []engine.HistoryOp
	Clients      []string
	End          int64 // the time axis' end, in simulated milliseconds
}

func newHistoryView(share string, h *engine.History) HistoryView {
	v := HistoryView{Share: share, Ops: h.Ops(), End: 1000}
	switch h.Check(linearizeTimeout) {
	case engine.LinearizableOK:
		v.Linearizable = true
	case engine.LinearizableUnknown:
		v.Unknown = true
	default:
		v.Conflict = h.Conflict(linearizeTimeout)
		v.ClockNote = h.ClockNote(linearizeTimeout)
	}
	for _, o := range v.Ops {
		if !slices.Contains(v.Clients, o.Client) {
			v.Clients = append(v.Clients, o.Client)
		}
		v.End = max(v.End, o.At, o.Until)
	}
	v.End = (v.End + v.End/20 + 999) / 1000 * 1000 // room after the last mark, to a whole second
	return v
}

// pct places simulated time ms on the axis, as an SVG length that
// scales with the page's width (so the page never scrolls sideways).
func (v HistoryView) pct(ms int64) string {
	return fmt.Sprintf("%.2f%%", 100*float64(min(max(ms, 0), v.End))/float64(v.End))
}

// span is the width of [from, to] on the axis, at least a visible mark.
func (v HistoryView) span(from, to int64) string {
	w := 100 * float64(min(to, v.End)-max(from, 0)) / float64(v.End)
	return fmt.Sprintf("%.2f%%", max(w, 0.8))
}

// opEnd is where an operation's mark ends: its lease's end for a grant,
// the instant it was applied otherwise.
func opEnd(o engine.HistoryOp) int64 {
	if o.Until > o.At {
		return o.Until
	}
	return o.At
}

// opClass is an operation's class on the axis.
func opClass(o engine.HistoryOp, c *engine.Conflict) string {
	cls := "hop ok"
	switch {
	case o.Lost:
		cls = "hop lost"
	case !o.OK:
		cls = "hop no"
	}
	if c != nil && (o.Call == c.Later.Call || (c.Earlier != nil && o.Call == c.Earlier.Call)) {
		cls += " clash"
	}
	return cls
}

// opWords is an operation in a few words: "acquire → token 33 until 10s".
func opWords(o engine.HistoryOp) string {
	what := o.Op
	if o.Token != 0 {
		what = fmt.Sprintf("%s with token %d", o.Op, o.Token)
	}
	return what + " → " + o.Answer
}

// atWords is when the service applied an operation, and by the answering
// node's clock where that differs.
func atWords(o engine.HistoryOp) string {
	at := engine.FormatMS(o.At)
	if o.Node != "" && o.Clock != o.At {
		at += fmt.Sprintf(" (%s's clock: %s)", o.Node, engine.FormatMS(o.Clock))
	}
	return at
}

// conflictOps are the conflict's operations, earlier first.
func (v HistoryView) conflictOps() []engine.HistoryOp {
	if v.Conflict == nil {
		return nil
	}
	if v.Conflict.Earlier == nil {
		return []engine.HistoryOp{v.Conflict.Later}
	}
	return []engine.HistoryOp{*v.Conflict.Earlier, v.Conflict.Later}
}

// overlap is the stretch in which both conflicting grants held, if any.
func (v HistoryView) overlap() (from, to int64, ok bool) {
	c := v.Conflict
	if c == nil || c.Earlier == nil || c.Earlier.Until == 0 || c.Later.Until == 0 {
		return 0, 0, false
	}
	from, to = max(c.Earlier.At, c.Later.At), min(c.Earlier.Until, c.Later.Until)
	return from, to, to > from
}

func (v HistoryView) timelineURL() string {
	return "/playground?s=" + v.Share + "&run=1"
}

func (v HistoryView) laneOps(client string) []engine.HistoryOp {
	var out []engine.HistoryOp
	for _, o := range v.Ops {
		if o.Client == client {
			out = append(out, o)
		}
	}
	return out
}

// ticks are the times worth a label under the conflict's axis besides
// its ends: where the overlap of the two grants starts and ends, unless
// too close to an end or to each other to be read.
func (v HistoryView) ticks() []int64 {
	from, to, ok := v.overlap()
	if !ok {
		return nil
	}
	var out []int64
	for _, t := range []int64{from, to} {
		if t*100 < v.End*12 || t*100 > v.End*88 || (len(out) > 0 && (t-out[0])*100 < v.End*12) {
			continue
		}
		out = append(out, t)
	}
	return out
}

func itoa(n int) string { return fmt.Sprint(n) }
