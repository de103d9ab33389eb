package engine

// Event is one entry of the timeline. Every event has T, Actor and Kind; the
// other fields depend on the kind (see the Kind constants).
type Event struct {
	T     int64  `json:"t"`
	Actor string `json:"actor"`
	Kind  string `json:"kind"`

	Client     string `json:"client,omitempty"`
	Node       string `json:"node,omitempty"`
	Term       int64  `json:"term,omitempty"` // leader events of a Raft group: the term it was elected in
	Holder     string `json:"holder,omitempty"`
	Token      int64  `json:"token,omitempty"`
	LeaseUntil int64  `json:"lease_until,omitempty"`
	Until      int64  `json:"until,omitempty"`
	For        int64  `json:"for,omitempty"`
	Value      *int64 `json:"value,omitempty"`
	Fence      *int64 `json:"fence,omitempty"`
	Add        *int64 `json:"add,omitempty"`
	Set        *int64 `json:"set,omitempty"`
	SQL        string `json:"sql,omitempty"`
	Rows       *int64 `json:"rows,omitempty"`
	Message    string `json:"message,omitempty"`
	Reason     string `json:"reason,omitempty"`
	Attempt    int    `json:"attempt,omitempty"`
	By         int64  `json:"by,omitempty"` // a clock jump, signed
	// Stale marks an accepted write from a client the lock service no
	// longer counted as holder, after a newer holder had begun: the
	// summary's stale_writes_accepted counts these events.
	// On a check_ok or check_failed answered from a node's own state (a
	// lease or follower read), Stale marks an answer that differs from
	// what a read through the log would have said then: the summary's
	// stale_reads counts these.
	Stale bool `json:"stale,omitempty"`
	// Rate is what a drifting clock reads per true second (clock_drift).
	Rate float64 `json:"rate,omitempty"`
	// Ended marks a grant_forgotten whose grant's lease had already ended
	// (it ran out, or was released): its holder lost nothing, but the
	// service forgot the token with it, which it can hand out again. The
	// summary's forgotten_ended_grants counts these events.
	Ended bool `json:"ended,omitempty"`
	// RenewalsLost marks a lease_expired that ended a lease early: the
	// lock service kept the grant without the renewals that held it (an
	// old save, a replica or a leader whose log lacks their copies), so it
	// let others in before the lease its holder was last granted ran out.
	// The summary's lost_renewals counts these events.
	RenewalsLost bool `json:"renewals_lost,omitempty"`
}

// Actors that are neither clients nor lock nodes (node-1, node-2 ...).
const (
	ActorStorage = "storage" // the SQL storage: write, claim and fenced-read verdicts
	ActorSMS     = "sms"     // the SMS provider, an outside service that checks no token
	ActorEngine  = "engine"  // the simulation itself: truncation, ignored faults
)

// Event kinds. Client events have the client as actor; storage events have
// "storage"; lock-service events have the node.
const (
	KindGranted        = "granted"         // token, lease_until, node
	KindAcquireRefused = "acquire_refused" // holder, node, reason
	KindRenewed        = "renewed"         // token, lease_until, node
	KindRenewRefused   = "renew_refused"   // token, node, reason
	KindReleased       = "released"        // token, node
	KindReleaseRefused = "release_refused" // token, node, reason
	KindCheckOK        = "check_ok"        // token, lease_until, node
	KindCheckFailed    = "check_failed"    // token, node, reason
	KindUnavailable    = "unavailable"     // message (the operation), reason: no lock server answered
	KindRead           = "read"            // value, fence; with fencing, token and the sql that raised the fence
	KindReadRefused    = "read_refused"    // token, fence, sql, rows: a newer holder's token is stored
	KindWork           = "work"            // for, until
	KindWriteSent      = "write_sent"      // token, add or set
	KindWriteAccepted  = "write_accepted"  // storage: client, token, value, fence, sql, rows
	KindWriteRefused   = "write_refused"   // storage: client, token, value, fence, sql, rows, reason
	KindClaimWon       = "claim_won"       // storage: client, sql, rows, message (the row's key)
	KindClaimLost      = "claim_lost"      // storage: client, holder, sql, rows, reason, message (the row's key)
	KindSMSRequested   = "sms_requested"   // client: message; the request is on its way to the provider
	KindSMSSent        = "sms_sent"        // provider: client, message
	KindSMSDropped     = "sms_dropped"     // provider: client, message, reason
	KindPauseStart     = "pause_start"     // until
	KindPauseEnd       = "pause_end"
	KindDelayed        = "message_delayed" // message (kind), for
	KindLockLost       = "lock_lost"       // token, reason: the worker learns it lost the lock
	KindRenewTimeout   = "renew_timeout"   // token, for, message: a renewal got no answer within renew_timeout
	KindRenewStopped   = "renew_stopped"   // token, reason: the renewal loop stops (a refusal, or its own clock); the worker is not told
	KindGaveUp         = "gave_up"         // reason
	KindRetrying       = "retrying"        // attempt
	KindCrashed        = "crashed"
	KindDone           = "done"
	KindLeader         = "leader"        // a node serves as leader or primary; term (Raft)
	KindLeaseExpired   = "lease_expired" // node: holder, token
	// KindAnswerLost: node: client, token, message (the command), reason:
	// applied, but the answer never reached the client; lease_until: the
	// lease an acquire or renew granted, which the service holds unheard.
	// When a new leader committed, in its own term, an entry its
	// predecessor appended and never answered (ambiguous.go), it carries
	// term too.
	KindAnswerLost = "answer_lost"
	// KindEntryLost: an entry its leader appended and never committed, which
	// the next leader (the actor) never had: node, term, client, message
	// (the command), reason.
	KindEntryLost = "entry_lost"
	KindTruncated = "truncated" // the run hit the event limit

	// Lock-server faults and what follows them (actor: the node).
	KindNodeCrashed    = "node_crashed"
	KindNodeRestarted  = "node_restarted"   // message: what it came back with
	KindPartitioned    = "partitioned"      // until
	KindHealed         = "partition_healed" //
	KindSteppedDown    = "stepped_down"     // a cut-off leader gives up leading
	KindNoLeader       = "no_leader"        // reason: nobody can serve
	KindRejoined       = "rejoined"         // a node comes back as a replica
	KindGrantForgotten = "grant_forgotten"  // holder, token, reason: the service lost a grant
	// KindReleaseForgotten: the service lost a release (an old save, a
	// replica without the copy), so a lock already given back is held again
	// by its record: holder, token, lease_until, reason.
	KindReleaseForgotten = "release_forgotten"
	KindClockJump        = "clock_jump"    // by (signed ms); actor: a node or a client
	KindClockDrift       = "clock_drift"   // rate, for, until; actor: a node or a client; rate 1 when it ends
	KindFaultIgnored     = "fault_ignored" // reason: the fault could not apply then

	// Chubby's lock-delay, for any backend with leases (actor: the node).
	KindLockDelay = "lock_delay" // node: holder, token, for, until: a lease ended without a release; nobody gets the lock until then
)

// Kinds of the careful client's own watch.
const (
	// KindWorkInterrupted: reason. A careful client's lease watch
	// (interrupt) stopped a work step: the lease ran out by its own clock
	// or its renewals stopped.
	KindWorkInterrupted = "work_interrupted"
)

// Summary condenses a run. An auditor keeps it from outside, reading every
// event as it is emitted and the lock service's own record of grants and
// expiries in true simulated time, not what clients believe (except
// OverlapMS, which is about belief). Every count can be made again from
// the events: a stale write is an accepted write whose event says
// "stale": true.
type Summary struct {
	FinalValue     int64 `json:"final_value"`
	ExpectedValue  int64 `json:"expected_value"`
	LostUpdate     bool  `json:"lost_update"`
	WritesAccepted int   `json:"writes_accepted"`
	WritesRefused  int   `json:"writes_refused"`
	// HolderWritesRefused counts the refused writes whose writer the lock
	// service counted as its holder (their events name it as holder; while
	// two primaries serve at once, by either one's record): a token handed
	// out again, lower than one the storage had seen, or a higher one the
	// other primary granted, not a stale writer. Absent when none.
	HolderWritesRefused int `json:"holder_writes_refused,omitempty"`
	// SplitBrainWritesRefused counts, among HolderWritesRefused, those whose
	// higher token another primary granted, serving the other side of a
	// partition: no token was handed out again, two primaries each
	// granted the lock (their events' reason says so). Absent when none.
	SplitBrainWritesRefused int `json:"split_brain_writes_refused,omitempty"`
	// ForgottenGrantWritesRefused counts, among HolderWritesRefused, those
	// whose higher token came from a grant the lock service made after the
	// writer's and then forgot (a promoted replica that never got its
	// copy): no token was handed out again, the service went back to a
	// record that still counts the writer (their events' reason says so).
	// Absent when none.
	ForgottenGrantWritesRefused int `json:"forgotten_grant_writes_refused,omitempty"`
	StaleWritesAccepted         int `json:"stale_writes_accepted"`
	StaleReads                  int `json:"stale_reads"`
	// OverlapMS is the time during which two or more clients believed
	// they held the lock: a length, so beliefs that begin and end at one
	// instant add nothing, even two at once under a broken lock (that
	// second grant is a DoubleGrants).
	OverlapMS    int64 `json:"overlap_ms"`
	DoubleGrants int   `json:"double_grants"`
	// SplitBrainGrants counts the double grants two primaries made, each
	// serving its own side of a partition: one granted the lock while the
	// lease it overlaps was granted or last renewed by the other (an
	// async-replica primary the monitor replaced, which goes on answering
	// the clients it reaches). Absent when none.
	SplitBrainGrants int   `json:"split_brain_grants,omitempty"`
	DuplicateTokens  int   `json:"duplicate_tokens"`
	UnavailableMS    int64 `json:"unavailable_ms"`
	// CutOffMS is the part of UnavailableMS during which the lock service
	// could serve (a server up, a leader with a majority) but a partition
	// cut every client off from it. Absent when none.
	CutOffMS             int64 `json:"cut_off_ms,omitempty"`
	SideEffects          int   `json:"side_effects"`
	DuplicateSideEffects int   `json:"duplicate_side_effects"`
	ClaimsWon            int   `json:"claims_won"`
	ClaimsLost           int   `json:"claims_lost"`
	Grants               int   `json:"grants"`
	// ForgottenGrants counts the grants the lock service lost while their
	// lease ran (a restart from an older save, a promoted replica that
	// never got the copy, a leader elected after a lost disk took the
	// grant's copies): the holder's next renewal or release is
	// refused as if it held nothing, so the service's history is not a
	// lock's even when nobody else got the lock. Absent when none.
	ForgottenGrants int `json:"forgotten_grants,omitempty"`
	// ForgottenEndedGrants counts the grants the lock service lost after
	// their lease ended (ran out or was released), with their token: the
	// holder lost nothing, but the token counter went back, so a token
	// already handed out can be handed out again. Absent when none.
	ForgottenEndedGrants int `json:"forgotten_ended_grants,omitempty"`
	// ForgottenReleases counts the releases the lock service lost (a
	// restart from a save older than the release, a promoted replica that
	// never got it) while the released lease still ran by its record: the
	// lock came back to a holder that had given it up, and others were
	// refused as though it held it. Absent when none.
	ForgottenReleases int `json:"forgotten_releases,omitempty"`
	// LostRenewals counts the leases the lock service ended early because
	// it lost the renewals that kept them (lease_expired events with
	// renewals_lost): it kept the grant, but by an older lease, and let
	// others in while the lease its holder was last granted still ran.
	// Absent when none.
	LostRenewals int   `json:"lost_renewals,omitempty"`
	EndMS        int64 `json:"end_ms"`
	Truncated    bool  `json:"truncated"`
	Safe         bool  `json:"safe"`
	// LockSafe: no double grant and no duplicate token, the lock kept its
	// promise. Safe with LockSafe false is never headed "SAFE".
	LockSafe bool `json:"lock_safe"`
}

// Result is a finished run: the timeline and its summary.
type Result struct {
	Events  []Event `json:"events"`
	Summary Summary `json:"summary"`
	// Messages are the run's messages, when Options.Messages asked for
	// them (nil otherwise); MessagesTruncated says the run had more than
	// MaxMessages. Neither is part of the timeline's JSON.
	Messages          []Message `json:"-"`
	MessagesTruncated bool      `json:"-"`

	history *History
}

// History returns the run's lock-service operations for a linearizability
// check (empty where a client counts a majority of independent servers,
// which are not one lock).
func (r *Result) History() *History {
	if r.history == nil {
		return &History{}
	}
	return r.history
}
