package lti_test

import (
	"strings"
	"testing"

	"github.com/leaselab/playground/lti"
)

// TestProblemInPlainWords: each way a send fails is told to the teacher
// as what failed and what to look at, never as Go's error text alone.
func TestProblemInPlainWords(t *testing.T) {
	for _, tc := range []struct{ err, want string }{
		{"", ""},
		{"scores endpoint answered 503 Service Unavailable: down for maintenance", "The course's gradebook was not working (it answered 503 Service Unavailable)."},
		{"scores endpoint answered 403 Forbidden: ", "The course refused the grades (it answered 403 Forbidden): the playground may no longer be allowed"},
		{"scores endpoint answered 404 Not Found: no such line item", "The course has no such grade column any more (it answered 404 Not Found)"},
		{"scores endpoint answered 400 Bad Request: bad score", "The course refused the grades (it answered 400 Bad Request)."},
		{`token from https://lms.example/token: oauth2: "invalid_client" "client_assertion: token is expired"`, "The course did not let the playground sign in to send grades"},
		{`token from https://lms.example/token: Post "https://lms.example/token": dial tcp 10.0.0.1:443: connect: connection refused`, "The course could not be reached to sign in"},
		{`Post "https://lms.example/li/1/scores": dial tcp: lookup lms.example: no such host`, "The course could not be reached."},
		{"the course did not answer within 30s", "The course did not answer in time."},
		{"classroom unavailable: the class database could not queue the score just now", "The playground could not work out the grades to send"},
		{"something new " + strings.Repeat("x", 200), "The grades could not be sent: something new xxx"},
	} {
		got := lti.Problem(tc.err)
		if !strings.HasPrefix(got, tc.want) || (tc.want == "") != (got == "") {
			t.Errorf("Problem(%.60q) = %q; want it to start %q", tc.err, got, tc.want)
		}
		if len(got) > 260 {
			t.Errorf("Problem(%.60q) is %d bytes long", tc.err, len(got))
		}
	}
}
