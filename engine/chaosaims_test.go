package engine

import (
	"context"
	"testing"
)

// TestAimsHitTheirMoment runs generated scenarios as they are and checks,
// in the final timeline, that every aimed fault struck the moment it was
// aimed at: a primary crash or cut strictly between the primary applying a
// grant and the replica's copy arriving; a saving server's crash after a
// grant and no later than its next save, and its restart before that
// grant's lease ran out; a pause that starts at most half a second after
// a grant or renewal of the paused client and outlasts the lease; a held
// write that the client sends after the delay was armed; a partition that
// cuts the holder off (with its leader, primary or Redlock minority)
// within half a lease of its grant, renewal or check, for a lease or
// more; a drift that slows a holder's clock within a quarter lease. Aiming uses
// planning runs, and a fault changes nothing before it strikes, so nothing
// may have moved.
func TestAimsHitTheirMoment(t *testing.T) {
	ctx := context.Background()
	seeds := int64(300)
	if testing.Short() {
		seeds = 60
	}
	checked := map[string]int{}
	for _, b := range []string{BackendAsyncReplica, BackendSingle} {
		for seed := range seeds {
			sc, notes, _, err := generate(ctx, seed, ChaosOptions{Backend: b, Fencing: true})
			if err != nil {
				t.Fatal(err)
			}
			res, err := ChaosOptions{}.run(ctx, sc)
			if err != nil {
				t.Fatal(err)
			}
			lat, lag, lease := sc.Lock.Latency.MS(), sc.Lock.ReplicationLag.MS(), sc.Lock.Lease.MS()
			granted := func(ok func(e Event) bool) bool {
				for _, e := range res.Events {
					if (e.Kind == KindGranted || e.Kind == KindRenewed || e.Kind == KindCheckOK || e.Kind == KindAnswerLost) && ok(e) {
						return true
					}
				}
				return false
			}
			for _, f := range sc.Faults {
				a := notes[f.key()]
				at := f.At.MS()
				hit := true
				switch {
				case (a.aim == aimNameInLag && f.Do == FaultCrash) || a.aim == aimNameCutInLag:
					hit = granted(func(e Event) bool {
						applied := e.T - lat
						// A cut that strikes while the answer is on its way
						// leaves the grant with its answer lost.
						grant := e.Kind == KindGranted || (e.Kind == KindAnswerLost && e.Message == "acquire")
						return grant && e.Node == f.Target && applied < at && at < applied+lag
					})
				case a.aim == aimNameRestart && f.Do == FaultCrash:
					every := sc.Lock.PersistEvery.MS()
					hit = granted(func(e Event) bool {
						applied := e.T - lat
						return e.Kind == KindGranted && applied < at && at <= (applied/every+1)*every
					})
				case a.aim == aimNameRestart && f.Do == FaultRestart:
					hit = granted(func(e Event) bool {
						applied := e.T - lat
						return e.Kind == KindGranted && applied < at && at < applied+lease
					})
				case a.aim == aimNamePause:
					hit = f.For.MS() > lease && granted(func(e Event) bool {
						return e.Actor == f.Target && e.T < at && at <= e.T+500
					})
				case a.aim == aimNameSide:
					hit = f.For.MS() >= lease && granted(func(e Event) bool {
						return e.Actor == f.Side[0] && e.T < at && at <= e.T+lease/2
					}) && struckAt(res.Events, KindPartitioned, f.Side[0], at)
				case a.aim == aimNameDrift:
					hit = f.Rate < 1 && granted(func(e Event) bool {
						return e.Actor == f.Target && e.T < at && at <= e.T+lease/4
					}) && struckAt(res.Events, KindClockDrift, f.Target, at)
				case a.aim == aimNameLateWrite:
					hit = false
					for _, e := range res.Events {
						if e.Actor == f.Target && e.Kind == KindDelayed && e.Message == MsgWrite && e.T >= at {
							hit = true
							break
						}
					}
				default:
					continue
				}
				checked[a.aim]++
				if !hit {
					t.Errorf("%s seed %d: %s missed its moment: %+v", b, seed, a.note, f)
				}
			}
		}
	}
	for _, a := range []string{aimNameInLag, aimNameCutInLag, aimNameRestart, aimNamePause, aimNameLateWrite, aimNameSide, aimNameDrift} {
		if checked[a] == 0 {
			t.Errorf("no %q fault was generated to check", a)
		}
	}
	t.Logf("faults checked per aim: %v", checked)
}

// struckAt reports whether actor has an event of kind at time t.
func struckAt(events []Event, kind, actor string, t int64) bool {
	for _, e := range events {
		if e.T == t && e.Kind == kind && e.Actor == actor {
			return true
		}
	}
	return false
}
