package engine

import "testing"

// TestALostAnswerSaysOnlyTheClientsOwnLease: an answer_lost carries the
// lease the service holds for the client that never heard of it, so only
// a granted acquire or renewal carries one. A refused acquire's reply
// quotes the holder's lease, which the lock panel and the timeline would
// otherwise draw as the refused client's.
func TestALostAnswerSaysOnlyTheClientsOwnLease(t *testing.T) {
	for _, c := range []struct {
		name         string
		cmd          Command
		r            Reply
		token, until int64
	}{
		{"granted acquire", Command{Op: OpAcquire}, Reply{OK: true, Token: 34, LeaseUntil: 21000}, 34, 21000},
		{"granted renewal", Command{Op: OpRenew, Token: 33}, Reply{OK: true, Token: 33, LeaseUntil: 16000}, 33, 16000},
		{"refused acquire", Command{Op: OpAcquire}, Reply{Token: 33, LeaseUntil: 13000, Holder: "client-1"}, 0, 0},
		{"refused renewal", Command{Op: OpRenew, Token: 33}, Reply{Token: 34, LeaseUntil: 24000, Holder: "client-2"}, 33, 0},
		{"release", Command{Op: OpRelease, Token: 33}, Reply{OK: true, LeaseUntil: 13000}, 33, 0},
		{"check", Command{Op: OpCheck, Token: 33}, Reply{OK: true, Token: 33, LeaseUntil: 13000}, 33, 0},
	} {
		token, until := lostAnswerLease(c.cmd, c.r)
		if token != c.token || until != c.until {
			t.Errorf("%s: token %d, lease until %d; want %d and %d", c.name, token, until, c.token, c.until)
		}
	}
}
