package engine

// auditor keeps the summary. It watches the run from outside, the way a
// state checker watches a cluster: it reads every event as it is emitted,
// the lock service's record of grants (the ledger, fed by what the service
// answered) and whether the service could answer; the clients, the lock
// nodes and the storage do no bookkeeping of their own. It judges each
// accepted write as it is emitted and marks a stale one on its event.
type auditor struct {
	w *world

	writesAccepted, writesRefused, stale int
	claimsWon, claimsLost                int
	expected                             int64
	sent                                 map[string]int // side effects performed, by message

	// beliefs: when each client began believing it holds the lock (while
	// it does), and the spans it believed.
	believing map[string]int64
	beliefs   map[string][]span

	unavail availability
}

func newAuditor(w *world) *auditor {
	return &auditor{w: w, expected: w.sc.Storage.Initial, sent: map[string]int{},
		believing: map[string]int64{}, beliefs: map[string][]span{}}
}

// observe reads one event as it is emitted (before the sink sees it).
func (a *auditor) observe(e *Event) {
	w := a.w
	switch e.Kind {
	case KindWriteAccepted:
		a.writesAccepted++
		if e.Add != nil {
			a.expected += *e.Add
		} else if e.Value != nil {
			a.expected = *e.Value
		}
		// Stale: the lock service's own record does not count the writer
		// as holder now, and a client granted the lock later already used
		// the record (a late write that lands before the next holder
		// begins is merely ordered before its work).
		if !w.holds(e.Client, e.Token) && w.ledger.supersededBy(e.Client) {
			a.stale++
			e.Stale = true
			e.Reason = "stale: the lock service no longer counts this client as holder, and a newer holder had already begun"
		}
		w.ledger.touched(e.Client, e.Token)
	case KindWriteRefused:
		a.writesRefused++
	case KindClaimWon:
		a.claimsWon++
	case KindClaimLost:
		a.claimsLost++
	case KindSMSSent:
		a.sent[e.Message]++
	case KindGranted:
		if _, ok := a.believing[e.Actor]; !ok {
			a.believing[e.Actor] = e.T
		}
	case KindLockLost, KindReleased, KindReleaseRefused, KindGaveUp, KindDone, KindCrashed:
		a.endBelief(e.Actor, e.T)
	case KindUnavailable:
		if e.Message == "release" {
			a.endBelief(e.Actor, e.T)
		}
	}
}

// holding reports whether the client believes it holds the lock now.
func (a *auditor) holding(client string) bool {
	_, ok := a.believing[client]
	return ok
}

func (a *auditor) endBelief(client string, t int64) {
	if from, ok := a.believing[client]; ok {
		a.beliefs[client] = append(a.beliefs[client], span{from, t})
		delete(a.believing, client)
	}
}

// readAt notes, at the storage, that a client read the record: under the
// grant it believes it holds, that is the holder beginning to use the data.
func (a *auditor) readAt(client string, token int64) {
	if a.holding(client) {
		a.w.ledger.touched(client, token)
	}
}

// summary condenses the run, which ended at end with the record's value.
func (a *auditor) summary(end, final int64, truncated bool) Summary {
	s := Summary{
		FinalValue:          final,
		ExpectedValue:       a.expected,
		WritesAccepted:      a.writesAccepted,
		WritesRefused:       a.writesRefused,
		StaleWritesAccepted: a.stale,
		ClaimsWon:           a.claimsWon,
		ClaimsLost:          a.claimsLost,
		UnavailableMS:       a.unavail.until(end),
		EndMS:               end,
		Truncated:           truncated,
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
