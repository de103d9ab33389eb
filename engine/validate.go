package engine

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Bounds that keep one run small. Every number a scenario can carry has one.
const (
	MaxClients      = 10
	MaxSteps        = 50
	MaxFaults       = 50
	MaxNodes        = 5
	MaxEvents       = 10000
	MaxUntil        = 3600_000 // 1 h of simulated time, in ms
	MaxTitle        = 200
	MaxName         = 32
	MaxAmount       = 1_000_000_000_000
	MaxScenarioSize = 64 << 10 // bytes of JSON or YAML
	minLease        = 100
	minPeriod       = 10
	maxLatency      = 10_000
	maxLag          = 60_000
)

// Defaults filled in by Prepare.
const (
	DefaultLease      = 10_000
	DefaultFirstToken = 33
	DefaultNodes      = 3
	DefaultUntil      = 60_000
	DefaultRetryEvery = 1_000
	DefaultElection   = 1_000
	DefaultKey        = "account-42"
)

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)

// Prepare fills in sc's defaults and validates it. It returns the first
// validation error, which names the field and the bound; a scenario that
// passes can be run any number of times without being checked again.
func Prepare(sc Scenario) (*Prepared, error) {
	n := normalize(sc)
	if err := validate(&n); err != nil {
		return nil, err
	}
	return &Prepared{sc: n}, nil
}

// normalize fills in defaults without judging anything.
func normalize(sc Scenario) Scenario {
	n := sc.clone()
	if n.Lock.Backend == "" {
		n.Lock.Backend = DefaultBackend
	}
	if n.Lock.Nodes == 0 {
		n.Lock.Nodes = 1
		if b := backendEntry(n.Lock.Backend); b != nil {
			n.Lock.Nodes = b.DefaultNodes
		}
	}
	if !n.Lock.Lease.IsSet() {
		n.Lock.Lease = Ms(DefaultLease)
	}
	if n.Lock.FirstToken == 0 {
		n.Lock.FirstToken = DefaultFirstToken
	}
	if !n.Lock.Election.IsSet() {
		n.Lock.Election = Ms(DefaultElection)
	}
	if !n.Lock.Latency.IsSet() {
		n.Lock.Latency = Ms(0)
	}
	if n.Storage.Key == "" {
		n.Storage.Key = DefaultKey
	}
	if n.Storage.Table == "" {
		n.Storage.Table = TableRecords
	}
	if n.Lock.Name == "" {
		n.Lock.Name = n.Storage.Key
	}
	if !n.Until.IsSet() {
		n.Until = Ms(DefaultUntil)
	}
	for i := range n.Clients {
		c := &n.Clients[i]
		if !c.Start.IsSet() {
			c.Start = Ms(0)
		}
		if !c.RetryEvery.IsSet() {
			c.RetryEvery = Ms(DefaultRetryEvery)
		}
		if c.OnRefused == "" {
			c.OnRefused = OnRefusedStop
		}
	}
	return n
}

func validate(sc *Scenario) error {
	if len(sc.Title) > MaxTitle {
		return fieldErr("title", "must be at most %d characters", MaxTitle)
	}
	if len(sc.Question) > 4*MaxTitle {
		return fieldErr("question", "must be at most %d characters", 4*MaxTitle)
	}
	if len(sc.Watch) > 4*MaxTitle {
		return fieldErr("watch", "must be at most %d characters", 4*MaxTitle)
	}
	if err := sc.Until.check("until", 1000, MaxUntil); err != nil {
		return err
	}
	if err := validateLock(sc); err != nil {
		return err
	}
	if !slices.Contains(storageTables, sc.Storage.Table) {
		return fieldErr("storage.table", "must be one of %s, not %q", strings.Join(storageTables, ", "), sc.Storage.Table)
	}
	if err := validateName("storage.key", sc.Storage.Key, 64); err != nil {
		return err
	}
	if err := checkAmount("storage.initial", sc.Storage.Initial); err != nil {
		return err
	}
	if len(sc.Clients) == 0 {
		return fieldErr("clients", "at least one client is needed")
	}
	if len(sc.Clients) > MaxClients {
		return fieldErr("clients", "at most %d clients, not %d", MaxClients, len(sc.Clients))
	}
	seen := map[string]bool{}
	for i, c := range sc.Clients {
		p := fmt.Sprintf("clients[%d]", i)
		if err := validateClient(sc, p, c); err != nil {
			return err
		}
		if seen[c.Name] {
			return fieldErr(p+".name", "%q is used by another client", c.Name)
		}
		seen[c.Name] = true
	}
	if len(sc.Faults) > MaxFaults {
		return fieldErr("faults", "at most %d faults, not %d", MaxFaults, len(sc.Faults))
	}
	for i, f := range sc.Faults {
		if err := validateFault(sc, fmt.Sprintf("faults[%d]", i), f, sc.Until.MS()); err != nil {
			return err
		}
	}
	return checkFaultOrder(sc)
}

// hasTokens reports whether a backend hands out fencing tokens.
func hasTokens(backend string) bool {
	b := backendEntry(backend)
	return b != nil && b.Tokens
}

// leads reports whether a backend has a node that leads.
func leads(backend string) bool {
	b := backendEntry(backend)
	return b != nil && b.Leader
}

func validateLock(sc *Scenario) error {
	l := &sc.Lock
	b := backendEntry(l.Backend)
	if b == nil {
		return fieldErr("lock.backend", "unknown backend %q: use %s", l.Backend, strings.Join(Backends(), ", "))
	}
	if !slices.Contains(b.Nodes, l.Nodes) {
		return fieldErr("lock.nodes", "%s, not %d", b.NodesRule, l.Nodes)
	}
	if sc.Fencing && !b.Tokens {
		return fieldErr("fencing", "%s hands out no fencing token, so the storage has nothing to check: set fencing to false", strings.ToUpper(b.Name[:1])+b.Name[1:])
	}
	if err := l.Lease.check("lock.lease", minLease, MaxUntil); err != nil {
		return err
	}
	if l.FirstToken < 1 || l.FirstToken > MaxAmount {
		return fieldErr("lock.first_token", "must be between 1 and %d, not %d", int64(MaxAmount), l.FirstToken)
	}
	return validateOptions(b, l)
}

// validateOptions checks the lock fields only some backends take: set
// only where the backend takes it, and within the bounds its entry
// declares.
func validateOptions(b *Backend, l *Lock) error {
	opts, takers := allOptions()
	for _, o := range opts {
		path := "lock." + o.Name
		v := o.get(l)
		own, takes := b.option(o.Name)
		if !takes {
			own = o // the bounds where it is taken, so a bad value is named first
		}
		if err := v.check(path, own.Min, own.Max); err != nil {
			return err
		}
		if v.IsSet() && !takes {
			verb := "takes"
			if len(takers[o.Name]) > 1 {
				verb = "take"
			}
			return fieldErr(path, "only %s %s it, not %s", listWords(takers[o.Name], "and"), verb, b.Name)
		}
	}
	if err := l.Election.check("lock.election", 0, maxLag); err != nil {
		return err
	}
	if err := l.Latency.check("lock.latency", 0, maxLatency); err != nil {
		return err
	}
	return validateName("lock.name", l.Name, 64)
}

// stepKinds names the steps of the catalog, in order.
func stepKinds() []string {
	var out []string
	for _, s := range catalog().Steps {
		out = append(out, s.Do)
	}
	return out
}

func validateClient(sc *Scenario, p string, c Client) error {
	if c.Name == "" {
		return fieldErr(p+".name", "is required")
	}
	if err := validateName(p+".name", c.Name, MaxName); err != nil {
		return err
	}
	if reservedName(c.Name) {
		return fieldErr(p+".name", "%q names something else in the timeline (%s): choose another", c.Name, strings.Join(slices.Concat([]string{ActorStorage, ActorSMS, ActorEngine}, backendActors(), []string{TargetLeader, "node-N"}), ", "))
	}
	if err := c.Start.check(p+".start", 0, sc.Until.MS()); err != nil {
		return err
	}
	if err := c.RenewEvery.check(p+".renew_every", minPeriod, MaxUntil); err != nil {
		return err
	}
	if err := c.RenewTimeout.check(p+".renew_timeout", minPeriod, MaxUntil); err != nil {
		return err
	}
	if c.RenewTimeout.IsSet() && !c.RenewEvery.IsSet() {
		return fieldErr(p+".renew_timeout", "applies to renewals: set renew_every too, or leave renew_timeout out")
	}
	if err := c.RetryEvery.check(p+".retry_every", minPeriod, MaxUntil); err != nil {
		return err
	}
	if err := validateCareful(sc, p, c); err != nil {
		return err
	}
	if c.OnRefused != OnRefusedStop && c.OnRefused != OnRefusedRetry {
		return fieldErr(p+".on_refused", "must be \"stop\" or \"retry\", not %q", c.OnRefused)
	}
	if len(c.Steps) == 0 {
		return fieldErr(p+".steps", "at least one step is needed")
	}
	if len(c.Steps) > MaxSteps {
		return fieldErr(p+".steps", "at most %d steps, not %d", MaxSteps, len(c.Steps))
	}
	read := false
	for j, st := range c.Steps {
		sp := fmt.Sprintf("%s.steps[%d]", p, j)
		if err := validateStep(sp, st, read); err != nil {
			return err
		}
		if err := validateGuard(sc, sp, st); err != nil {
			return err
		}
		if err := validateRead(sc, sp, st); err != nil {
			return err
		}
		read = read || st.Do == StepRead
	}
	return nil
}

// validateCareful checks a careful client's options: each needs
// watch_lease, and the margin must leave some of the lease.
func validateCareful(sc *Scenario, p string, c Client) error {
	if err := c.LeaseMargin.check(p+".lease_margin", 0, sc.Lock.Lease.MS()-1); err != nil {
		return err
	}
	for _, o := range []struct {
		name string
		set  bool
	}{{"lease_margin", c.LeaseMargin.MS() > 0}, {"stop_on_renew_timeout", c.StopOnRenewTimeout}, {"interrupt", c.Interrupt}} {
		if o.set && !c.WatchLease {
			return fieldErr(p+"."+o.name, "applies to a careful client: set watch_lease to true too, or leave %s out", o.name)
		}
	}
	if c.StopOnRenewTimeout && !c.RenewEvery.IsSet() {
		return fieldErr(p+".stop_on_renew_timeout", "applies to renewals: set renew_every too, or leave stop_on_renew_timeout out")
	}
	return nil
}

func validateStep(sp string, st Step, read bool) error {
	if !slices.ContainsFunc(catalog().Steps, func(s StepCapability) bool { return s.Do == st.Do }) {
		return fieldErr(sp+".do", "unknown step %q: use one of %s", st.Do, strings.Join(stepKinds(), ", "))
	}
	needsFor := st.Do == StepWork || st.Do == StepPause
	if needsFor {
		if !st.For.IsSet() {
			return fieldErr(sp+".for", "is required for a %s step", st.Do)
		}
		if err := st.For.check(sp+".for", 1, MaxUntil); err != nil {
			return err
		}
	} else if st.For.IsSet() {
		return fieldErr(sp+".for", "only a work or pause step takes a duration")
	}
	if st.Do == StepWrite {
		switch {
		case st.Add == nil && st.Set == nil:
			return fieldErr(sp, "a write needs \"add\" or \"set\"")
		case st.Add != nil && st.Set != nil:
			return fieldErr(sp, "a write takes \"add\" or \"set\", not both")
		case st.Add != nil && !read:
			return fieldErr(sp+".add", "adds to the value read: put a read step before it")
		}
	} else if st.Add != nil || st.Set != nil {
		return fieldErr(sp, "only a write step takes \"add\" or \"set\"")
	}
	if st.Add != nil {
		if err := checkAmount(sp+".add", *st.Add); err != nil {
			return err
		}
	}
	if st.Set != nil {
		if err := checkAmount(sp+".set", *st.Set); err != nil {
			return err
		}
	}
	if st.Do != StepSend && (st.Message != "" || st.IdempotencyKey != "") {
		return fieldErr(sp, "only a send step takes \"message\" or \"idempotency_key\"")
	}
	if len(st.Message) > 64 || len(st.IdempotencyKey) > 64 {
		return fieldErr(sp, "message and idempotency_key must be at most 64 characters")
	}
	return nil
}

// validateGuard checks a write's guard: "txn", on a backend whose entry
// takes guarded writes.
func validateGuard(sc *Scenario, sp string, st Step) error {
	switch {
	case st.Guard == "":
		return nil
	case st.Do != StepWrite:
		return fieldErr(sp+".guard", "only a write step takes a guard")
	case st.Guard != GuardTxn:
		return fieldErr(sp+".guard", "must be %q or left out, not %q", GuardTxn, st.Guard)
	}
	if b := backendEntry(sc.Lock.Backend); b == nil || !b.Txn {
		var takers []string
		registryMu.RLock()
		for _, x := range registry {
			if x.Txn {
				takers = append(takers, x.Name)
			}
		}
		registryMu.RUnlock()
		return fieldErr(sp+".guard", "a guarded write is a transaction on the lock service's own store: only %s takes it, not %s", listWords(takers, "and"), sc.Lock.Backend)
	}
	return nil
}

// faultOf returns the catalog's entry for a fault kind.
func faultOf(do string) (FaultCapability, bool) {
	for _, f := range catalog().Faults {
		if f.Do == do {
			return f, true
		}
	}
	return FaultCapability{}, false
}

// field returns the fault's field of that name.
func (f FaultCapability) field(name string) (FieldCapability, bool) {
	for _, fc := range f.Fields {
		if fc.Name == name {
			return fc, true
		}
	}
	return FieldCapability{}, false
}

// validateFault checks one fault against the scenario; until bounds "at".
func validateFault(sc *Scenario, p string, f Fault, until int64) error {
	if err := f.At.check(p+".at", 0, until); err != nil {
		return err
	}
	if !f.At.IsSet() {
		return fieldErr(p+".at", "is required")
	}
	kind, ok := faultOf(f.Do)
	if !ok {
		var names []string
		for _, k := range catalog().Faults {
			names = append(names, k.Do)
		}
		return fieldErr(p+".do", "unknown fault %q: use one of %s", f.Do, strings.Join(names, ", "))
	}
	given := map[string]bool{"target": f.Target != "", "side": f.Side != nil, "for": f.For.IsSet(), "by": f.By.IsSet(), "kind": f.Kind != "", "rate": f.Rate != 0}
	for _, name := range []string{"target", "side", "for", "by", "kind", "rate"} {
		fc, takes := kind.field(name)
		switch {
		case fc.Required && !given[name]:
			if name == "target" {
				return fieldErr(p+".target", "is required: name a client or a lock node")
			}
			return fieldErr(p+"."+name, "is required for a %s", f.Do)
		case !takes && given[name]:
			return fieldErr(p+"."+name, "a %s takes no %q", f.Do, name)
		}
	}
	isClient := slices.ContainsFunc(sc.Clients, func(c Client) bool { return c.Name == f.Target })
	switch f.Do {
	case FaultPause, FaultDelay:
		if !isClient {
			return fieldErr(p+".target", "no client is named %q", f.Target)
		}
	case FaultClockJump, FaultClockDrift:
		if !isClient {
			if err := checkNodeTarget(sc, p, f, false); err != nil {
				return err
			}
		}
	case FaultPartition:
		if err := validatePartition(sc, p, f, isClient); err != nil {
			return err
		}
	case FaultCrash:
		// A client may die too (its messages in flight still arrive).
		if !isClient {
			if err := checkNodeTarget(sc, p, f, true); err != nil {
				return err
			}
		}
	default:
		if isClient {
			return fieldErr(p+".target", "%s aims at a lock node (node-1...) or the leader, not the client %q", f.Do, f.Target)
		}
		if err := checkNodeTarget(sc, p, f, f.Do != FaultRestart); err != nil {
			return err
		}
	}
	if f.Do == FaultLoseDisk {
		if err := validateLoseDisk(sc, p); err != nil {
			return err
		}
	}
	switch f.Do {
	case FaultPause, FaultPartition:
		return f.For.check(p+".for", 1, MaxUntil)
	case FaultDelay:
		if err := f.By.check(p+".by", 1, MaxUntil); err != nil {
			return err
		}
		if kinds := catalog().DelayKinds; !slices.Contains(kinds, f.Kind) {
			return fieldErr(p+".kind", "must be one of %s, not %q", strings.Join(kinds, ", "), f.Kind)
		}
	case FaultClockJump:
		if err := f.By.check(p+".by", -MaxUntil, MaxUntil); err != nil {
			return err
		}
		if f.By.MS() == 0 {
			return fieldErr(p+".by", "a clock jump of 0 changes nothing")
		}
	case FaultClockDrift:
		rate, _ := kind.field("rate")
		if !(f.Rate >= rate.Min && f.Rate <= rate.Max) {
			return fieldErr(p+".rate", "must be between %g and %g (what the clock reads per true second), not %g", rate.Min, rate.Max, f.Rate)
		}
		if f.Rate == 1 {
			return fieldErr(p+".rate", "a rate of 1 is the true rate: it changes nothing")
		}
		return f.For.check(p+".for", 1, MaxUntil)
	}
	return nil
}

// validatePartition checks a partition's side (or its one-node target).
func validatePartition(sc *Scenario, p string, f Fault, targetIsClient bool) error {
	switch {
	case f.Target != "" && f.Side != nil:
		return fieldErr(p+".side", "give a side or a target, not both (target is the shorthand for a side of one node)")
	case f.Target == "" && f.Side == nil:
		return fieldErr(p+".side", "is required: list the nodes, clients and \"storage\" cut off together (or give one node as target)")
	case f.Target != "":
		if targetIsClient {
			return fieldErr(p+".target", "a partition's target is one lock node; to cut off a client, list it in side")
		}
		return checkNodeTarget(sc, p, f, true)
	}
	if len(f.Side) == 0 {
		return fieldErr(p+".side", "lists nothing: name at least one node, client or \"storage\"")
	}
	nodes := 0
	if UsesLock(sc) {
		nodes = sc.Lock.Nodes
	}
	if max := nodes + len(sc.Clients) + 2; len(f.Side) > max {
		return fieldErr(p+".side", "lists %d entries; this scenario has only %d things to cut off", len(f.Side), max)
	}
	seen := map[string]bool{}
	everything, storage := 0, 0
	for j, name := range f.Side {
		ep := fmt.Sprintf("%s.side[%d]", p, j)
		if seen[name] {
			return fieldErr(ep, "%q is listed twice", name)
		}
		seen[name] = true
		switch {
		case name == SideStorage:
			storage++
		case slices.ContainsFunc(sc.Clients, func(c Client) bool { return c.Name == name }):
			everything++
		default:
			if err := checkNodeTarget(sc, ep, Fault{Do: FaultPartition, Target: name}, true); err != nil {
				var fe *FieldError
				if errors.As(err, &fe) {
					fe.Field = ep
				}
				return err
			}
			everything++
		}
	}
	if seen[TargetLeader] {
		everything-- // the leader is one of the nodes, perhaps one listed too
	}
	// With every node and client on the side, nothing of the lock group
	// is left on the other: the storage is either on the side too or
	// reachable from both, so nothing is cut off.
	if everything >= nodes+len(sc.Clients) {
		if storage > 0 {
			return fieldErr(p+".side", "lists every node, client and the storage: nothing is left to cut them off from")
		}
		return fieldErr(p+".side", "lists every node and client: nothing of the lock group is left on the other side, and the storage stays reachable from both, so nothing is cut off")
	}
	return nil
}

// checkNodeTarget checks a fault aimed at a lock node ("leader" allowed
// when leaderOK).
func checkNodeTarget(sc *Scenario, p string, f Fault, leaderOK bool) error {
	if !UsesLock(sc) {
		return fieldErr(p+".target", "no client uses the lock service, so there is no lock node to aim at")
	}
	if f.Target == TargetLeader {
		switch {
		case !leaderOK:
			return fieldErr(p+".target", "%s needs a node by name (node-1 to node-%d), not the leader", f.Do, sc.Lock.Nodes)
		case !leads(sc.Lock.Backend):
			return fieldErr(p+".target", "%s servers have no leader: name one, node-1 to node-%d", sc.Lock.Backend, sc.Lock.Nodes)
		}
		return nil
	}
	var n int
	if _, err := fmt.Sscanf(f.Target, "node-%d", &n); err != nil || f.Target != fmt.Sprintf("node-%d", n) || n < 1 || n > sc.Lock.Nodes {
		return fieldErr(p+".target", "no client or lock node is named %q (the nodes are node-1 to node-%d)", f.Target, sc.Lock.Nodes)
	}
	if f.Do == FaultPartition && sc.Lock.Nodes == 1 && !strings.Contains(p, ".side[") {
		return fieldErr(p+".target", "%s is the only lock server: it has no peer to be cut off from; crash it instead", f.Target)
	}
	return nil
}

// checkFaultOrder replays the node faults in time order and refuses a
// restart of a node that is not down then.
func checkFaultOrder(sc *Scenario) error {
	idx := make([]int, len(sc.Faults))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return int(sc.Faults[a].At.MS() - sc.Faults[b].At.MS()) })
	down := map[string]bool{}
	leaderCrashed := false
	for _, i := range idx {
		f := sc.Faults[i]
		switch {
		case f.Do == FaultCrash && f.Target == TargetLeader:
			leaderCrashed = true
		case f.Do == FaultCrash:
			down[f.Target] = true
		case f.Do == FaultRestart && !down[f.Target] && !leaderCrashed:
			return fieldErr(fmt.Sprintf("faults[%d].target", i), "%s is not down at %s: a restart must follow a crash of that node", f.Target, f.At)
		case f.Do == FaultRestart:
			down[f.Target] = false
		}
	}
	return nil
}

// reservedName reports whether a client name would be taken for another
// actor of the timeline (a registered backend's too), or a fault target.
func reservedName(name string) bool {
	return commonActor(name) || slices.Contains(backendActors(), name)
}

// commonActor reports whether name is an actor of every timeline (the
// storage, a node, ...) or a fault target.
func commonActor(name string) bool {
	switch name {
	case ActorStorage, ActorSMS, ActorEngine, TargetLeader:
		return true
	}
	var n int
	_, err := fmt.Sscanf(name, "node-%d", &n)
	return err == nil
}

func validateName(path, name string, max int) error {
	if len(name) > max {
		return fieldErr(path, "must be at most %d characters", max)
	}
	if !nameRE.MatchString(name) {
		return fieldErr(path, "%q must be letters, digits, '-' or '_'", name)
	}
	return nil
}

func checkAmount(path string, v int64) error {
	if v < -MaxAmount || v > MaxAmount {
		return fieldErr(path, "must be between -%d and %d", int64(MaxAmount), int64(MaxAmount))
	}
	return nil
}
