package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

// ChaosOptions describe a batch of generated fault schedules.
type ChaosOptions struct {
	Runs    int    // how many scenarios to generate and run
	Seed    int64  // run i uses seed Seed+i, so any one can be run alone
	Backend string // lock.backend of every scenario ("raft" when empty)
	// Kind is the kind of scenario generated: "" (or ChaosLocks) clients
	// that take the lock to read, modify and write; ChaosClaims clients
	// that take no lock and race with one conditional UPDATE each.
	Kind    string
	Nodes   int // lock.nodes (the backend's default when 0)
	Fencing bool
	// Guard "txn" makes every write a transaction guarded by the lock
	// key's token, on a backend whose entry takes it (Backend.Txn).
	Guard string
	// LoseDisk lets the generator make a node lose its disk (a lose_disk
	// fault aimed under a grant); off, no generated scenario has one.
	LoseDisk bool
	// Examples caps how many violations are shrunk and reported (3 when 0).
	Examples int
	// Workers runs that many scenarios at once (4 x GOMAXPROCS when 0: a
	// Raft run mostly waits for its group's timers, not for the CPU).
	Workers int
	// Execute runs one prepared scenario; nil is the package's Execute,
	// with the batch's databases reused from run to run (newStoresPool).
	// Every run of the batch goes through it (the runs that aim the
	// faults, the runs judged, the shrinker's), so that a server can make
	// each one wait for a slot of its own. It must not change the result.
	Execute func(context.Context, *Prepared) (*Result, error)
}

// run validates a scenario and runs it through opt.Execute.
func (opt ChaosOptions) run(ctx context.Context, sc Scenario) (*Result, error) {
	p, err := Prepare(sc)
	if err != nil {
		return nil, err
	}
	if opt.Execute != nil {
		return opt.Execute(ctx, p)
	}
	return Execute(ctx, p)
}

// Limits of a chaos batch.
const (
	MaxChaosRuns     = 100_000
	MaxChaosSeed     = 1_000_000_000_000 // seeds stay exact as JSON numbers in a browser
	MaxChaosExamples = 5
)

// DefaultCheckTimeout bounds one linearizability check of a chaos run; a
// check that takes longer is counted as unknown.
const DefaultCheckTimeout = 5 * time.Second

// ChaosReport is the outcome of a chaos batch. Its JSON form is the
// contract of SCENARIOS.md ("Chaos"), the same from the command line and
// from POST /api/chaos.
type ChaosReport struct {
	Runs int   `json:"runs"`
	Seed int64 `json:"seed"`
	// Backend and Nodes are the lock service's; a claims batch, whose
	// clients take no lock, has neither.
	Backend string `json:"backend,omitempty"`
	Kind    string `json:"kind,omitempty"`
	Nodes   int    `json:"nodes,omitempty"`
	Fencing bool   `json:"fencing"`
	Guard   string `json:"guard,omitempty"`
	// LoseDisk: lose_disk faults were allowed.
	LoseDisk bool `json:"lose_disk,omitempty"`
	// Violations counts the runs with at least one violation; ByKind
	// counts, among those, the runs with each kind (a run may have several).
	Violations int             `json:"violations"`
	ByKind     ViolationCounts `json:"by_kind"`
	// Misconfigured counts the runs that violate and still violate with
	// every fault removed: their clients, not the faults, broke them (a
	// renewal too slow for the lease, work longer than the lease with no
	// renewal). They are not findings: Violations and ByKind leave them out.
	Misconfigured int `json:"misconfigured"`
	// IllegalByClock counts, among the histories found not linearizable,
	// those the answering nodes' own clocks make look legal: the lock was
	// broken by a clock running fast or jumping (History.ClockNote).
	IllegalByClock int `json:"illegal_by_clock"`
	// IllegalForgotten counts, among the histories found not linearizable
	// and not by a clock, those whose lock service forgot a grant while
	// its lease ran (Summary.ForgottenGrants), a release while the
	// released lease still ran (Summary.ForgottenReleases), or a grant
	// with its token after its lease ended (Summary.ForgottenEndedGrants),
	// or the renewals that kept a lease, ending it early
	// (Summary.LostRenewals): the holder was refused as if it held nothing,
	// others were refused a lock already given back, a token was handed
	// out again, or another client was let in while the renewed lease ran,
	// which no lock does, even where nobody else got the lock and no
	// finding is counted.
	IllegalForgotten int `json:"illegal_forgotten"`
	// IllegalSplitBrain counts, among the rest of the histories found not
	// linearizable, those in which two primaries served at once, each on
	// its own side of a partition, and one granted the lock while the
	// other kept another client's lease (Summary.SplitBrainGrants): a
	// primary the monitor replaced went on answering the clients it
	// reached.
	IllegalSplitBrain int `json:"illegal_split_brain"`
	// Linearizability counts the runs whose lock history the checker found
	// linearizable, not linearizable, or could not decide in time.
	Linearizability LinearizabilityCounts `json:"linearizability"`
	// RunsWithoutFaults counts the runs in which no fault struck (every
	// fault was ignored, or its message was never sent).
	RunsWithoutFaults int            `json:"runs_without_faults"`
	Examples          []ChaosExample `json:"examples"`
}

// ViolationCounts counts runs per kind of violation.
type ViolationCounts struct {
	StaleWrite          int `json:"stale_write"`
	LostUpdate          int `json:"lost_update"`
	DoubleGrant         int `json:"double_grant"`
	DuplicateToken      int `json:"duplicate_token"`
	DuplicateSideEffect int `json:"duplicate_side_effect"`
	DoubleClaim         int `json:"double_claim"`
}

// LinearizabilityCounts counts runs per outcome of the history check.
type LinearizabilityCounts struct {
	OK      int `json:"ok"`
	Illegal int `json:"illegal"`
	Unknown int `json:"unknown"`
}

// ChaosExample is one violation: the seed that generated it, what was
// wrong, what the generator aimed its faults at (before shrinking), and
// the smallest scenario found that still has the violation. The scenario is ordinary and
// complete: run as it is (playground run --config, POST /api/run, the
// playground page) it gives Summary again.
type ChaosExample struct {
	Seed            int64           `json:"seed"`
	Why             string          `json:"why"`
	Kinds           []string        `json:"kinds"`
	Linearizability Linearizability `json:"linearizability"`
	Aims            []string        `json:"aims"`
	Summary         Summary         `json:"summary"`
	Scenario        Scenario        `json:"scenario"`

	// ClockNote says, beside a history that is not linearizable by true
	// time, whose clocks made each grant look legal (History.ClockNote).
	ClockNote string `json:"clock_note,omitempty"`
}

// Kinds of violation, as ByKind and ChaosExample.Kinds name them.
const (
	ViolationStaleWrite          = "stale_write"
	ViolationLostUpdate          = "lost_update"
	ViolationDoubleGrant         = "double_grant"
	ViolationDuplicateToken      = "duplicate_token"
	ViolationDuplicateSideEffect = "duplicate_side_effect"
	ViolationDoubleClaim         = "double_claim" // two clients' conditional claims both changed the row
)

// Violations lists the kinds of violation in a run's summary, or nil when
// it has none. A run violates when it is unsafe (a stale write landed, an
// update was lost, a side effect repeated) or a token was handed out twice
// (fencing then cannot tell the holders apart). A double grant alone is a
// breach of the lock that fencing is there to catch; it is listed only
// beside one of those.
func Violations(s Summary) []string {
	var out []string
	add := func(ok bool, kind string) {
		if ok {
			out = append(out, kind)
		}
	}
	add(s.StaleWritesAccepted > 0, ViolationStaleWrite)
	add(s.LostUpdate, ViolationLostUpdate)
	add(s.DuplicateTokens > 0, ViolationDuplicateToken)
	add(s.DuplicateSideEffects > 0, ViolationDuplicateSideEffect)
	add(s.ClaimsWon > 1, ViolationDoubleClaim)
	if len(out) > 0 && s.DoubleGrants > 0 {
		out = append(out, ViolationDoubleGrant)
	}
	return out
}

func (v *ViolationCounts) count(kinds []string) {
	for _, k := range kinds {
		switch k {
		case ViolationStaleWrite:
			v.StaleWrite++
		case ViolationLostUpdate:
			v.LostUpdate++
		case ViolationDoubleGrant:
			v.DoubleGrant++
		case ViolationDuplicateToken:
			v.DuplicateToken++
		case ViolationDuplicateSideEffect:
			v.DuplicateSideEffect++
		case ViolationDoubleClaim:
			v.DoubleClaim++
		}
	}
}

func (l *LinearizabilityCounts) count(r Linearizability) {
	switch r {
	case LinearizableOK:
		l.OK++
	case LinearizableIllegal:
		l.Illegal++
	default:
		l.Unknown++
	}
}

// why says in words what is wrong with a summary, or "".
func why(s Summary) string {
	switch {
	case s.DuplicateTokens > 0:
		return "a token was handed out twice (" + counted(s.DuplicateTokens, "time", "times") + ")"
	case s.StaleWritesAccepted > 0:
		return fmt.Sprintf("a stale write was accepted (%d)", s.StaleWritesAccepted)
	case s.LostUpdate:
		return fmt.Sprintf("an update was lost: final %d, expected %d", s.FinalValue, s.ExpectedValue)
	case s.DuplicateSideEffects > 0:
		return fmt.Sprintf("a side effect was repeated (%d)", s.DuplicateSideEffects)
	case s.ClaimsWon > 1:
		return fmt.Sprintf("%d clients each won the same claim", s.ClaimsWon)
	}
	return ""
}

// Check validates the options, naming the option at fault (runs, seed,
// backend, nodes, fencing) and its bound.
func (opt ChaosOptions) Check() error {
	if opt.Runs < 1 || opt.Runs > MaxChaosRuns {
		return fieldErr("runs", "must be between 1 and %d, not %d", MaxChaosRuns, opt.Runs)
	}
	if opt.Seed < 0 || opt.Seed > MaxChaosSeed {
		return fieldErr("seed", "must be between 0 and %d, not %d", int64(MaxChaosSeed), opt.Seed)
	}
	if opt.Kind != "" && opt.Kind != ChaosLocks && opt.Kind != ChaosClaims {
		return fieldErr("kind", "must be %q or %q, not %q", ChaosLocks, ChaosClaims, opt.Kind)
	}
	if opt.Examples < 0 || opt.Examples > MaxChaosExamples {
		return fieldErr("examples", "must be between 0 and %d, not %d", MaxChaosExamples, opt.Examples)
	}
	sc := normalize(Scenario{Fencing: opt.Fencing, Lock: Lock{Backend: opt.Backend, Nodes: opt.Nodes}})
	if opt.Guard != "" {
		if err := validateGuard(&sc, "", Step{Do: StepWrite, Guard: opt.Guard}); err != nil {
			var fe *FieldError
			if errors.As(err, &fe) {
				fe.Field = "guard"
			}
			return err
		}
	}
	if err := validateLock(&sc); err != nil {
		var fe *FieldError
		if errors.As(err, &fe) {
			switch fe.Field {
			case "lock.backend":
				fe.Field = "backend"
			case "lock.nodes":
				fe.Field = "nodes"
			}
		}
		return err
	}
	if opt.LoseDisk {
		if b := backendEntry(opt.Backend); !b.diskLoss {
			return fieldErr("lose_disk", "%s nodes keep no log on disk to lose: lose_disk takes %s", opt.Backend, orList(diskBackends()))
		}
	}
	return nil
}

// outcome is what one generated run showed. A violating run that is not
// misconfigured keeps its scenario and what its faults aimed at, so that
// an example is shrunk from it without generating it again.
type outcome struct {
	kinds         []string
	lin           Linearizability
	byClock       bool
	forgot        bool // the service forgot a grant or a release
	splitBrain    bool // two primaries, each granting
	faulted       bool
	misconfigured bool
	sc            *Scenario
	notes         map[string]aimed
	err           error
}

// Chaos generates opt.Runs scenarios whose faults aim at what happens in
// each run, runs each, checks its summary and its lock history, and
// reports the violations, the first few shrunk to the smallest scenario
// that still has them.
func Chaos(ctx context.Context, opt ChaosOptions) (ChaosReport, error) {
	if opt.Backend == "" {
		opt.Backend = DefaultBackend
	}
	if err := opt.Check(); err != nil {
		return ChaosReport{}, err
	}
	if opt.Examples == 0 {
		opt.Examples = 3
	}
	opt.Nodes = normalize(Scenario{Lock: Lock{Backend: opt.Backend, Nodes: opt.Nodes}}).Lock.Nodes
	workers := opt.Workers
	if workers <= 0 {
		workers = 4 * runtime.GOMAXPROCS(0)
	}
	if opt.Execute == nil {
		// The batch's runs take turns with a database each worker's last
		// run left (a kept database is exactly a new one, storePool).
		pool := newStoresPool(workers)
		defer pool.Close()
		opt.Execute = pool.Execute
	}
	results := make([]outcome, opt.Runs)
	var keep examplesKept
	next := make(chan int)
	// The first run that fails stops the batch: its error is the answer.
	batch, stop := context.WithCancel(ctx)
	defer stop()
	var once sync.Once
	var failed error
	var wg sync.WaitGroup
	for range min(workers, opt.Runs) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				seed := opt.Seed + int64(i)
				o := runOne(batch, seed, opt)
				if o.err != nil && batch.Err() == nil {
					once.Do(func() { failed = fmt.Errorf("chaos seed %d: %w", seed, o.err) })
					stop()
				}
				if o.sc != nil && !keep.wants(i, opt.Examples) {
					o.sc, o.notes = nil, nil // not among the first violations: no example
				}
				results[i] = o
			}
		}()
	}
feed:
	for i := range opt.Runs {
		select {
		case next <- i:
		case <-batch.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return ChaosReport{}, err
	}
	if failed != nil {
		return ChaosReport{}, failed
	}
	rep := ChaosReport{Runs: opt.Runs, Seed: opt.Seed, Backend: opt.Backend, Kind: opt.Kind, Nodes: opt.Nodes, Fencing: opt.Fencing, LoseDisk: opt.LoseDisk, Examples: []ChaosExample{}}
	if opt.Kind == ChaosClaims {
		rep.Backend, rep.Nodes = "", 0
	}
	var failing []int
	for i, o := range results {
		seed := opt.Seed + int64(i)
		if o.err != nil {
			return ChaosReport{}, fmt.Errorf("chaos seed %d: %w", seed, o.err)
		}
		if opt.Kind != ChaosClaims {
			// A claims run takes no lock: its history is empty, which
			// would count as linearizable.
			rep.Linearizability.count(o.lin)
		}
		if o.byClock {
			rep.IllegalByClock++
		} else if o.lin == LinearizableIllegal && o.forgot {
			rep.IllegalForgotten++
		} else if o.lin == LinearizableIllegal && o.splitBrain {
			rep.IllegalSplitBrain++
		}
		if !o.faulted {
			rep.RunsWithoutFaults++
		}
		if o.misconfigured {
			rep.Misconfigured++
			continue
		}
		if len(o.kinds) == 0 {
			continue
		}
		rep.Violations++
		rep.ByKind.count(o.kinds)
		if len(failing) < opt.Examples && o.sc != nil {
			failing = append(failing, i)
		}
	}
	examples := make([]ChaosExample, len(failing))
	errs := make([]error, len(failing))
	for i, at := range failing {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := results[at]
			examples[i], errs[i] = example(ctx, opt.Seed+int64(at), *o.sc, o.notes, opt)
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return ChaosReport{}, err
	}
	if err := errors.Join(errs...); err != nil {
		return ChaosReport{}, err
	}
	rep.Examples = append(rep.Examples, examples...)
	return rep, nil
}

// examplesKept decides which violating runs keep their scenario for an
// example, so that a long batch does not hold every violating scenario:
// run i keeps it while fewer than the examples wanted have violated at a
// lower index so far. Runs finish out of order, so a few more may keep
// theirs than needed, never fewer.
type examplesKept struct {
	mu    sync.Mutex
	found []int
}

func (k *examplesKept) wants(i, examples int) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	below := 0
	for _, j := range k.found {
		if j < i {
			below++
		}
	}
	if below >= examples {
		return false
	}
	k.found = append(k.found, i)
	return true
}

// runOne generates the scenario of one seed, runs it and judges it. A run
// that violates is run once more with its faults removed: if it still
// violates, its clients were misconfigured and the faults are not to
// blame.
func runOne(ctx context.Context, seed int64, opt ChaosOptions) outcome {
	sc, notes, res, err := generate(ctx, seed, opt)
	if err != nil {
		return outcome{err: err}
	}
	if res == nil {
		if res, err = opt.run(ctx, sc); err != nil {
			return outcome{err: err}
		}
	}
	h := res.History()
	o := outcome{kinds: Violations(res.Summary), lin: h.Check(DefaultCheckTimeout), faulted: struck(res.Events),
		forgot: res.Summary.ForgottenGrants > 0 || res.Summary.ForgottenReleases > 0 || res.Summary.ForgottenEndedGrants > 0 ||
			res.Summary.LostRenewals > 0,
		splitBrain: res.Summary.SplitBrainGrants > 0}
	if o.lin == LinearizableIllegal {
		o.byClock = h.ClockNote(DefaultCheckTimeout) != ""
	}
	if len(o.kinds) == 0 {
		return o
	}
	bare := sc.clone()
	bare.Faults = nil
	plain, err := opt.run(ctx, bare)
	if err != nil {
		return outcome{err: err}
	}
	if len(Violations(plain.Summary)) > 0 {
		o.misconfigured = true
		return o
	}
	o.sc, o.notes = &sc, notes
	return o
}

// example shrinks the violation of one generated scenario and describes
// it. The shrinker keeps at least one fault: a violation is its faults'.
func example(ctx context.Context, seed int64, sc Scenario, notes map[string]aimed, opt ChaosOptions) (ChaosExample, error) {
	var first string
	fails := func(s Summary) bool {
		kinds := Violations(s)
		if first == "" && len(kinds) > 0 {
			first = kinds[0]
		}
		return first != "" && slices.Contains(kinds, first)
	}
	withFaults := func(ctx context.Context, s Scenario) (*Result, error) {
		if len(s.Faults) == 0 {
			return nil, errNoFault
		}
		return opt.run(ctx, s)
	}
	small, res := shrink(ctx, sc, fails, withFaults)
	if res == nil {
		// The shrinker could not even run it again (no slot came free).
		var err error
		if res, err = opt.run(ctx, sc); err != nil {
			return ChaosExample{}, fmt.Errorf("chaos seed %d: %w", seed, err)
		}
		small = sc
	}
	if len(Violations(res.Summary)) == 0 {
		return ChaosExample{}, fmt.Errorf("chaos seed %d: the violation did not happen again", seed)
	}
	h := res.History()
	ex := ChaosExample{Seed: seed, Why: why(res.Summary), Kinds: Violations(res.Summary),
		Linearizability: h.Check(DefaultCheckTimeout), Aims: aimsOf(small, sc, notes), Summary: res.Summary, Scenario: small}
	if ex.Linearizability == LinearizableIllegal {
		ex.ClockNote = h.ClockNote(DefaultCheckTimeout)
	}
	return ex, nil
}

// errNoFault keeps the shrinker from dropping an example's last fault.
var errNoFault = errors.New("an example keeps at least one fault")

// aimsOf says what the faults the shrunk scenario still has were aimed at.
// The shrinker moves faults earlier and shortens them but never changes
// what they do to whom, so each remaining fault is matched to the first
// generated fault of the same kind and target not matched yet. An aim's
// words hold the generated faults' numbers; when the shrinker changed
// them, the aim says so and gives the example's own, so that no number
// in it contradicts the scenario it stands beside. An aim that placed
// several faults (a crash and its restart) is one line, which names each
// fault the shrinker moved and each it left out.
func aimsOf(small, generated Scenario, notes map[string]aimed) []string {
	matched := make([]*Fault, len(generated.Faults))
	var order []string // the aims' notes, in the order of the example's faults
	for _, f := range small.Faults {
		for i, g := range generated.Faults {
			if matched[i] != nil || !sameFault(f, g) {
				continue
			}
			matched[i] = &f
			if a, ok := notes[g.key()]; ok && !slices.Contains(order, a.note) {
				order = append(order, a.note)
			}
			break
		}
	}
	out := []string{}
	for _, note := range order {
		var group []int // the generated faults this aim placed
		for i, g := range generated.Faults {
			if a, ok := notes[g.key()]; ok && a.note == note {
				group = append(group, i)
			}
		}
		var moved string
		if len(group) == 1 {
			moved = shrunkWords(generated.Faults[group[0]], *matched[group[0]])
		} else {
			var parts []string
			for _, i := range group {
				g := generated.Faults[i]
				switch {
				case matched[i] == nil:
					parts = append(parts, faultSubject(g)+" is left out")
				case shrunkParts(g, *matched[i]) != nil:
					parts = append(parts, faultSubject(g)+" "+strings.Join(shrunkParts(g, *matched[i]), ", "))
				}
			}
			if len(parts) > 0 {
				moved = "in the example, " + strings.Join(parts, "; ")
			}
		}
		if moved != "" {
			note += " (as generated; " + moved + ")"
		}
		out = append(out, note)
	}
	return out
}

// sameFault reports whether f could be generated fault g as the shrinker
// left it: the same kind of fault on the same target (or side).
func sameFault(f, g Fault) bool {
	return f.Do == g.Do && f.Target == g.Target && f.Kind == g.Kind && f.Rate == g.Rate && slices.Equal(f.Side, g.Side)
}

// faultSubject names a fault in an aim's words: "node-1's restart", "the
// partition of client-1, node-4, node-5".
func faultSubject(f Fault) string {
	what := map[string]string{FaultLoseDisk: "disk loss", FaultClockJump: "clock jump", FaultClockDrift: "clock drift",
		FaultDelay: "held " + f.Kind}[f.Do]
	if what == "" {
		what = f.Do
	}
	if f.Target == "" {
		return "the " + what + " of " + strings.Join(f.Side, ", ")
	}
	return f.Target + "'s " + what
}

// shrunkWords says how the shrinker changed generated fault g into f:
// "the example's strikes at 4s, for 13.3s", or "" when it did not.
func shrunkWords(g, f Fault) string {
	parts := shrunkParts(g, f)
	if len(parts) == 0 {
		return ""
	}
	return "the example's " + strings.Join(parts, ", ")
}

// shrunkParts lists the shrinker's changes to generated fault g that
// made f: "strikes at 4s", "for 13.3s", "by 2s".
func shrunkParts(g, f Fault) []string {
	var parts []string
	if f.At.MS() != g.At.MS() {
		parts = append(parts, "strikes at "+FormatMS(f.At.MS()))
	}
	if f.For.MS() != g.For.MS() {
		parts = append(parts, "for "+FormatMS(f.For.MS()))
	}
	if f.By.MS() != g.By.MS() {
		parts = append(parts, "by "+FormatMS(f.By.MS()))
	}
	return parts
}

// struck reports whether any fault took effect in a timeline.
func struck(events []Event) bool {
	for _, e := range events {
		switch e.Kind {
		case KindPauseStart, KindDelayed, KindNodeCrashed, KindNodeRestarted, KindPartitioned, KindClockJump, KindClockDrift:
			return true
		}
	}
	return false
}
