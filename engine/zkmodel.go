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
var ZKLockModel = porcupine.Model{
	Init:              func() any { return lockState{} },
	DescribeOperation: LeaseLockModel.DescribeOperation,
	DescribeState:     LeaseLockModel.DescribeState,
	Step: func(state, input, output any) (bool, any) {
		s, in, out := state.(lockState), input.(lockInput), output.(lockOutput)
		ok, next := zkLockStep(s, in, out)
		if out.Unknown && !ok {
			return true, s // nobody saw this answer: it changed nothing
		}
		return ok, next
	},
}

func zkLockStep(s lockState, in lockInput, out lockOutput) (bool, lockState) {
	if out.Now < s.Last {
		return false, s
	}
	mine := s.Holder != "" && s.Holder == in.Client && s.Token == in.Token
	timedOut := out.Now >= s.LeaseUntil
	next := s
	next.Last = out.Now
	switch in.Op {
	case "acquire":
		switch {
		case !out.OK:
			// The recipe answers an acquire only with the lock.
			return s.Holder != "" && s.Holder != in.Client, next
		case s.Holder == in.Client && out.Token == s.Token:
			return true, next // asked again: the same node
		case s.Holder != "" && !timedOut:
			return false, s
		case out.Token < s.Next:
			return false, s
		}
		next.Holder, next.Token, next.LeaseUntil, next.Next = in.Client, out.Token, out.LeaseUntil, out.Token+1
		return out.LeaseUntil > out.Now, next
	case "renew", "check":
		switch {
		case !mine:
			return !out.OK, next
		case out.OK:
			if in.Op == "renew" {
				next.LeaseUntil = out.LeaseUntil
			}
			return true, next
		}
		// Refused with its own token: the session was closed, which the
		// leader does only past its timeout.
		next.Holder, next.Token, next.LeaseUntil = "", 0, 0
		return timedOut, next
	case "release":
		if !mine {
			return !out.OK, next
		}
		// Refused with its own token: the session was closed first, which
		// deleted the node.
		next.Holder, next.Token, next.LeaseUntil = "", 0, 0
		return out.OK || timedOut, next
	}
	return false, s
}
