package engine

import "github.com/anishathalye/porcupine"

// EtcdLockModel is the sequential specification of etcd's lock as its
// clients see it: a key on a lease whose token is its create revision.
// Two things the clients never see happen in between: the leader's revoke
// of a lease that ran out, and a new leader's extension of the leases it
// inherits. So once a lease's deadline has passed, the model allows either
// (an acquire may be refused, a keep-alive may still succeed), and it asks
// only what they cannot hide: nobody else gets the lock before the
// holder's deadline (by the leader's clock, nor in true time before the
// holder's last grant or keep-alive plus the TTL), a holder's keep-alive
// is never refused before it, tokens only grow (by any step: every write
// to the store bumps the revision), and time never runs backwards.
var EtcdLockModel = etcdModel(true)

// EtcdServerClockModel is EtcdLockModel judged by the leader's clock
// alone: a history that fails EtcdLockModel and passes this one broke the
// lock only because a clock ran fast or jumped.
var EtcdServerClockModel = etcdModel(false)

func etcdModel(trueTime bool) porcupine.Model {
	return porcupine.Model{
		Init: func() any { return lockState{} },
		Step: func(state, input, output any) (bool, any) {
			s, in, out := state.(lockState), input.(lockInput), output.(lockOutput)
			ok, next := etcdLockStep(s, in, out, trueTime)
			if out.Unknown && !ok {
				return true, s // an answer nobody saw contradicts nothing
			}
			return ok, next
		},
		DescribeOperation: LeaseLockModel.DescribeOperation,
		DescribeState:     LeaseLockModel.DescribeState,
	}
}

// etcdLockStep is one step of EtcdLockModel for an operation whose output
// is known.
func etcdLockStep(s lockState, in lockInput, out lockOutput, trueTime bool) (bool, lockState) {
	if out.True < s.Last {
		return false, s
	}
	due := s.Holder != "" && out.Now >= s.LeaseUntil // may have been revoked, or extended
	mine := s.Holder != "" && s.Holder == in.Client && s.Token == in.Token
	next := s
	next.Last = out.True
	grant := func() (bool, lockState) {
		switch {
		case out.Token <= s.Token || (s.Next != 0 && out.Token < s.Next):
			return false, s
		case trueTime && s.Holder != "" && s.Holder != in.Client && out.True < s.TrueUntil:
			return false, s // the holder's lease still runs in true time
		}
		next.Holder, next.Token, next.LeaseUntil, next.Next, next.Delay = in.Client, out.Token, out.Now+in.Lease, out.Token+1, in.Delay
		next.TrueUntil = out.True + in.Lease
		return out.LeaseUntil == next.LeaseUntil, next
	}
	switch in.Op {
	case "acquire":
		switch {
		case out.OK && s.Holder == in.Client && out.Token == s.Token:
			return true, next // the holder asked again and got its own key
		case s.Holder != "" && !due:
			return !out.OK, next
		case !out.OK:
			return s.Holder != "", next // the key still stands, or its lock-delay runs
		}
		return grant()
	case "renew":
		switch {
		case !mine:
			return !out.OK, next
		case !out.OK:
			return due, next
		}
		next.LeaseUntil, next.TrueUntil = out.Now+in.Lease, out.True+in.Lease
		return out.LeaseUntil == next.LeaseUntil, next
	case "check":
		if !mine {
			return !out.OK, next
		}
		return out.OK || due, next
	case "release":
		switch {
		case !mine:
			return !out.OK, next
		case !out.OK:
			return due, next
		}
		next.Holder, next.Token, next.LeaseUntil, next.TrueUntil = "", s.Token, 0, 0
		return true, next
	}
	return false, s
}
