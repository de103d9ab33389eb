package engine

import "github.com/anishathalye/porcupine"

// ZKLockModel is the sequential specification of ZooKeeper's lock recipe
// as a lease lock: one holder at a time, whose czxid tokens only grow (a
// session's creation, a delete or a closed session between two grants
// also takes a zxid, so they need not be consecutive). A holder keeps the
// lock until it releases it or until the leader closes its session, which
// it may do only once the session's timeout passed; until then renewals
// and checks with its token succeed, even a little past the deadline the
// last renewal gave (the leader closes the session when it gets to it).
// It is judged by true time as well: nobody else gets the lock while the
// holder's session still runs in true time (its last request answered
// plus the timeout), whatever the leader's clock says. A leader whose
// clock runs fast or jumps ahead closes a live session: not
// linearizable, though by its clock the grant was legal
// (ZKServerClockModel).
var ZKLockModel = zkModel(true)

// ZKServerClockModel is ZKLockModel judged by the leaders' clocks alone:
// a history that fails ZKLockModel and passes this one broke the lock
// only because a clock ran fast or jumped.
var ZKServerClockModel = zkModel(false)

func zkModel(trueTime bool) porcupine.Model {
	return porcupine.Model{
		Init:              func() any { return lockState{} },
		DescribeOperation: LeaseLockModel.DescribeOperation,
		DescribeState:     LeaseLockModel.DescribeState,
		Step: func(state, input, output any) (bool, any) {
			s, in, out := state.(lockState), input.(lockInput), output.(lockOutput)
			ok, next := zkLockStep(s, in, out, trueTime)
			if out.Unknown && !ok {
				return true, s // nobody saw this answer: it changed nothing
			}
			return ok, next
		},
	}
}

// zkLockStep is one step of ZKLockModel (by true time as well as the
// leader's clock when trueTime is set) for an operation whose output is
// known. Operations are ordered by the true time they were applied at; a
// session's timeout runs from each request of its holder's that was
// answered, in true time (TrueUntil), and by the answering leader's clock
// (LeaseUntil).
func zkLockStep(s lockState, in lockInput, out lockOutput, trueTime bool) (bool, lockState) {
	if out.True < s.Last {
		return false, s
	}
	mine := s.Holder != "" && s.Holder == in.Client && s.Token == in.Token
	timedOut := out.Now >= s.LeaseUntil
	next := s
	next.Last = out.True
	switch in.Op {
	case "acquire":
		switch {
		case !out.OK:
			// The recipe answers an acquire only with the lock.
			return s.Holder != "" && s.Holder != in.Client, next
		case s.Holder == in.Client && out.Token == s.Token:
			next.TrueUntil = out.True + in.Lease
			return true, next // asked again: the same node
		case s.Holder != "" && !timedOut:
			return false, s
		case out.Token < s.Next:
			return false, s
		case trueTime && s.Holder != "" && s.Holder != in.Client && out.True < s.TrueUntil:
			return false, s // the holder's session still runs in true time
		}
		next.Holder, next.Token, next.LeaseUntil, next.Next = in.Client, out.Token, out.LeaseUntil, out.Token+1
		next.TrueUntil = out.True + in.Lease
		return out.LeaseUntil > out.Now, next
	case "renew", "check":
		switch {
		case !mine:
			return !out.OK, next
		case out.OK:
			if in.Op == "renew" {
				next.LeaseUntil = out.LeaseUntil
			}
			// Any request heard from the holder starts its session's
			// timeout again.
			next.TrueUntil = out.True + in.Lease
			return true, next
		}
		// Refused with its own token: the session was closed, which the
		// leader does only past its timeout.
		return timedOut, closed(s, out)
	case "release":
		if !mine {
			return !out.OK, next
		}
		if out.OK {
			next.Holder, next.Token, next.LeaseUntil, next.TrueUntil = "", 0, 0, 0
			return true, next
		}
		// Refused with its own token: the session was closed first, which
		// deleted the node.
		return timedOut, closed(s, out)
	}
	return false, s
}

// closed is the state once the leader closed the holder's session: by the
// leader's clock the lock is free (its deadline passed), but the session's
// holder and its end in true time stay, so that a grant to another client
// before that end is judged a double grant, as it would be had the holder
// not asked in between.
func closed(s lockState, out lockOutput) lockState {
	s.LeaseUntil, s.Last = 0, out.True
	return s
}
