package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"
)

// ChaosOptions describe a batch of randomized fault schedules.
type ChaosOptions struct {
	Runs    int    // how many scenarios to generate and run
	Seed    int64  // run i uses seed Seed+i, so any one can be run alone
	Backend string // lock.backend of every scenario ("raft" when empty)
	Nodes   int    // lock.nodes (the backend's default when 0)
	Fencing bool
	// Examples caps how many violations are shrunk and reported.
	Examples int
	// Workers runs that many scenarios at once (4 x GOMAXPROCS when 0: a
	// run mostly waits for its Raft group's timers, not for the CPU).
	Workers int
}

// Limits of a chaos batch.
const (
	MaxChaosRuns     = 100_000
	maxChaosExamples = 5
	linearizeTimeout = 5 * time.Second
)

// ChaosReport is the outcome of a chaos batch.
type ChaosReport struct {
	Runs            int            `json:"runs"`
	Violations      int            `json:"violations"`
	NotLinearizable int            `json:"not_linearizable"`
	Examples        []ChaosExample `json:"examples"`
}

// ChaosExample is one violation: the seed that generated it, what was
// wrong, and the smallest scenario (fewest faults and clients) that still
// fails, runnable with `playground run --config`.
type ChaosExample struct {
	Seed     int64    `json:"seed"`
	Why      string   `json:"why"`
	Summary  Summary  `json:"summary"`
	Scenario Scenario `json:"scenario"`
}

// Chaos generates opt.Runs scenarios with random clients, leases, renewals
// and faults, runs each, and reports those whose summary is unsafe or that
// handed out a token twice, shrunk to the smallest failing form. Runs whose
// lock history is not linearizable are counted too.
func Chaos(ctx context.Context, opt ChaosOptions) (ChaosReport, error) {
	if opt.Runs < 1 || opt.Runs > MaxChaosRuns {
		return ChaosReport{}, fieldErr("runs", "must be between 1 and %d, not %d", MaxChaosRuns, opt.Runs)
	}
	if opt.Examples <= 0 || opt.Examples > maxChaosExamples {
		opt.Examples = 3
	}
	if opt.Backend == "" {
		opt.Backend = BackendRaft
	}
	if _, err := Prepare(GenerateScenario(opt.Seed, opt)); err != nil {
		return ChaosReport{}, err
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = 4 * runtime.GOMAXPROCS(0)
	}
	type outcome struct {
		seed       int64
		why        string
		linearized bool
		err        error
	}
	results := make([]outcome, opt.Runs)
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				seed := opt.Seed + int64(i)
				res, err := prepareAndExecute(ctx, GenerateScenario(seed, opt))
				o := outcome{seed: seed, err: err, linearized: true}
				if err == nil {
					o.why = violation(res.Summary)
					if opt.Backend != BackendRedlock {
						o.linearized = res.History().Linearizable(linearizeTimeout)
					}
				}
				results[i] = o
			}
		}()
	}
	for i := range opt.Runs {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return ChaosReport{}, err
	}
	rep := ChaosReport{Runs: opt.Runs, Examples: []ChaosExample{}}
	for _, o := range results {
		if o.err != nil {
			return rep, fmt.Errorf("chaos seed %d: %w", o.seed, o.err)
		}
		if !o.linearized {
			rep.NotLinearizable++
		}
		if o.why == "" {
			continue
		}
		rep.Violations++
		if len(rep.Examples) < opt.Examples {
			sc, sum := Shrink(ctx, GenerateScenario(o.seed, opt), func(s Summary) bool { return violation(s) != "" })
			rep.Examples = append(rep.Examples, ChaosExample{Seed: o.seed, Why: violation(sum), Summary: sum, Scenario: sc})
		}
	}
	return rep, nil
}

// prepareAndExecute validates a generated scenario and runs it.
func prepareAndExecute(ctx context.Context, sc Scenario) (*Result, error) {
	p, err := Prepare(sc)
	if err != nil {
		return nil, err
	}
	return Execute(ctx, p)
}

// violation says what is unsafe about a summary, or "".
func violation(s Summary) string {
	switch {
	case s.DuplicateTokens > 0:
		return fmt.Sprintf("token handed out twice (%d)", s.DuplicateTokens)
	case s.StaleWritesAccepted > 0:
		return fmt.Sprintf("stale write accepted (%d)", s.StaleWritesAccepted)
	case s.LostUpdate:
		return fmt.Sprintf("update lost: final %d, expected %d", s.FinalValue, s.ExpectedValue)
	case s.DuplicateSideEffects > 0:
		return "side effect repeated"
	}
	return ""
}

// Shrink removes faults and clients from a scenario one at a time, keeping
// each removal after which fails still holds, until none can go. It
// returns the smallest failing scenario and its summary.
func Shrink(ctx context.Context, sc Scenario, fails func(Summary) bool) (Scenario, Summary) {
	run := func(s Scenario) (Summary, bool) {
		res, err := prepareAndExecute(ctx, s)
		if err != nil {
			return Summary{}, false
		}
		return res.Summary, fails(res.Summary)
	}
	best, ok := run(sc)
	if !ok {
		return sc, best
	}
	for changed := true; changed && ctx.Err() == nil; {
		changed = false
		for i := len(sc.Faults) - 1; i >= 0; i-- {
			try := sc
			try.Faults = append(append([]Fault(nil), sc.Faults[:i]...), sc.Faults[i+1:]...)
			if s, ok := run(try); ok {
				sc, best, changed = try, s, true
			}
		}
		for i := len(sc.Clients) - 1; i >= 0 && len(sc.Clients) > 1; i-- {
			try := withoutClient(sc, i)
			if s, ok := run(try); ok {
				sc, best, changed = try, s, true
			}
		}
	}
	return sc, best
}

func withoutClient(sc Scenario, i int) Scenario {
	name := sc.Clients[i].Name
	out := sc
	out.Clients = append(append([]Client(nil), sc.Clients[:i]...), sc.Clients[i+1:]...)
	out.Faults = nil
	for _, f := range sc.Faults {
		if f.Target != name {
			out.Faults = append(out.Faults, f)
		}
	}
	return out
}

// GenerateScenario makes the chaos scenario of one seed: two or three
// clients doing a read-modify-write under a random lease and renewal, and
// up to four random faults (pauses, late messages, crashes and restarts,
// partitions, clock jumps) on the backend of opt.
func GenerateScenario(seed int64, opt ChaosOptions) Scenario {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x5eed_c4a05))
	pick := func(lo, hi int64) int64 { return lo + rng.Int64N(hi-lo+1) }
	backend := opt.Backend
	if backend == "" {
		backend = BackendRaft
	}
	lease := pick(2, 20) * 1000
	sc := Scenario{
		Title:   fmt.Sprintf("chaos %d", seed),
		Seed:    seed,
		Fencing: opt.Fencing && backend != BackendRedlock,
		Until:   Sec(60),
		Lock:    Lock{Backend: backend, Nodes: opt.Nodes, Lease: Ms(lease), Election: Ms(pick(2, 15) * 100)},
		Storage: Storage{Key: "account-42", Initial: 1000},
	}
	switch backend {
	case BackendAsyncReplica:
		sc.Lock.ReplicationLag = Ms(pick(1, 10) * 100)
	case BackendSingle:
		if rng.IntN(2) == 0 {
			sc.Lock.PersistEvery = Sec(1)
		}
	}
	if rng.IntN(4) == 0 {
		sc.Lock.Latency = Ms(pick(1, 20) * 10)
	}
	clients := int(pick(2, 3))
	for i := range clients {
		c := Client{
			Name:       fmt.Sprintf("client-%d", i+1),
			Start:      Ms(pick(0, 100) * 100),
			RetryEvery: Ms(pick(1, 4) * 500),
			OnRefused:  []string{OnRefusedStop, OnRefusedRetry}[rng.IntN(2)],
			Steps: []Step{
				{Do: StepAcquire},
				{Do: StepRead},
				{Do: StepWork, For: Ms(pick(5, 15) * lease / 10)},
				{Do: StepWrite, Add: ptr(pick(1, 9) * 100)},
				{Do: StepRelease},
			},
		}
		switch rng.IntN(3) {
		case 0:
			c.RenewEvery = Ms(lease / 3)
		case 1:
			c.RenewEvery = Ms(pick(5, 15) * lease / 10)
		}
		sc.Clients = append(sc.Clients, c)
	}
	nodes := sc.Lock.Nodes
	if nodes == 0 {
		nodes = normalize(sc).Lock.Nodes
	}
	var down []string
	for range rng.IntN(5) {
		at := Ms(pick(0, 300) * 100)
		client := sc.Clients[rng.IntN(len(sc.Clients))].Name
		node := fmt.Sprintf("node-%d", pick(1, int64(nodes)))
		var f Fault
		switch rng.IntN(6) {
		case 0, 1:
			f = Fault{At: at, Do: FaultPause, Target: client, For: Ms(pick(5, 20) * lease / 10)}
		case 2:
			f = Fault{At: at, Do: FaultDelay, Target: client, Kind: []string{MsgWrite, MsgRenew, MsgRelease, MsgAcquire}[rng.IntN(4)], By: Ms(pick(1, 20) * lease / 10)}
		case 3:
			if len(down) > 0 && rng.IntN(2) == 0 {
				f = Fault{At: Ms(pick(at.MS()/100, 500) * 100), Do: FaultRestart, Target: down[0]}
				down = down[1:]
			} else if backend != BackendRedlock && rng.IntN(2) == 0 {
				f = Fault{At: at, Do: FaultCrash, Target: TargetLeader}
			} else {
				f = Fault{At: at, Do: FaultCrash, Target: node}
				down = append(down, node)
			}
		case 4:
			if nodes == 1 {
				continue
			}
			f = Fault{At: at, Do: FaultPartition, Target: node, For: Ms(pick(5, 50) * 100)}
		case 5:
			target := node
			if rng.IntN(2) == 0 {
				target = client
			}
			by := pick(1, 10) * lease / 10
			if rng.IntN(2) == 0 {
				by = -by
			}
			f = Fault{At: at, Do: FaultClockJump, Target: target, By: Ms(by)}
		}
		sc.Faults = append(sc.Faults, f)
	}
	// A restart generated before its crash in time is dropped, not fixed
	// up: the schedule stays what the seed made.
	for len(sc.Faults) > 0 {
		if err := checkFaultOrder(&sc); err == nil {
			break
		}
		sc.Faults = sc.Faults[:len(sc.Faults)-1]
	}
	return sc
}
