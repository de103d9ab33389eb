package engine

// auditor keeps the summary. It watches the run from outside, the way a
// state checker watches a cluster: it reads every event as it is emitted
// (a copy: it never writes into what it watches), and at the end the
// world's records: the lock service's grants (the ledger, fed by what the
// service answered) and when the service could answer. Nothing in the run
// calls into it; the clients, the lock nodes and the storage do no
// bookkeeping of their own. Whether an accepted write landed stale is
// judged by the world as the storage accepts it (judge), and read here
// from the event.
type auditor struct {
	w *world

	writesAccepted, writesRefused, stale int
	holderRefused, holderSplit           int
	holderForgot                         int
	forgotten, releasesForgotten         int
	renewalsLost                         int
	forgottenEnded                       int
	staleReads                           int
	claimsWon, claimsLost                int
	expected                             int64
	sent                                 map[string]int // side effects performed, by message

	// beliefs: when each client began believing it holds the lock (while
	// it does), and the spans it believed.
	believing map[string]int64
	beliefs   map[string][]span
}

func newAuditor(w *world) *auditor {
	return &auditor{w: w, expected: w.sc.Storage.Initial, sent: map[string]int{},
		believing: map[string]int64{}, beliefs: map[string][]span{}}
}

// observe reads one event as it is emitted.
func (a *auditor) observe(e Event) {
	switch e.Kind {
	case KindWriteAccepted:
		a.writesAccepted++
		if e.Add != nil {
			a.expected += *e.Add
		} else if e.Value != nil {
			a.expected = *e.Value
		}
		if e.Stale {
			a.stale++
		}
	case KindWriteRefused:
		a.writesRefused++
		if e.Holder != "" && e.Holder == e.Client {
			a.holderRefused++
			switch {
			case e.Fence == nil:
			case a.w.splitFenceWords(e.Client, e.Token, *e.Fence) != "":
				a.holderSplit++
			case a.w.forgottenFenceWords(e.Client, e.Token, *e.Fence) != "":
				a.holderForgot++
			}
		}
	case KindGrantForgotten:
		if e.Ended {
			a.forgottenEnded++
		} else {
			a.forgotten++
		}
	case KindGrantBack:
		if !e.Ended {
			a.forgotten-- // it did not stay forgotten
		}
	case KindReleaseForgotten:
		a.releasesForgotten++
	case KindLeaseExpired:
		if e.RenewalsLost {
			a.renewalsLost++
		}
	case KindCheckOK, KindCheckFailed:
		if e.Stale {
			a.staleReads++
		}
	case KindClaimWon:
		a.claimsWon++
	case KindClaimLost:
		a.claimsLost++
	case KindSMSSent:
		a.sent[e.Message]++
	}
	switch beliefChange(e) {
	case beliefBegins:
		if _, ok := a.believing[e.Actor]; !ok {
			a.believing[e.Actor] = e.T
		}
	case beliefEnds:
		if from, ok := a.believing[e.Actor]; ok {
			a.beliefs[e.Actor] = append(a.beliefs[e.Actor], span{from, e.T})
			delete(a.believing, e.Actor)
		}
	}
}

// belief is how an event changes its client's belief that it holds the
// lock.
type belief int

const (
	beliefSame belief = iota
	beliefBegins
	beliefEnds
)

// beliefChange reads a client's event: a grant begins its belief; losing
// the lock, releasing (or trying to), giving up, finishing or crashing end
// it.
func beliefChange(e Event) belief {
	switch e.Kind {
	case KindGranted:
		return beliefBegins
	case KindLockLost, KindReleased, KindReleaseRefused, KindGaveUp, KindDone, KindCrashed:
		return beliefEnds
	case KindUnavailable:
		if e.Message == "release" {
			return beliefEnds
		}
	}
	return beliefSame
}

// summary condenses the run, which ended at end with the record's value.
func (a *auditor) summary(end, final int64, truncated bool) Summary {
	s := Summary{
		FinalValue:                  final,
		ExpectedValue:               a.expected,
		WritesAccepted:              a.writesAccepted,
		WritesRefused:               a.writesRefused,
		HolderWritesRefused:         a.holderRefused,
		SplitBrainWritesRefused:     a.holderSplit,
		ForgottenGrantWritesRefused: a.holderForgot,
		ForgottenGrants:             a.forgotten,
		ForgottenEndedGrants:        a.forgottenEnded,
		ForgottenReleases:           a.releasesForgotten,
		LostRenewals:                a.renewalsLost,
		StaleWritesAccepted:         a.stale,
		StaleReads:                  a.staleReads,
		ClaimsWon:                   a.claimsWon,
		ClaimsLost:                  a.claimsLost,
		UnavailableMS:               a.w.unavail.until(end),
		CutOffMS:                    a.w.unavail.cutUntil(end),
		EndMS:                       end,
		Truncated:                   truncated,
	}
	s.LostUpdate = s.FinalValue != s.ExpectedValue
	for _, n := range a.sent {
		s.SideEffects += n
		s.DuplicateSideEffects += n - 1
	}
	for _, g := range a.w.ledger.grants {
		s.Grants++
		if g.double {
			s.DoubleGrants++
		}
		if g.splitBrain {
			s.SplitBrainGrants++
		}
		if g.dupToken {
			s.DuplicateTokens++
		}
	}
	// Each client's spans of belief, the one still open ending with the
	// run (a paused client keeps believing).
	owners := make([][]span, 0, len(a.w.clients))
	for _, c := range a.w.clients {
		sp := a.beliefs[c.cfg.Name]
		if from, ok := a.believing[c.cfg.Name]; ok {
			sp = append(sp[:len(sp):len(sp)], span{from, end})
		}
		owners = append(owners, sp)
	}
	s.OverlapMS = overlap(owners)
	s.Safe = s.StaleWritesAccepted == 0 && !s.LostUpdate && s.DuplicateSideEffects == 0
	return s
}
