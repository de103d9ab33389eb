package engine

import (
	"fmt"
	"slices"
	"strings"
)

// Heading is what a finished run is headed by: the one thing that
// happened, in words the page shows as they are. A run whose data came out
// right is "Safe" only if the scenario's work got done: a run where nobody
// could write, a client that never got the lock, or a run stopped before
// its end is headed by that instead (SCENARIOS.md, the summary).
type Heading struct {
	// Kind is one of "unsafe", "lock_broken", "stopped", "unavailable",
	// "incomplete" and "safe": the page styles the heading by it.
	Kind string `json:"kind"`
	// Title is the heading itself ("Unavailable for 36s").
	Title string `json:"title"`
	// Detail says what happened, when the title alone does not
	// ("no write happened", "client-2 never got the lock").
	Detail string `json:"detail,omitempty"`
	// Checks is the engine's verdict without its first word ("SAFE",
	// "UNSAFE"), which the title replaces: what it checked, in words.
	Checks string `json:"checks"`
}

// Heading kinds.
const (
	HeadUnsafe      = "unsafe"
	HeadLockBroken  = "lock_broken"
	HeadStopped     = "stopped"
	HeadUnavailable = "unavailable"
	HeadIncomplete  = "incomplete"
	HeadSafe        = "safe"
)

// HeadingOf heads a run of sc that ended with events and summary s;
// stopped says the run was stopped before its end. The web page, the API
// and the command line head a run by it.
func HeadingOf(sc Scenario, events []Event, s Summary, stopped bool) Heading {
	h := heading(sc, events, s, stopped)
	v := Verdict(s)
	if _, rest, ok := strings.Cut(v, ": "); ok {
		v = rest
	}
	h.Checks = strings.ToUpper(v[:1]) + v[1:]
	return h
}

func heading(sc Scenario, events []Event, s Summary, stopped bool) Heading {
	if !s.Safe {
		h := Heading{Kind: HeadUnsafe, Title: "Unsafe"}
		if stopped {
			h.Detail = "stopped at " + FormatMS(s.EndMS) + ", after the failure"
		}
		return h
	}
	if s.DoubleGrants > 0 || s.DuplicateTokens > 0 {
		return Heading{Kind: HeadLockBroken, Title: "Data safe, lock broken", Detail: lockBroken(events, s)}
	}
	if stopped {
		return Heading{Kind: HeadStopped, Title: "Stopped at " + FormatMS(s.EndMS),
			Detail: "the run was stopped before its end: what follows covers what happened so far"}
	}
	missing := undone(sc, events, s)
	if s.Truncated {
		missing = append(missing, "the run was cut off at the event limit")
	}
	if len(missing) == 0 {
		return Heading{Kind: HeadSafe, Title: "Safe"}
	}
	detail := strings.Join(missing, "; ")
	if s.UnavailableMS > 0 {
		return Heading{Kind: HeadUnavailable, Title: "Unavailable for " + FormatMS(s.UnavailableMS), Detail: detail}
	}
	return Heading{Kind: HeadIncomplete, Title: "Incomplete", Detail: detail}
}

// lockBroken names the first token handed out twice, or the first grant
// made while another was live.
func lockBroken(events []Event, s Summary) string {
	if s.DuplicateTokens > 0 {
		seen := map[int64]string{}
		for _, e := range events {
			if e.Kind != KindGranted || e.Token == 0 {
				continue
			}
			if first, ok := seen[e.Token]; ok {
				return fmt.Sprintf("token %d handed out twice (%s, then %s)", e.Token, first, e.Actor)
			}
			seen[e.Token] = e.Actor
		}
	}
	if s.DoubleGrants == 1 {
		return "the lock was granted while another client's lease still ran"
	}
	return fmt.Sprintf("the lock was granted %d times while another client's lease still ran", s.DoubleGrants)
}

// undone lists what the scenario asked for and did not get: clients that
// wanted the lock and never got it, and the writes when none happened.
func undone(sc Scenario, events []Event, s Summary) []string {
	granted := map[string]bool{}
	for _, e := range events {
		if e.Kind == KindGranted {
			granted[e.Actor] = true
		}
	}
	var never []string
	wantsWork := false
	for _, c := range sc.Clients {
		for _, st := range c.Steps {
			switch st.Do {
			case StepAcquire:
				if !granted[c.Name] && !slices.Contains(never, c.Name) {
					never = append(never, c.Name)
				}
			case StepWrite, StepClaim, StepSend:
				wantsWork = true
			}
		}
	}
	var out []string
	if wantsWork && s.WritesAccepted+s.WritesRefused+s.ClaimsWon+s.ClaimsLost+s.SideEffects == 0 {
		out = append(out, "no write happened")
	}
	switch len(never) {
	case 0:
	case 1:
		out = append(out, never[0]+" never got the lock")
	default:
		out = append(out, strings.Join(never, " and ")+" never got the lock")
	}
	return out
}
