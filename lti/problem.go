package lti

import (
	"regexp"
	"strings"
)

// sendTimeoutWords are in the error of a send the queue cut off at its
// bound, before its claim ran out.
const sendTimeoutWords = "did not answer within"

// answeredStatus finds the status a platform answered in a score's error
// (postScore's "scores endpoint answered 503 Service Unavailable: ...").
var answeredStatus = regexp.MustCompile(`^scores endpoint answered (([1-5])[0-9]{2}[^:]*)`)

// Problem says in plain words, for a teacher, what the last error of a
// score or a reveal the queue kept (classroom.LTIScoreJob.LastError)
// means: who failed (the course's platform, or the playground) and what
// to look at. "" for no error. The error itself stays for whoever
// administers the platform.
func Problem(lastError string) string {
	e := strings.TrimSpace(lastError)
	lower := strings.ToLower(e)
	switch m := answeredStatus.FindStringSubmatch(e); {
	case e == "":
		return ""
	case m != nil && (strings.HasPrefix(m[1], "401") || strings.HasPrefix(m[1], "403")):
		return "The course refused the grades (it answered " + m[1] + "): the playground may no longer be allowed to send grades to it. Check the tool's settings in the course."
	case m != nil && (strings.HasPrefix(m[1], "404") || strings.HasPrefix(m[1], "410")):
		return "The course has no such grade column any more (it answered " + m[1] + "): the assignment may have been deleted."
	case m != nil && m[2] == "5":
		return "The course's gradebook was not working (it answered " + m[1] + ")."
	case m != nil:
		return "The course refused the grades (it answered " + m[1] + ")."
	case strings.Contains(lower, sendTimeoutWords):
		return "The course did not answer in time."
	case strings.HasPrefix(e, "token from "):
		if unreachable(lower) {
			return "The course could not be reached to sign in for sending grades."
		}
		return "The course did not let the playground sign in to send grades: check the tool's registration in the course (its client ID, token URL and keys)."
	case unreachable(lower):
		return "The course could not be reached."
	case strings.Contains(lower, "timeout") || strings.Contains(lower, "deadline exceeded"):
		return "The course did not answer in time."
	case strings.HasPrefix(e, "classroom "):
		return "The playground could not work out the grades to send (its database failed); nothing was sent for them."
	}
	if len(e) > 120 {
		e = strings.ToValidUTF8(e[:120], "") + "…"
	}
	return "The grades could not be sent: " + e
}

// unreachable says an error is a platform the tool could not connect to.
func unreachable(lowerErr string) bool {
	for _, s := range []string{"connection refused", "no such host", "network is unreachable", "connection reset", "tls:", "eof"} {
		if strings.Contains(lowerErr, s) {
			return true
		}
	}
	return false
}
