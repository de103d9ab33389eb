package engine

import "fmt"

// The kinds of scenario a chaos batch generates (ChaosOptions.Kind).
const (
	// ChaosLocks: two or three clients take the lock to read, modify and
	// write, with faults aimed at their grants and renewals.
	ChaosLocks = "locks"
	// ChaosClaims: two to six clients take no lock and race for one row
	// with a conditional UPDATE each (ride-claim, seat-hold), with faults
	// striking the clients as they claim: pauses, held claims, clock
	// jumps. The database
	// settles every race, so the search finds no double claim; it shows
	// that no timing breaks it.
	ChaosClaims = "claims"
)

// claims generates a claims scenario: its clients start within the first
// second and claim once; one to three faults strike clients about when
// they claim.
func (g *generation) claims(seed int64) (Scenario, map[string]aimed, *Result, error) {
	sc := Scenario{Title: fmt.Sprintf("chaos %d", seed), Seed: seed, Until: Sec(10), Storage: Storage{Key: "ride-7"}}
	for i := range g.pick(2, 6) {
		sc.Clients = append(sc.Clients, Client{Name: fmt.Sprintf("client-%d", i+1), Start: Ms(g.pick(0, 20) * 50), Steps: []Step{{Do: StepClaim}}})
	}
	g.sc = normalize(sc)
	for range 1 + pickCount(g.rng) {
		// Each fault strikes a client at or just before its claim: after
		// it, the race is settled and nothing is left to strike.
		c := g.sc.Clients[g.rng.IntN(len(g.sc.Clients))]
		client, at := c.Name, Ms(max(c.Start.MS()-g.pick(0, 4)*50, 0))
		var f Fault
		switch g.rng.IntN(3) {
		case 0:
			f = Fault{At: at, Do: FaultPause, Target: client, For: Ms(g.pick(1, 30) * 100)}
		case 1:
			f = Fault{At: at, Do: FaultDelay, Target: client, Kind: MsgWrite, By: Ms(g.pick(1, 30) * 100)}
		default:
			by := g.pick(1, 10) * 1000
			if g.rng.IntN(2) == 0 {
				by = -by
			}
			f = Fault{At: at, Do: FaultClockJump, Target: client, By: Ms(by)}
		}
		if g.fits([]Fault{f}) {
			g.sc.Faults = append(g.sc.Faults, f)
			g.notes[f.key()] = aimed{randomAim, "a fault at a random time while the claims race"}
		}
	}
	return g.sc, g.notes, nil, nil
}
