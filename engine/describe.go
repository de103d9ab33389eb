package engine

import (
	"fmt"
	"strings"
)

// Describe says what an event means in one short line of plain words.
func Describe(e Event) string {
	switch e.Kind {
	case KindLeader:
		return e.Message
	case KindGranted:
		if e.Token == 0 {
			return fmt.Sprintf("holds the lock until %s by its own clock: %s", FormatMS(e.LeaseUntil), e.Message)
		}
		return fmt.Sprintf("granted token %d, %s (%s)", e.Token, leaseEndWords(e), e.Node)
	case KindAcquireRefused:
		return "asked for the lock: refused, " + e.Reason
	case KindRenewed:
		if e.Token == 0 {
			return fmt.Sprintf("renewed, until %s by its own clock: %s", FormatMS(e.LeaseUntil), e.Message)
		}
		s := fmt.Sprintf("renewed token %d, %s", e.Token, leaseEndWords(e))
		if e.Message != "" {
			s += " (" + e.Message + ")"
		}
		return s
	case KindRenewRefused:
		return "renewal refused: " + e.Reason
	case KindReleased:
		s := "released " + tokenWords(e.Token)
		if e.Token == 0 {
			s = "released the lock" // a backend without tokens
		}
		if e.Reason != "" {
			s += ", but " + e.Reason
		}
		return s
	case KindReleaseRefused:
		return "release refused: " + e.Reason
	case KindCheckOK:
		s := fmt.Sprintf("checked: still holds token %d until %s", e.Token, FormatMS(e.LeaseUntil))
		if e.Reason != "" {
			s += " " + e.Reason // whose clock, when it is off true time
		}
		if e.Token == 0 {
			s = fmt.Sprintf("checked: still holds the lock until %s", FormatMS(e.LeaseUntil))
		}
		if e.Message != "" {
			s += " (" + e.Message + ")"
		}
		return s
	case KindCheckFailed:
		s := "checked: no longer holds the lock, " + e.Reason
		if e.Message != "" {
			s += " (" + e.Message + ")"
		}
		return s
	case KindUnavailable:
		return fmt.Sprintf("%s got no answer: %s", e.Message, e.Reason)
	case KindRead:
		if e.SQL != "" {
			return fmt.Sprintf("read value %s; its token %d is now the fence", num(deref(e.Value)), e.Token)
		}
		return fmt.Sprintf("read value %s (fence %d)", num(deref(e.Value)), deref(e.Fence))
	case KindWork:
		return fmt.Sprintf("works for %s (until %s)", FormatMS(e.For), FormatMS(e.Until))
	case KindWorkInterrupted:
		return "stops its work: " + e.Reason
	case KindWriteSent:
		return fmt.Sprintf("sends a write of %s with %s", num(deref(e.Value)), tokenWords(e.Token))
	case KindWriteAccepted:
		s := fmt.Sprintf("accepted %s's write of %s (%s), rows changed: %d", e.Client, num(deref(e.Value)), tokenWords(e.Token), deref(e.Rows))
		if e.Reason != "" {
			s += "; " + e.Reason
		}
		return s
	case KindWriteRefused:
		return fmt.Sprintf("refused %s's write of %s: %s, rows changed: %d", e.Client, num(deref(e.Value)), e.Reason, deref(e.Rows))
	case KindClaimWon:
		return fmt.Sprintf("%s's claim on %s changed 1 row: it is %s's", e.Client, e.Message, e.Client)
	case KindClaimLost:
		return fmt.Sprintf("%s's claim on %s changed 0 rows: %s", e.Client, e.Message, e.Reason)
	case KindSMSRequested:
		return fmt.Sprintf("asks the SMS provider to send %q", e.Message)
	case KindSMSSent:
		return fmt.Sprintf("sent SMS %q for %s", e.Message, e.Client)
	case KindSMSDropped:
		return fmt.Sprintf("dropped SMS %q from %s: %s", e.Message, e.Client, e.Reason)
	case KindPauseStart:
		return fmt.Sprintf("freezes (stop-the-world pause) until %s", FormatMS(e.Until))
	case KindPauseEnd:
		return "wakes up from the pause, unaware of the time lost"
	case KindDelayed:
		return fmt.Sprintf("the network holds its %s message for %s (arrives at %s)", e.Message, FormatMS(e.For), FormatMS(e.Until))
	case KindRenewTimeout:
		return "renewal timed out: " + e.Message
	case KindRenewStopped:
		if e.Token == 0 {
			return fmt.Sprintf("stops renewing: %s; the job is not told", e.Reason)
		}
		return fmt.Sprintf("stops renewing token %d: %s; the job is not told", e.Token, e.Reason)
	case KindDiskLost:
		return e.Message
	case KindAnswerLost:
		return "applied, answer lost: " + e.Reason
	case KindEntryLost:
		return "an earlier leader's entry is lost: " + e.Reason
	case KindLockLost:
		if e.Token == 0 {
			return "learns it lost the lock: " + e.Reason
		}
		return fmt.Sprintf("learns it lost the lock (token %d): %s", e.Token, e.Reason)
	case KindGaveUp:
		return "gives up the job: " + e.Reason
	case KindRetrying:
		return fmt.Sprintf("retry %d: %s", e.Attempt, e.Message)
	case KindCrashed:
		return e.Message
	case KindDone:
		return "finished its job"
	case KindLeaseExpired:
		if e.Token == 0 {
			if e.Message != "" {
				return fmt.Sprintf("%s's lease ran out on all but a minority of servers: %s", e.Holder, e.Message)
			}
			return fmt.Sprintf("%s's lease ran out on all but a minority of servers", e.Holder)
		}
		if e.Message != "" {
			return fmt.Sprintf("the lease of %s (token %d) ran out: %s", e.Holder, e.Token, e.Message)
		}
		return fmt.Sprintf("the lease of %s (token %d) ran out", e.Holder, e.Token)
	case KindLockDelay:
		return e.Message
	case KindTruncated, KindNodeCrashed, KindNodeRestarted, KindSteppedDown, KindRejoined, KindHealed, KindClockJump, KindClockDrift:
		return e.Message
	case KindPartitioned:
		return fmt.Sprintf("%s, until %s", e.Message, FormatMS(e.Until))
	case KindNoLeader:
		return e.Message + e.Reason
	case KindGrantForgotten:
		return fmt.Sprintf("forgot %s's grant of token %d: %s", e.Holder, e.Token, e.Reason)
	case KindReleaseForgotten:
		if e.Token == 0 { // a backend with no token
			return fmt.Sprintf("forgot %s's release: %s", e.Holder, e.Reason)
		}
		return fmt.Sprintf("forgot %s's release of token %d: %s", e.Holder, e.Token, e.Reason)
	case KindFaultIgnored:
		return fmt.Sprintf("fault %q did nothing: %s", e.Message, e.Reason)
	case KindReadRefused:
		return fmt.Sprintf("read refused: %s, rows changed: %d", e.Reason, deref(e.Rows))
	}
	if k, ok := backendKind(e.Kind); ok {
		return describeKind(k, e) // a backend's own kind, as its entry says
	}
	if e.Message != "" {
		return e.Kind + ": " + e.Message
	}
	return e.Kind
}

// Verdict says in words what a run's summary means.
func Verdict(s Summary) string {
	var parts []string
	switch {
	case s.StaleWritesAccepted > 0 && s.LostUpdate:
		parts = append(parts, fmt.Sprintf("stale write accepted: %s landed and %s was lost (final %s, expected %s)",
			counted(s.StaleWritesAccepted, "stale write", "stale writes"), num(abs(s.ExpectedValue-s.FinalValue)), num(s.FinalValue), num(s.ExpectedValue)))
	case s.StaleWritesAccepted > 0:
		parts = append(parts, fmt.Sprintf("stale write accepted: %s landed from a client whose lease had ended", counted(s.StaleWritesAccepted, "write", "writes")))
	case s.LostUpdate:
		parts = append(parts, fmt.Sprintf("update lost: final %s, expected %s", num(s.FinalValue), num(s.ExpectedValue)))
	case s.WritesRefused > 0 && s.HolderWritesRefused == s.WritesRefused:
		parts = append(parts, fmt.Sprintf("the lock holder's own write was refused (%d refused): %s; final %s as expected",
			s.WritesRefused, holderRefusedWhy(s, "its token was handed out again, lower than one the storage had seen"), num(s.FinalValue)))
	case s.HolderWritesRefused > 0:
		parts = append(parts, fmt.Sprintf("every stale write was refused, and the lock holder's own %s (%d refused in all): %s; final %s as expected",
			counted(s.HolderWritesRefused, "write too", "writes too"), s.WritesRefused, holderRefusedWhy(s, "a token handed out again, lower than one the storage had seen"), num(s.FinalValue)))
	case s.WritesRefused > 0:
		parts = append(parts, fmt.Sprintf("every stale write was refused (%d refused); final %s as expected", s.WritesRefused, num(s.FinalValue)))
	case s.ClaimsWon > 0:
		parts = append(parts, fmt.Sprintf("%d claim won, %d changed 0 rows", s.ClaimsWon, s.ClaimsLost))
	default:
		parts = append(parts, fmt.Sprintf("no stale write; final %s as expected", num(s.FinalValue)))
	}
	if s.DoubleGrants > 0 {
		parts = append(parts, "the lock was granted twice at once "+counted(s.DoubleGrants, "time", "times")+splitBrainWords(s))
	}
	if s.DuplicateTokens > 0 {
		parts = append(parts, counted(s.DuplicateTokens, "token", "tokens")+" handed out twice: fencing cannot tell those holders apart")
	}
	if s.OverlapMS > 0 {
		parts = append(parts, fmt.Sprintf("two clients believed they held the lock for %s", FormatMS(s.OverlapMS)))
	}
	if s.ForgottenGrants > 0 {
		parts = append(parts, "the lock service forgot "+counted(s.ForgottenGrants, "grant", "grants")+" while its lease ran")
	}
	if s.ForgottenReleases > 0 {
		parts = append(parts, "the lock service forgot "+counted(s.ForgottenReleases, "release", "releases")+", so a lock already given back came back")
	}
	if n := s.ForgottenEndedGrants; n > 0 {
		parts = append(parts, "the lock service forgot "+counted(n, "grant", "grants")+" after "+pluralWord(n, "its lease", "their leases")+" ended, and with "+
			pluralWord(n, "it the token", "them the tokens")+" it had handed out")
	}
	if n := s.LostRenewals; n > 0 {
		parts = append(parts, "the lock service lost the renewals that kept "+counted(n, "lease", "leases")+", and ended "+pluralWord(n, "it", "them")+" early")
	}
	if down := s.UnavailableMS - s.CutOffMS; down > 0 {
		parts = append(parts, fmt.Sprintf("no lock server answered for %s", FormatMS(down)))
	}
	if s.CutOffMS > 0 {
		// The servers could serve: a partition kept every client away.
		parts = append(parts, fmt.Sprintf("a partition cut every client off from the lock service for %s", FormatMS(s.CutOffMS)))
	}
	if s.DuplicateSideEffects > 0 {
		parts = append(parts, counted(s.DuplicateSideEffects, "side effect", "side effects")+" happened twice")
	}
	if s.Truncated {
		parts = append(parts, "the run was cut off at the event limit")
	}
	verdict := "UNSAFE"
	switch {
	case s.Safe && !s.LockSafe:
		// The data came through, but the lock broke its promise: never
		// headed plainly safe.
		verdict = "DATA SAFE, LOCK BROKEN"
	case s.Safe:
		verdict = "SAFE"
	}
	return verdict + ": " + strings.Join(parts, "; ")
}

// leaseEndWords says a grant's or renewal's lease end, with the clock
// that set it when that clock was not true time (the event's reason).
func leaseEndWords(e Event) string {
	if e.Reason != "" {
		return fmt.Sprintf("lease until %s %s", FormatMS(e.LeaseUntil), e.Reason)
	}
	return "lease until " + FormatMS(e.LeaseUntil)
}

// counted says n of something in words: "1 write", "3 writes".
func counted(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return num(int64(n)) + " " + many
}

// tokenWords names a token, or says there is none (a backend without
// tokens).
func tokenWords(t int64) string {
	if t == 0 {
		return "no token"
	}
	return fmt.Sprintf("token %d", t)
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// num formats an integer with thousands separators (42,000).
func num(v int64) string {
	s := fmt.Sprint(abs(v))
	var b strings.Builder
	if v < 0 {
		b.WriteByte('-')
	}
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// holderRefusedWhy says why the lock holder's own writes were refused:
// its token handed out again (handedOut, the words for it), a higher
// token another primary granted on the other side of a partition
// (SplitBrainWritesRefused), a higher token from a grant the service
// then forgot (ForgottenGrantWritesRefused), or some of each with how
// many.
func holderRefusedWhy(s Summary, handedOut string) string {
	causes := []struct {
		n     int
		words string
	}{
		{s.HolderWritesRefused - s.SplitBrainWritesRefused - s.ForgottenGrantWritesRefused, handedOut},
		{s.SplitBrainWritesRefused, "another primary, serving the other side of a partition, had granted a higher token"},
		{s.ForgottenGrantWritesRefused, "a higher token came from a grant the lock service forgot"},
	}
	var parts []string
	for _, c := range causes {
		if c.n == s.HolderWritesRefused {
			return c.words
		}
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%s (%d)", c.words, c.n))
		}
	}
	return strings.Join(parts, ", or ")
}
