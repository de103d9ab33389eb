package lessons

import (
	"fmt"
	"strings"
)

// measureWords says what a run measured in words a learner reads without
// knowing the engine's field names: "two holders at once for 5 s", not
// "overlap_ms = 5,000". A name it does not know (an exercise's own
// parameter) is written as "name: value".
func measureWords(name string, v float64) string {
	secs := func(ms float64) string { return formatNumber(ms/1000) + " s" }
	n := func(one, many string) string {
		if v == 1 {
			return "1 " + one
		}
		if v == 0 {
			return "no " + many
		}
		return formatNumber(v) + " " + many
	}
	yes := v != 0
	switch name {
	case "final_value":
		return "the stored value ends at " + formatNumber(v)
	case "expected_value":
		return "with every update kept it would be " + formatNumber(v)
	case "lost_update":
		return pick(yes, "an update was lost", "no update was lost")
	case "writes_accepted":
		return n("write accepted", "writes accepted")
	case "writes_refused":
		return n("write refused", "writes refused")
	case "stale_writes_accepted":
		return n("stale write landed", "stale writes landed")
	case "overlap_ms":
		return pick(yes, "two holders at once for "+secs(v), "never two holders at once")
	case "double_grants":
		return n("lock granted twice", "locks granted twice")
	case "duplicate_tokens":
		return n("token handed out twice", "tokens handed out twice")
	case "unavailable_ms":
		return pick(yes, "no lock could be had for "+secs(v), "the lock service was always available")
	case "side_effects":
		return n("message sent", "messages sent")
	case "duplicate_side_effects":
		return n("message sent twice", "messages sent twice")
	case "claims_won":
		return n("claim won", "claims won")
	case "claims_lost":
		return n("claim lost", "claims lost")
	case "grants":
		return n("grant", "grants")
	case "end_ms":
		return "the run ended at " + secs(v)
	case "truncated":
		return pick(yes, "the run hit the event limit", "the run ended within the event limit")
	case "safe":
		return pick(yes, "the run stayed safe", "the run was not safe")
	case "lock_safe":
		return pick(yes, "the lock kept its promise", "the lock itself broke its promise")
	case "stale_reads":
		return n("check answered from an out-of-date copy", "checks answered from an out-of-date copy")
	case "blocked_after_crash_ms":
		return pick(yes, "the lock was blocked for "+secs(v)+" after the crash", "no one else got the lock after the crash")
	case "locks_lost":
		return n("holder learned it lost the lock", "holders learned they lost the lock")
	case "gave_up":
		return n("client gave up", "clients gave up")
	case "finished":
		return n("client finished its job", "clients finished their jobs")
	case "renewals":
		return n("renewal", "renewals")
	case "lease_ms":
		return "the lease is " + secs(v)
	case "fencing":
		return pick(yes, "fencing on", "fencing off")
	}
	return fmt.Sprintf("%s: %s", strings.ReplaceAll(name, "_", " "), formatNumber(v))
}

func pick(cond bool, a, b string) string {
	if cond {
		return a
	}
	return b
}
