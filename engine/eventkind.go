package engine

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// EventKind is an event kind a backend adds to the timeline (its entry's
// Kinds): what it means, and how the page marks it. The page draws it from
// this declaration alone, so a backend's events need no drawing code of
// their own.
type EventKind struct {
	// Kind is the event's kind ("lease_moved"). Doc says what it
	// means and which fields it carries, as docs/scenarios.md does.
	Kind string `json:"kind"`
	Doc  string `json:"-"`
	// Lane is where the timeline marks it: "node" on the lane of its actor
	// (a lock server), "client" among its client's requests; "" not at
	// all.
	Lane string `json:"lane,omitempty"`
	// Shape is its mark's picture, "diamond" or "dot", and Class its style
	// (site.css). The mark's id (its elements' data-mark and data-testid,
	// and its legend entry) is the kind with dashes ("session-expired",
	// MarkID).
	Shape string `json:"shape,omitempty"`
	Class string `json:"class,omitempty"`
	// Title is the mark's tooltip (empty: its reason and time, "{reason}
	// ({at})") and Label its words beside it, with
	// {client}, {holder}, {token}, {node}, {message} and {reason} read
	// from the event, {at} its time and {until} its lease_until.
	Title string `json:"title,omitempty"`
	Label string `json:"label,omitempty"`
	// Legend is its line in the timeline's legend.
	Legend string `json:"legend,omitempty"`
	// Lease: the event moves its holder's lease to end at its lease_until
	// (a lock service that extends a lease it did not grant).
	Lease bool `json:"lease,omitempty"`
	// Back: the event gives its holder the lock again in the service's
	// record, its lease running to lease_until (a grant the service had
	// forgotten that a node it answers from still holds): the lock panel
	// shows that holder again, and the timeline opens its lease anew.
	Back bool `json:"back,omitempty"`

	// describe says the event in one line (Describe); nil: its reason, or
	// else its message.
	describe func(e Event) string
}

// classRE is a mark's style: class names, which the page writes into its
// markup as they are.
var classRE = regexp.MustCompile(`^[a-z][a-z0-9-]*( [a-z][a-z0-9-]*)*$`)

// markShapes are the pictures a kind's mark may take.
var markShapes = []string{"diamond", "dot"}

// commonKinds are the event kinds the engine emits under every backend. The
// page draws them with code of its own, so a backend's kind of the same name
// would never be drawn as its entry says: RegisterBackend refuses it.
// TestCommonKindsListsEveryKind keeps the list whole.
var commonKinds = []string{KindGranted, KindAcquireRefused, KindRenewed, KindRenewRefused, KindReleased,
	KindReleaseRefused, KindCheckOK, KindCheckFailed, KindUnavailable, KindRead, KindReadRefused, KindWork,
	KindWriteSent, KindWriteAccepted, KindWriteRefused, KindClaimWon, KindClaimLost, KindSMSRequested,
	KindSMSSent, KindSMSDropped, KindPauseStart, KindPauseEnd, KindDelayed, KindLockLost, KindRenewTimeout,
	KindRenewStopped, KindGaveUp, KindRetrying, KindCrashed, KindDone, KindLeader, KindLeaseExpired,
	KindAnswerLost, KindEntryLost, KindTruncated, KindNodeCrashed, KindNodeRestarted, KindPartitioned,
	KindHealed, KindSteppedDown, KindNoLeader, KindRejoined, KindGrantForgotten, KindReleaseForgotten, KindClockJump,
	KindClockDrift, KindFaultIgnored, KindLockDelay, KindWorkInterrupted, KindDiskLost}

// checkKinds refuses an entry whose kinds lack a name or a documentation
// line, take a common kind's name, repeat a kind, or are marked on an
// unknown lane or with an unknown shape.
func checkKinds(b Backend) error {
	seen := map[string]bool{}
	for _, k := range b.Kinds {
		switch {
		case !nameRE.MatchString(k.Kind) || k.Doc == "":
			return fmt.Errorf("backend %q: event kind %q needs a name and a documentation line", b.Name, k.Kind)
		case slices.Contains(commonKinds, k.Kind):
			return fmt.Errorf("backend %q: event kind %q is one every backend has: give its own kind another name", b.Name, k.Kind)
		case seen[k.Kind]:
			return fmt.Errorf("backend %q: event kind %q is taken", b.Name, k.Kind)
		case k.Lane != "" && k.Lane != "node" && k.Lane != "client":
			return fmt.Errorf("backend %q: event kind %q: lane is \"node\", \"client\" or none", b.Name, k.Kind)
		case k.Lane != "" && (!slices.Contains(markShapes, k.Shape) || !classRE.MatchString(k.Class) || k.Legend == ""):
			return fmt.Errorf("backend %q: event kind %q: a marked kind needs a shape (%s), a style class and a legend line", b.Name, k.Kind, orList(markShapes))
		}
		seen[k.Kind] = true
	}
	return nil
}

// checkSharedKinds refuses a kind that another registered backend declares
// with another meaning: another documentation line, legend line or effect
// on the lease. The kind's mark, legend entry and words are one per kind,
// so the second meaning would silently go unsaid. A copy of a backend
// under another name keeps its kinds' meanings and may draw them its own
// way. The caller holds registryMu.
func checkSharedKinds(b Backend) error {
	for _, k := range b.Kinds {
		for _, o := range registry {
			i := slices.IndexFunc(o.Kinds, func(x EventKind) bool { return x.Kind == k.Kind })
			if i < 0 {
				continue
			}
			if x := o.Kinds[i]; x.Doc != k.Doc || x.Legend != k.Legend || x.Lease != k.Lease {
				return fmt.Errorf("backend %q: event kind %q is %q's already, with another meaning: keep its documentation, legend line and lease as they are, or name it otherwise", b.Name, k.Kind, o.Name)
			}
		}
	}
	return nil
}

// MarkID is the id of the timeline's mark of an event kind: the kind with
// dashes for underscores.
func MarkID(kind string) string { return strings.ReplaceAll(kind, "_", "-") }

// backendKind is the registered declaration of an event kind, if a backend
// declares it.
func backendKind(kind string) (EventKind, bool) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	for _, b := range registry {
		for _, k := range b.Kinds {
			if k.Kind == kind {
				return k, true
			}
		}
	}
	return EventKind{}, false
}

// describeKind says an event of a backend's own kind in words.
func describeKind(k EventKind, e Event) string {
	switch {
	case k.describe != nil:
		return k.describe(e)
	case e.Reason != "":
		return e.Reason
	}
	return e.Message
}
