package storetest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
)

// testDeviceCode: a learner's device code lets another browser take over
// their session, answers and all, once, within DeviceCodeTTL; the old
// browser's session ends; a newer code replaces an older one; codes are
// read as typed (case, dashes), and a wrong, used or expired one is
// ENOTFOUND naming the code field.
func testDeviceCode(t *testing.T, h Harness) {
	ctx := context.Background()
	clk := NewClock()
	s := h.MustNew(t, classroom.Options{Now: clk.Now})
	nc := mustCreate(t, s, "Devices")
	ada := mustJoin(t, s, nc.Class.Code, "Ada")
	bo := mustJoin(t, s, nc.Class.Code, "Bo")
	mustRecord(t, s, ada.Token, classroom.Attempt{Exercise: "ex", Answer: "1", Graded: true, Correct: true})

	first, _, err := s.DeviceCode(ctx, ada.Token)
	if err != nil {
		t.Fatal(err)
	}
	before := clk.Now() // the clock moves a second a reading
	code, expires, err := s.DeviceCode(ctx, ada.Token)
	if err != nil {
		t.Fatal(err)
	}
	if left := expires.Sub(before); len(code) != classroom.DeviceCodeLen || left <= classroom.DeviceCodeTTL || left > classroom.DeviceCodeTTL+5*time.Second {
		t.Fatalf("code %q expires %v", code, expires)
	}
	if _, err := s.ContinueSession(ctx, first); classroom.ErrorCode(err) != classroom.ENOTFOUND {
		t.Errorf("a code replaced by a newer one: %v", err)
	}
	// Typed in lower case, in two groups.
	typed := strings.ToLower(classroom.FormatDeviceCode(code))
	sess, err := s.ContinueSession(ctx, typed)
	if err != nil {
		t.Fatal(err)
	}
	if sess.Learner.ID != ada.Learner.ID || sess.Class.ID != nc.Class.ID || sess.Token == ada.Token {
		t.Fatalf("continued as %+v in %d with token %q", sess.Learner, sess.Class.ID, sess.Token)
	}
	prog, err := s.LearnerProgress(ctx, nc.Class.Code, classroom.Credentials{Session: sess.Token}, ada.Learner.ID)
	if err != nil || len(prog) != 1 || !prog[0].Correct {
		t.Errorf("the new browser reads Ada's progress as %+v, %v", prog, err)
	}
	if _, _, err := s.Learner(ctx, ada.Token); classroom.ErrorCode(err) != classroom.EUNAUTHORIZED {
		t.Errorf("the old browser's session after the move: %v", err)
	}
	if _, err := s.ContinueSession(ctx, code); classroom.ErrorCode(err) != classroom.ENOTFOUND {
		t.Errorf("a code used twice: %v", err)
	}

	// Expiry.
	late, _, err := s.DeviceCode(ctx, bo.Token)
	if err != nil {
		t.Fatal(err)
	}
	clk.Advance(classroom.DeviceCodeTTL + time.Second)
	if _, err := s.ContinueSession(ctx, late); classroom.ErrorCode(err) != classroom.ENOTFOUND || !strings.Contains(err.Error(), "code") {
		t.Errorf("an expired code: %v", err)
	}
	if _, _, err := s.Learner(ctx, bo.Token); err != nil {
		t.Errorf("Bo's session after his code expired unused: %v", err)
	}

	// Bad input.
	for _, bad := range []string{"", "ABC", "ABCDE-FGHJ0", strings.Repeat("A", 1000)} {
		if _, err := s.ContinueSession(ctx, bad); classroom.ErrorCode(err) != classroom.EINVALID || !strings.Contains(err.Error(), "code") {
			t.Errorf("code %.20q: %v", bad, err)
		}
	}
	if _, _, err := s.DeviceCode(ctx, "no such session"); classroom.ErrorCode(err) != classroom.EUNAUTHORIZED {
		t.Errorf("a device code for no session: %v", err)
	}
}
