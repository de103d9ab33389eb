package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
)

// The chaos generator aims its faults at what happens in the run. It
// builds a scenario's clients and lock service from the seed, runs it
// (first without faults), reads the grant and renewal times from the
// timeline, and places a fault at an absolute time relative to one of them:
// a primary crash inside the replication lag after a grant, a restart of a
// saving single server inside a lease, a pause longer than the lease just
// after a renewal, a clock jump during a lease. Then it runs the scenario
// again with that fault to aim the next one, up to maxAims.
//
// Every aimed fault lands at or after the previous aimed fault, and a fault
// changes nothing before the instant it strikes, so each one still hits the
// moment it was aimed at in the final scenario. That scenario is an
// ordinary scenario: it reproduces when run as it is.

// maxAims bounds the aimed faults of one generated scenario (each costs a
// planning run).
const maxAims = 3

// aim is one kind of aimed fault. place returns the faults to add (at or
// after the time after) and a sentence saying what they aim at, or false
// when the timeline offers nothing to aim at.
type aim struct {
	name   string
	weight int
	place  func(g *generation, after int64) ([]Fault, string, bool)
}

// generation is the state of generating one scenario.
type generation struct {
	rng      *rand.Rand
	sc       Scenario // normalised: defaults filled in
	timeline []Event  // the last planning run's events
	notes    map[string]aimed
	// settled is the time up to which placed faults rely on the timeline
	// staying as it is: the next aimed fault strikes no earlier. It is the
	// latest fault's time, or later when an aim counts on something after
	// its fault (a held write must still be sent).
	settled int64
}

// aimed says which aim placed a fault and what it aimed at, in words.
type aimed struct {
	aim  string
	note string
}

func (g *generation) pick(lo, hi int64) int64 {
	if hi <= lo {
		return lo
	}
	return lo + g.rng.Int64N(hi-lo+1)
}

func (g *generation) lease() int64 { return g.sc.Lock.Lease.MS() }

// GenerateScenario makes the chaos scenario of one seed on opt's backend:
// two or three clients doing a read-modify-write under a random lease and
// renewal, with one to three faults aimed at the run's own grants and
// renewals, and sometimes one more at a random time. It runs the scenario
// to aim (a few times), so it takes a context; the same seed and options
// always give the same scenario.
func GenerateScenario(ctx context.Context, seed int64, opt ChaosOptions) (Scenario, error) {
	sc, _, _, err := generate(ctx, seed, opt)
	if err != nil {
		return Scenario{}, fmt.Errorf("chaos seed %d: %w", seed, err)
	}
	return sc, nil
}

// randomAim names the faults placed at a random time.
const randomAim = "random"

// generate is GenerateScenario that also returns what each fault aims at
// and, when its last aiming run was of the scenario it returns (nothing
// more to aim at), that run's result: a run is deterministic, so the
// caller need not run it again. Otherwise the result is nil.
func generate(ctx context.Context, seed int64, opt ChaosOptions) (Scenario, map[string]aimed, *Result, error) {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x5eed_c4a05))
	g := &generation{rng: rng, notes: map[string]aimed{}}
	if opt.Kind == ChaosClaims {
		return g.claims(seed)
	}
	g.sc = normalize(baseScenario(rng, seed, opt))
	if rng.IntN(4) == 0 {
		if f, ok := g.randomFault(); ok {
			g.sc.Faults = append(g.sc.Faults, f)
			g.notes[f.key()] = aimed{randomAim, "a fault at a random time, aimed at nothing"}
		}
	}
	aims := aimsFor(g.sc.Lock.Backend)
	if opt.LoseDisk {
		aims = append(aims, loseDiskAim)
	}
	var last *Result // the run of g.sc as it is now, if any
	for range 1 + pickCount(rng) {
		res, err := opt.run(ctx, g.sc)
		if err != nil {
			return Scenario{}, nil, nil, fmt.Errorf("a run that aims the faults: %w", err)
		}
		g.timeline = res.Events
		faults, note, ok := g.placeOne(aims, g.settled)
		if !ok {
			last = res
			break
		}
		for _, f := range faults {
			g.notes[f.key()] = note
			g.settled = max(g.settled, f.At.MS())
		}
		g.sc.Faults = append(g.sc.Faults, faults...)
	}
	if len(g.sc.Faults) == 0 {
		// Nothing to aim at (nobody was granted the lock): strike at random,
		// so that hardly any run goes without a fault.
		if f, ok := g.randomFault(); ok {
			g.sc.Faults = append(g.sc.Faults, f)
			g.notes[f.key()] = aimed{randomAim, "a fault at a random time, aimed at nothing"}
			last = nil
		}
	}
	return g.sc, g.notes, last, nil
}

// pickCount draws how many aimed faults beyond the first a scenario gets:
// one aim in half the runs, two in a third, three in the rest.
func pickCount(rng *rand.Rand) int {
	switch n := rng.IntN(6); {
	case n < 3:
		return 0
	case n < 5:
		return 1
	}
	return maxAims - 1
}

// placeOne draws aims by weight until one finds something to aim at.
func (g *generation) placeOne(aims []aim, after int64) ([]Fault, aimed, bool) {
	left := slices.Clone(aims)
	for len(left) > 0 {
		total := 0
		for _, a := range left {
			total += a.weight
		}
		n := g.rng.IntN(total)
		i := 0
		for ; n >= left[i].weight; i++ {
			n -= left[i].weight
		}
		if faults, note, ok := left[i].place(g, after); ok && g.fits(faults) {
			return faults, aimed{left[i].name, note}, true
		}
		left = slices.Delete(left, i, i+1)
	}
	return nil, aimed{}, false
}

// fits reports whether the scenario stays valid with faults added.
func (g *generation) fits(faults []Fault) bool {
	try := g.sc.clone()
	try.Faults = append(try.Faults, faults...)
	return validate(&try) == nil
}

// baseScenario draws the clients and the lock service of a seed.
func baseScenario(rng *rand.Rand, seed int64, opt ChaosOptions) Scenario {
	pick := func(lo, hi int64) int64 { return lo + rng.Int64N(hi-lo+1) }
	backend := opt.Backend
	if backend == "" {
		backend = BackendRaft
	}
	lease := pick(2, 20) * 1000
	sc := Scenario{
		Title:   fmt.Sprintf("chaos %d", seed),
		Seed:    seed,
		Fencing: opt.Fencing && hasTokens(backend),
		Until:   Sec(60),
		Lock:    Lock{Backend: backend, Nodes: opt.Nodes, Lease: Ms(lease), Election: Ms(pick(2, 15) * 100)},
		Storage: Storage{Key: "account-42", Initial: 1000},
	}
	if b := backendEntry(backend); b != nil && b.chaos != nil {
		b.chaos(pick, rng, &sc.Lock) // the backend's own lock fields
	}
	if rng.IntN(4) == 0 {
		sc.Lock.Latency = Ms(pick(1, 20) * 10)
	}
	clients := int(pick(2, 3))
	lat := sc.Lock.Latency.MS()
	for i := range clients {
		c := Client{
			Name:       fmt.Sprintf("client-%d", i+1),
			Start:      Ms(pick(0, 100) * 100),
			RetryEvery: Ms(pick(1, 4) * 500),
			OnRefused:  []string{OnRefusedStop, OnRefusedRetry}[rng.IntN(2)],
			// A careful client checks its own clock against its lease
			// before each step.
			WatchLease: rng.IntN(3) == 0,
		}
		// Clients are configured as a competent engineer would, so that a
		// violation is the faults' doing: one that renews does so three to
		// five times a lease, and its work may outlast the lease; one that
		// does not renew has work that fits well inside the lease, round
		// trips (grant, read, check, write: six one-way trips) included.
		work := pick(5, 15) * lease / 10
		if rng.IntN(3) == 0 {
			work = pick(1, 5) * lease / 10
		}
		if work+6*lat > lease*7/10 {
			c.RenewEvery = Ms(pick(20, 33) * lease / 100)
		}
		c.Steps = []Step{
			{Do: StepAcquire},
			{Do: StepRead},
			{Do: StepWork, For: Ms(work)},
			{Do: StepWrite, Add: ptr(pick(1, 9) * 100), Guard: opt.Guard},
			{Do: StepRelease},
		}
		if rng.IntN(3) == 0 {
			// Check, then write: the check passes, and what comes
			// between it and the write is what the lesson is about.
			c.Steps = slices.Insert(c.Steps, 3, Step{Do: StepCheck})
		}
		sc.Clients = append(sc.Clients, c)
	}
	return sc
}

// randomFault is a fault of any kind at a random time: chaos that does not
// aim, for variety.
func (g *generation) randomFault() (Fault, bool) {
	sc := &g.sc
	lease := g.lease()
	at := Ms(g.pick(0, 300) * 100)
	client := sc.Clients[g.rng.IntN(len(sc.Clients))].Name
	node := fmt.Sprintf("node-%d", g.pick(1, int64(sc.Lock.Nodes)))
	var f Fault
	switch g.rng.IntN(6) {
	case 0, 1:
		f = Fault{At: at, Do: FaultPause, Target: client, For: Ms(g.pick(5, 20) * lease / 10)}
	case 2:
		f = Fault{At: at, Do: FaultDelay, Target: client, Kind: []string{MsgWrite, MsgRenew, MsgRelease, MsgAcquire}[g.rng.IntN(4)], By: Ms(g.pick(1, 20) * lease / 10)}
	case 3:
		if sc.Lock.Nodes == 1 {
			f = Fault{At: at, Do: FaultCrash, Target: node}
		} else {
			f = Fault{At: at, Do: FaultPartition, Target: node, For: Ms(g.pick(5, 50) * 100)}
		}
	case 4:
		target := node
		if g.rng.IntN(2) == 0 {
			target = client
		}
		by := g.pick(1, 10) * lease / 10
		if g.rng.IntN(2) == 0 {
			by = -by
		}
		f = Fault{At: at, Do: FaultClockJump, Target: target, By: Ms(by)}
	case 5:
		target := node
		if g.rng.IntN(2) == 0 {
			target = client
		}
		rate := []float64{0.25, 0.5, 2, 4}[g.rng.IntN(4)]
		f = Fault{At: at, Do: FaultClockDrift, Target: target, Rate: rate, For: Ms(g.pick(5, 20) * lease / 10)}
	}
	return f, g.fits([]Fault{f})
}
