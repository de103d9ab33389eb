package engine

import (
	"fmt"

	"github.com/anishathalye/porcupine"
)

// redlockState is RedlockModel's state: who holds the one lock and until
// when, in true simulated time.
type redlockState struct {
	Holder     string
	LeaseUntil int64
	Last       int64 // the latest time an operation returned at
}

// RedlockModel is the sequential specification Redlock promises: the N
// servers together are one lock. Operations are quorum calls recorded at
// the client (a Redlock server's own answers mean little alone), timed in
// true simulated time; an acquire's lease ends when the client's own
// validity says it does. A grant while another client's validity still
// runs is illegal: that is a double grant. Refusals are always legal (a
// quorum may fail for many reasons), and a holder may extend or check its
// lock past its own conservative validity as long as nobody else took it.
// Redlock has no tokens.
var RedlockModel = porcupine.Model{
	Init: func() any { return redlockState{} },
	Step: func(state, input, output any) (bool, any) {
		s, in, out := state.(redlockState), input.(lockInput), output.(lockOutput)
		if out.Now < s.Last {
			return false, s
		}
		next := s
		next.Last = out.Now
		free := s.Holder == "" || out.Now >= s.LeaseUntil
		mine := s.Holder == in.Client
		if !out.OK {
			return true, next
		}
		switch in.Op {
		case "acquire":
			if !free && !mine {
				return false, s
			}
			next.Holder, next.LeaseUntil = in.Client, out.LeaseUntil
			return true, next
		case "renew":
			if !mine {
				return false, s
			}
			next.LeaseUntil = out.LeaseUntil
			return true, next
		case "check":
			return mine, next
		case "release":
			if mine {
				next.Holder, next.LeaseUntil = "", 0
			}
			return true, next
		}
		return false, s
	},
	DescribeOperation: func(input, output any) string {
		in, out := input.(lockInput), output.(lockOutput)
		switch {
		case !out.OK:
			return fmt.Sprintf("%s(%s) at %s → refused", in.Op, in.Client, FormatMS(out.Now))
		case in.Op == "acquire" || in.Op == "renew":
			return fmt.Sprintf("%s(%s) at %s → a majority until %s", in.Op, in.Client, FormatMS(out.Now), FormatMS(out.LeaseUntil))
		}
		return fmt.Sprintf("%s(%s) at %s → ok", in.Op, in.Client, FormatMS(out.Now))
	},
	DescribeState: func(state any) string {
		s := state.(redlockState)
		if s.Holder == "" {
			return "free"
		}
		return fmt.Sprintf("%s holds the lock until %s", s.Holder, FormatMS(s.LeaseUntil))
	},
}
