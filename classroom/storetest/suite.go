package storetest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
)

// Run runs the whole suite against the store the harness makes.
func Run(t *testing.T, h Harness) {
	tests := []struct {
		name string
		f    func(*testing.T, Harness)
	}{
		{"CreateAndJoin", testCreateAndJoin},
		{"TeacherAuthorization", testTeacherAuthorization},
		{"LearnerAuthorization", testLearnerAuthorization},
		{"Names", testNames},
		{"LookAlikeNames", testLookAlikeNames},
		{"Record", testRecord},
		{"Mistakes", testMistakes},
		{"SharedVariants", testSharedVariants},
		{"GiveUp", testGiveUp},
		{"Credit", testCredit},
		{"Reviews", testReviews},
		{"ReviewAuthorization", testReviewAuthorization},
		{"RevealedReview", testRevealedReview},
		{"RegradeAfterRevealedReview", testRegradeAfterRevealedReview},
		{"ClassReveal", testClassReveal},
		{"ClassRevealNeverAnswered", testClassRevealNeverAnswered},
		{"ServerSecret", testServerSecret},
		{"Limits", testLimits},
		{"ClassLimits", testClassLimits},
		{"StorageBudget", testStorageBudget},
		{"Operator", testOperator},
		{"RotateAndClose", testRotateAndClose},
		{"RemoveLearner", testRemoveLearner},
		{"PushScenario", testPushScenario},
		{"Settings", testSettings},
		{"UpdateSettingsAtOnce", testUpdateSettingsAtOnce},
		{"LateCredit", testLateCredit},
		{"LiftLate", testLiftLate},
		{"AnsweredAgainSinceReview", testAnsweredAgainSinceReview},
		{"RescoreSomeLearners", testRescoreSomeLearners},
		{"Archive", testArchive},
		{"Expiry", testExpiry},
		{"Subscribe", testSubscribe},
		{"SubscribeAcrossHandles", testSubscribeAcrossHandles},
		{"Concurrent", testConcurrent},
		{"Export", testExport},
		{"Reopen", testReopen},
		{"SecondServer", testSecondServer},
		{"Durability", testDurability},
		{"Close", testClose},
		{"JoinProfile", testJoinProfile},
		{"LTIPlatforms", testLTIPlatforms},
		{"LTIKeys", testLTIKeys},
		{"LTILoginsAndNonces", testLTILoginsAndNonces},
		{"LTILaunchAndQueue", testLTILaunchAndQueue},
		{"LTIQueueReplicas", testLTIQueueReplicas},
		{"LTILessonScore", testLTILessonScore},
		{"LTIStandingOvertaken", testLTIStandingOvertaken},
		{"LTIStandingAtOnce", testLTIStandingAtOnce},
		{"LTIStandingLocked", testLTIStandingLocked},
		{"LTIRevealKept", testLTIRevealKept},
		{"LTIRevealLaterLearner", testLTIRevealLaterLearner},
		{"LTIRevealGivenUp", testLTIRevealGivenUp},
		{"LTIGrades", testLTIGrades},
		{"LTIGradesChanges", testLTIGradesChanges},
		{"LTIGradesOvertakenElsewhere", testLTIGradesOvertakenElsewhere},
		{"LTIRevealClaimRenewed", testLTIRevealClaimRenewed},
		{"LTIRevealClaimLost", testLTIRevealClaimLost},
		{"LTIRevealStaleClaimCannotEnd", testLTIRevealStaleClaimCannotEnd},
		{"LTIScoreStaleClaimCannotEnd", testLTIScoreStaleClaimCannotEnd},
		{"LTIScoreSentByStaleClaim", testLTIScoreSentByStaleClaim},
		{"LTIScoreNewerAfterClaimed", testLTIScoreNewerAfterClaimed},
		{"LTIScoreOlderRetryNeverLast", testLTIScoreOlderRetryNeverLast},
		{"LTIScoreNewerAfterLapsedClaim", testLTIScoreNewerAfterLapsedClaim},
		{"LTIScoreOrderReplicas", testLTIScoreOrderReplicas},
		{"LTIScoreStalePostResent", testLTIScoreStalePostResent},
		{"LTIRemovedLearner", testLTIRemovedLearner},
		{"LTIRemovedLearnerRepointed", testLTIRemovedLearnerRepointed},
		{"LTILinkKeepsItsLineItem", testLTILinkKeepsItsLineItem},
		{"LTIIdentifiersAreThePlatforms", testLTIIdentifiersAreThePlatforms},
		{"NoteRun", testNoteRun},
		{"DeviceCode", testDeviceCode},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.f(t, h) })
	}
}

func testCreateAndJoin(t *testing.T, h Harness) {
	ctx := context.Background()
	s := h.MustNew(t, classroom.Options{})
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("ping: %v", err)
	}
	nc := mustCreate(t, s, "  Distributed systems, week 3  ")
	c := nc.Class
	if c.Name != "Distributed systems, week 3" || !c.JoinOpen || c.Scenario != nil {
		t.Fatalf("class %+v", c)
	}
	if len(c.Code) != classroom.CodeLen || strings.Trim(c.Code, classroom.CodeAlphabet) != "" {
		t.Fatalf("code %q: want %d characters from %s", c.Code, classroom.CodeLen, classroom.CodeAlphabet)
	}
	if len(nc.TeacherKey) < 40 {
		t.Fatalf("teacher key %q is short", nc.TeacherKey)
	}
	if string(c.TeacherKeyHash) == nc.TeacherKey || !classroom.SecretMatches(nc.TeacherKey, c.TeacherKeyHash) {
		t.Fatalf("the key is not stored as its hash")
	}
	got, err := s.Teacher(ctx, strings.ToLower(c.Code), nc.TeacherKey)
	if err != nil || got.ID != c.ID {
		t.Fatalf("teacher with a lower-case code: %v %v", got, err)
	}
	if got, err := s.TeacherClass(ctx, nc.TeacherKey); err != nil || got.ID != c.ID {
		t.Fatalf("teacher class by key: %v %v", got, err)
	}

	sess := mustJoin(t, s, c.Code, "Ana")
	if sess.Learner.Name != "Ana" || sess.Class.ID != c.ID || len(sess.Token) < 40 {
		t.Fatalf("session %+v %+v", sess.Learner, sess)
	}
	l, lc, err := s.Learner(ctx, sess.Token)
	if err != nil || l.ID != sess.Learner.ID || lc.Code != c.Code || l.ClassID != c.ID {
		t.Fatalf("learner by session: %+v %+v %v", l, lc, err)
	}
	if l.VariantKey() == "" || l.VariantKey() == mustJoin(t, s, c.Code, "Bo").Learner.VariantKey() {
		t.Fatalf("two learners share variant key %q", l.VariantKey())
	}
	_, err = s.Join(ctx, "ZZZZZZ", "Cy")
	wantCode(t, err, classroom.ENOTFOUND, "join an unknown code")
	_, err = s.Join(ctx, c.Code, " ana ")
	wantCode(t, err, classroom.ECONFLICT, "join with a name taken in another case")
	_, _, err = s.Learner(ctx, "")
	wantCode(t, err, classroom.EUNAUTHORIZED, "learner without a session")
	_, _, err = s.Learner(ctx, "made-up-token")
	wantCode(t, err, classroom.EUNAUTHORIZED, "learner with an unknown session")
}

func testTeacherAuthorization(t *testing.T, h Harness) {
	ctx := context.Background()
	s := h.MustNew(t, classroom.Options{})
	a := mustCreate(t, s, "A")
	b := mustCreate(t, s, "B")
	ana := mustJoin(t, s, a.Class.Code, "Ana")
	code := a.Class.Code
	for _, tc := range []struct {
		what, key, want string
	}{
		{"no key", "", classroom.EUNAUTHORIZED},
		{"a wrong key", "not-the-key", classroom.EFORBIDDEN},
		{"another class's key", b.TeacherKey, classroom.EFORBIDDEN},
		{"a learner's session as the key", ana.Token, classroom.EFORBIDDEN},
		{"the key with a character changed", a.TeacherKey[:len(a.TeacherKey)-1] + "x", classroom.EFORBIDDEN},
	} {
		_, err := s.Teacher(ctx, code, tc.key)
		wantCode(t, err, tc.want, "teacher with "+tc.what)
		_, err = s.Dashboard(ctx, code, tc.key)
		wantCode(t, err, tc.want, "dashboard with "+tc.what)
		_, err = s.RotateCode(ctx, code, tc.key)
		wantCode(t, err, tc.want, "rotate with "+tc.what)
		_, err = s.SetJoinOpen(ctx, code, tc.key, false)
		wantCode(t, err, tc.want, "close joining with "+tc.what)
		_, err = s.PushScenario(ctx, code, tc.key, classroom.Scenario{Preset: "paused-holder"})
		wantCode(t, err, tc.want, "push with "+tc.what)
		err = s.RemoveLearner(ctx, code, tc.key, ana.Learner.ID)
		wantCode(t, err, tc.want, "remove with "+tc.what)
	}
	// Nothing above changed anything.
	d, err := s.Dashboard(ctx, code, a.TeacherKey)
	if err != nil || d.Class.Code != code || !d.Class.JoinOpen || d.Class.Scenario != nil || len(d.Learners) != 1 {
		t.Fatalf("after refused requests: %+v %v", d, err)
	}
	_, err = s.TeacherClass(ctx, "nobody's key")
	wantCode(t, err, classroom.EUNAUTHORIZED, "teacher class of an unknown key")
	_, err = s.Dashboard(ctx, "ZZZZZZ", a.TeacherKey)
	wantCode(t, err, classroom.ENOTFOUND, "dashboard of an unknown code")
}

func testLearnerAuthorization(t *testing.T, h Harness) {
	ctx := context.Background()
	s := h.MustNew(t, classroom.Options{})
	a := mustCreate(t, s, "A")
	b := mustCreate(t, s, "B")
	ana := mustJoin(t, s, a.Class.Code, "Ana")
	bo := mustJoin(t, s, a.Class.Code, "Bo")
	cy := mustJoin(t, s, b.Class.Code, "Cy")
	mustRecord(t, s, ana.Token, classroom.Attempt{Exercise: "x", Answer: "42", Graded: true, Correct: true})
	mustRecord(t, s, bo.Token, classroom.Attempt{Exercise: "x", Answer: "41", Graded: true})
	code := a.Class.Code
	anaID := ana.Learner.ID

	own, err := s.LearnerProgress(ctx, code, classroom.Credentials{Session: ana.Token}, anaID)
	if err != nil || len(own) != 1 || own[0].LearnerID != anaID || !own[0].Correct {
		t.Fatalf("own progress: %+v %v", own, err)
	}
	if ps, err := s.LearnerProgress(ctx, code, classroom.Credentials{TeacherKey: a.TeacherKey}, bo.Learner.ID); err != nil || len(ps) != 1 || ps[0].Correct {
		t.Fatalf("teacher reads Bo: %+v %v", ps, err)
	}
	for _, tc := range []struct {
		what  string
		creds classroom.Credentials
		id    int64
		want  string
	}{
		{"nothing", classroom.Credentials{}, anaID, classroom.EUNAUTHORIZED},
		{"another learner's session", classroom.Credentials{Session: bo.Token}, anaID, classroom.EFORBIDDEN},
		{"a learner of another class", classroom.Credentials{Session: cy.Token}, anaID, classroom.EFORBIDDEN},
		{"another class's teacher key", classroom.Credentials{TeacherKey: b.TeacherKey}, anaID, classroom.EFORBIDDEN},
		{"a wrong teacher key", classroom.Credentials{TeacherKey: "guess"}, anaID, classroom.EFORBIDDEN},
		{"an unknown session", classroom.Credentials{Session: "guess"}, anaID, classroom.EFORBIDDEN},
		{"the learner's own session, another class's code", classroom.Credentials{Session: ana.Token}, anaID, classroom.EFORBIDDEN},
	} {
		c := code
		if strings.Contains(tc.what, "another class's code") {
			c = b.Class.Code
		}
		ps, err := s.LearnerProgress(ctx, c, tc.creds, tc.id)
		wantCode(t, err, tc.want, "Ana's progress read with "+tc.what)
		if ps != nil {
			t.Fatalf("%s: got progress %+v with the error", tc.what, ps)
		}
	}
	_, err = s.LearnerProgress(ctx, code, classroom.Credentials{TeacherKey: a.TeacherKey}, cy.Learner.ID)
	wantCode(t, err, classroom.ENOTFOUND, "teacher reads a learner of another class")
	_, err = s.Dashboard(ctx, code, ana.Token)
	wantCode(t, err, classroom.EFORBIDDEN, "a learner's session as the teacher key")
	_, err = s.Record(ctx, "", classroom.Attempt{Exercise: "x", Answer: "1", Graded: true})
	wantCode(t, err, classroom.EUNAUTHORIZED, "record without a session")
	_, err = s.Record(ctx, a.TeacherKey, classroom.Attempt{Exercise: "x", Answer: "1", Graded: true})
	wantCode(t, err, classroom.EUNAUTHORIZED, "record with the teacher key as session")
}

func testNames(t *testing.T, h Harness) {
	ctx := context.Background()
	s := h.MustNew(t, classroom.Options{})
	xss := `<script>alert("x")</script>`
	nc := mustCreate(t, s, xss)
	if nc.Class.Name != xss {
		t.Fatalf("class name %q, want it unchanged", nc.Class.Name)
	}
	for _, name := range []string{xss, `<img src=x onerror=alert(1)>`, `Zoë "Z" O'Brien, Jr.`, "=1+2", "日本語の名前"} {
		sess := mustJoin(t, s, nc.Class.Code, name)
		if sess.Learner.Name != name {
			t.Fatalf("joined as %q, stored %q", name, sess.Learner.Name)
		}
	}
	d, err := s.Dashboard(ctx, nc.Class.Code, nc.TeacherKey)
	if err != nil {
		t.Fatal(err)
	}
	if d.Class.Name != xss || d.Learners[0].Name != xss || d.Learners[3].Name != "=1+2" {
		t.Fatalf("names read back: %q %+v", d.Class.Name, d.Learners)
	}
	for _, tc := range []struct{ name, wantIn string }{
		{"", "name: must not be empty"},
		{"   ", "name: must not be empty"},
		{strings.Repeat("n", 41), "name: must be at most 40 characters (it has 41)"},
		{"tab\there", "name: must not contain control characters"},
		{"new\nline", "name: must not contain control characters"},
		{"bad \xff utf8", "name: must be valid UTF-8"},
	} {
		_, err := s.Join(ctx, nc.Class.Code, tc.name)
		wantCode(t, err, classroom.EINVALID, fmt.Sprintf("join as %q", tc.name))
		if !strings.Contains(classroom.ErrorMessage(err), tc.wantIn) {
			t.Fatalf("join as %q: message %q, want it to contain %q", tc.name, classroom.ErrorMessage(err), tc.wantIn)
		}
		_, err = s.CreateClass(ctx, tc.name)
		wantCode(t, err, classroom.EINVALID, fmt.Sprintf("create class %q", tc.name))
	}
	if sess := mustJoin(t, s, nc.Class.Code, strings.Repeat("é", 40)); len([]rune(sess.Learner.Name)) != 40 {
		t.Fatalf("40 two-byte characters: %q", sess.Learner.Name)
	}
}

func testRecord(t *testing.T, h Harness) {
	ctx := context.Background()
	s := h.MustNew(t, classroom.Options{Now: NewClock().Now})
	nc := mustCreate(t, s, "R")
	ana := mustJoin(t, s, nc.Class.Code, "Ana")
	a1 := mustRecord(t, s, ana.Token, classroom.Attempt{Exercise: "lease", Variant: 7, Answer: "10", Graded: true, Feedback: "too short"})
	if a1.ID == 0 || a1.Try != 1 || a1.LearnerID != ana.Learner.ID || a1.At.IsZero() || a1.Correct {
		t.Fatalf("first attempt %+v", a1)
	}
	f := mustRecord(t, s, ana.Token, classroom.Attempt{Exercise: "lease", Variant: 7, Answer: "forty", FormatError: "not a number", Correct: false, Graded: true})
	if f.Try != 0 || f.ID != 0 {
		t.Fatalf("a format error was stored: %+v", f)
	}
	a2 := mustRecord(t, s, ana.Token, classroom.Attempt{Exercise: "lease", Variant: 7, Answer: "30", Graded: true, Correct: true})
	a3 := mustRecord(t, s, ana.Token, classroom.Attempt{Exercise: "lease", Variant: 7, Answer: "31", Graded: true})
	if a2.Try != 2 || a3.Try != 3 {
		t.Fatalf("tries %d %d, want 2 3 (the format error costs none)", a2.Try, a3.Try)
	}
	mustRecord(t, s, ana.Token, classroom.Attempt{Exercise: "essay", Answer: "fencing tokens order writes", Graded: false})
	_, err := s.Record(ctx, ana.Token, classroom.Attempt{Exercise: "essay", Answer: "x", Graded: false, Correct: true})
	wantCode(t, err, classroom.EINVALID, "an ungraded correct attempt")
	_, err = s.Record(ctx, ana.Token, classroom.Attempt{Exercise: "", Answer: "x"})
	wantCode(t, err, classroom.EINVALID, "no exercise")
	_, err = s.Record(ctx, ana.Token, classroom.Attempt{Exercise: "lease", Answer: strings.Repeat("9", classroom.MaxAnswerLen+1)})
	wantCode(t, err, classroom.EINVALID, "an over-long answer")

	ps, err := s.LearnerProgress(ctx, nc.Class.Code, classroom.Credentials{Session: ana.Token}, ana.Learner.ID)
	if err != nil || len(ps) != 2 {
		t.Fatalf("progress %+v %v", ps, err)
	}
	lease, essay := ps[0], ps[1]
	if lease.Exercise != "lease" || lease.Tries != 3 || !lease.Correct || lease.TriesToCorrect != 2 || lease.LastVariant != 7 ||
		lease.LearnerName != "Ana" || !lease.FirstAt.Equal(a1.At) || !lease.LastAt.Equal(a3.At) {
		t.Fatalf("lease progress %+v", lease)
	}
	if essay.Exercise != "essay" || essay.Tries != 1 || essay.Correct || essay.TriesToCorrect != 0 {
		t.Fatalf("essay progress %+v", essay)
	}
	d, err := s.Dashboard(ctx, nc.Class.Code, nc.TeacherKey)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(d.Exercises, ",") != "essay,lease" || len(d.Progress) != 2 {
		t.Fatalf("dashboard %+v", d)
	}
	st := d.Stats([]string{"lease", "essay", "unseen"})
	if st[0] != (classroom.ExerciseStats{Exercise: "lease", Attempted: 1, Correct: 1, Tries: 3}) ||
		st[1] != (classroom.ExerciseStats{Exercise: "essay", Attempted: 1, Tries: 1}) ||
		st[2] != (classroom.ExerciseStats{Exercise: "unseen"}) {
		t.Fatalf("stats %+v", st)
	}
}

func testLimits(t *testing.T, h Harness) {
	ctx := context.Background()
	s := h.MustNew(t, classroom.Options{Limits: classroom.Limits{MaxClasses: 2, MaxLearnersPerClass: 2, MaxAttemptsPerExercise: 3}})
	nc := mustCreate(t, s, "one")
	two := mustCreate(t, s, "two")
	ana := mustJoin(t, s, nc.Class.Code, "Ana")
	mustJoin(t, s, two.Class.Code, "Dee")
	// Two classes in use: a third is refused.
	_, err := s.CreateClass(ctx, "three")
	wantCode(t, err, classroom.ELIMIT, "a third class")
	if msg := classroom.ErrorMessage(err); !strings.Contains(msg, "2 classes in use") {
		t.Fatalf("limit message %q does not say the limit", msg)
	}
	mustJoin(t, s, nc.Class.Code, "Bo")
	_, err = s.Join(ctx, nc.Class.Code, "Cy")
	wantCode(t, err, classroom.ELIMIT, "a third learner")
	if msg := classroom.ErrorMessage(err); !strings.Contains(msg, "full") || !strings.Contains(msg, "2 learners") {
		t.Fatalf("limit message %q", msg)
	}
	for range 3 {
		mustRecord(t, s, ana.Token, classroom.Attempt{Exercise: "ex", Answer: "1", Graded: true})
	}
	_, err = s.Record(ctx, ana.Token, classroom.Attempt{Exercise: "ex", Answer: "2", Graded: true})
	wantCode(t, err, classroom.ELIMIT, "a fourth attempt")
	if msg := classroom.ErrorMessage(err); !strings.Contains(msg, "ex") || !strings.Contains(msg, "3 attempts") {
		t.Fatalf("limit message %q", msg)
	}
	// A format error costs no try, so it is still answered; another
	// exercise has its own count; the refused attempt left no trace.
	if _, err := s.Record(ctx, ana.Token, classroom.Attempt{Exercise: "ex", Answer: "?", FormatError: "unreadable"}); err != nil {
		t.Fatalf("format error at the limit: %v", err)
	}
	mustRecord(t, s, ana.Token, classroom.Attempt{Exercise: "other", Answer: "1", Graded: true})
	ps, err := s.LearnerProgress(ctx, nc.Class.Code, classroom.Credentials{Session: ana.Token}, ana.Learner.ID)
	if err != nil || ps[0].Tries != 3 {
		t.Fatalf("progress after the limit: %+v %v", ps, err)
	}
}

func testRotateAndClose(t *testing.T, h Harness) {
	ctx := context.Background()
	s := h.MustNew(t, classroom.Options{})
	nc := mustCreate(t, s, "C")
	old := nc.Class.Code
	ana := mustJoin(t, s, old, "Ana")
	c, err := s.RotateCode(ctx, old, nc.TeacherKey)
	if err != nil || c.Code == old || len(c.Code) != classroom.CodeLen || c.ID != nc.Class.ID {
		t.Fatalf("rotate: %+v %v", c, err)
	}
	_, err = s.Join(ctx, old, "Bo")
	wantCode(t, err, classroom.ENOTFOUND, "join with the old code")
	_, err = s.Teacher(ctx, old, nc.TeacherKey)
	wantCode(t, err, classroom.ENOTFOUND, "teacher with the old code")
	if got, err := s.TeacherClass(ctx, nc.TeacherKey); err != nil || got.Code != c.Code {
		t.Fatalf("the teacher key finds the new code: %+v %v", got, err)
	}
	if _, _, err := s.Learner(ctx, ana.Token); err != nil {
		t.Fatalf("a session after rotation: %v", err)
	}
	mustJoin(t, s, c.Code, "Bo")

	c, err = s.SetJoinOpen(ctx, c.Code, nc.TeacherKey, false)
	if err != nil || c.JoinOpen {
		t.Fatalf("close joining: %+v %v", c, err)
	}
	_, err = s.Join(ctx, c.Code, "Cy")
	wantCode(t, err, classroom.ECONFLICT, "join a closed class")
	mustRecord(t, s, ana.Token, classroom.Attempt{Exercise: "ex", Answer: "1", Graded: true})
	if c, err = s.SetJoinOpen(ctx, c.Code, nc.TeacherKey, true); err != nil || !c.JoinOpen {
		t.Fatalf("reopen joining: %+v %v", c, err)
	}
	mustJoin(t, s, c.Code, "Cy")
}

func testRemoveLearner(t *testing.T, h Harness) {
	ctx := context.Background()
	s := h.MustNew(t, classroom.Options{})
	a := mustCreate(t, s, "A")
	b := mustCreate(t, s, "B")
	ana := mustJoin(t, s, a.Class.Code, "Ana")
	bo := mustJoin(t, s, a.Class.Code, "Bo")
	cy := mustJoin(t, s, b.Class.Code, "Cy")
	mustRecord(t, s, ana.Token, classroom.Attempt{Exercise: "ex", Answer: "1", Graded: true})
	mustRecord(t, s, bo.Token, classroom.Attempt{Exercise: "ex", Answer: "1", Graded: true})

	err := s.RemoveLearner(ctx, a.Class.Code, a.TeacherKey, cy.Learner.ID)
	wantCode(t, err, classroom.ENOTFOUND, "remove a learner of another class")
	if err := s.RemoveLearner(ctx, a.Class.Code, a.TeacherKey, ana.Learner.ID); err != nil {
		t.Fatalf("remove: %v", err)
	}
	err = s.RemoveLearner(ctx, a.Class.Code, a.TeacherKey, ana.Learner.ID)
	wantCode(t, err, classroom.ENOTFOUND, "remove twice")
	_, _, err = s.Learner(ctx, ana.Token)
	wantCode(t, err, classroom.EUNAUTHORIZED, "a removed learner's session")
	_, err = s.Record(ctx, ana.Token, classroom.Attempt{Exercise: "ex", Answer: "2", Graded: true})
	wantCode(t, err, classroom.EUNAUTHORIZED, "a removed learner records")
	d, err := s.Dashboard(ctx, a.Class.Code, a.TeacherKey)
	if err != nil || len(d.Learners) != 1 || d.Learners[0].Name != "Bo" || len(d.Progress) != 1 || len(d.Mistakes) != 1 || d.Mistakes[0].Count != 1 {
		t.Fatalf("dashboard after removal: %+v %v", d, err)
	}
	// The name is free again.
	mustJoin(t, s, a.Class.Code, "Ana")
	if _, _, err := s.Learner(ctx, cy.Token); err != nil {
		t.Fatalf("another class's learner: %v", err)
	}
}

func testPushScenario(t *testing.T, h Harness) {
	ctx := context.Background()
	s := h.MustNew(t, classroom.Options{})
	nc := mustCreate(t, s, "P")
	ana := mustJoin(t, s, nc.Class.Code, "Ana")
	c, err := s.PushScenario(ctx, nc.Class.Code, nc.TeacherKey, classroom.Scenario{Preset: "paused-holder"})
	if err != nil || c.Scenario == nil || c.Scenario.Preset != "paused-holder" || c.Scenario.PushedAt.IsZero() {
		t.Fatalf("push a preset: %+v %v", c, err)
	}
	doc := `{"preset":"paused-holder","set":{"fencing":true}}`
	if _, err := s.PushScenario(ctx, nc.Class.Code, nc.TeacherKey, classroom.Scenario{JSON: doc}); err != nil {
		t.Fatal(err)
	}
	_, lc, err := s.Learner(ctx, ana.Token)
	if err != nil || lc.Scenario == nil || lc.Scenario.JSON != doc || lc.Scenario.Preset != "" {
		t.Fatalf("the learner sees %+v %v", lc, err)
	}
	for _, bad := range []classroom.Scenario{
		{Preset: "a", JSON: "{}"},
		{JSON: "{not json"},
		{Preset: "Bad Name!"},
		{JSON: `"` + strings.Repeat("x", classroom.MaxScenarioBytes) + `"`},
	} {
		_, err := s.PushScenario(ctx, nc.Class.Code, nc.TeacherKey, bad)
		wantCode(t, err, classroom.EINVALID, fmt.Sprintf("push %.40q", bad))
	}
	if c, err := s.PushScenario(ctx, nc.Class.Code, nc.TeacherKey, classroom.Scenario{}); err != nil || c.Scenario != nil {
		t.Fatalf("clear: %+v %v", c, err)
	}
}

// next waits for a change, failing after a while.
func next(tb testing.TB, ch <-chan classroom.Change, what string) classroom.Change {
	tb.Helper()
	select {
	case c, ok := <-ch:
		if !ok {
			tb.Fatalf("%s: the channel closed", what)
		}
		return c
	case <-time.After(10 * time.Second):
		tb.Fatalf("%s: no change within 10s", what)
	}
	return classroom.Change{}
}

func testSubscribe(t *testing.T, h Harness) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := h.MustNew(t, classroom.Options{})
	a := mustCreate(t, s, "A")
	b := mustCreate(t, s, "B")
	ch, err := s.Subscribe(ctx, a.Class.ID)
	if err != nil {
		t.Fatal(err)
	}
	mustJoin(t, s, b.Class.Code, "Elsewhere")
	ana := mustJoin(t, s, a.Class.Code, "Ana")
	if c := next(t, ch, "join"); c != (classroom.Change{ClassID: a.Class.ID, Kind: classroom.ChangeJoin, LearnerID: ana.Learner.ID}) {
		t.Fatalf("join change %+v (a change of class B leaked?)", c)
	}
	mustRecord(t, s, ana.Token, classroom.Attempt{Exercise: "ex", Answer: "1", Graded: true})
	if c := next(t, ch, "attempt"); c.Kind != classroom.ChangeAttempt || c.LearnerID != ana.Learner.ID {
		t.Fatalf("attempt change %+v", c)
	}
	// A refused write publishes nothing.
	s.Record(ctx, ana.Token, classroom.Attempt{Exercise: "", Answer: "1"})
	if _, err := s.PushScenario(ctx, a.Class.Code, a.TeacherKey, classroom.Scenario{Preset: "p"}); err != nil {
		t.Fatal(err)
	}
	if c := next(t, ch, "scenario"); c.Kind != classroom.ChangeScenario {
		t.Fatalf("scenario change %+v", c)
	}
	// A slow reader loses no wake-up: more changes than the buffer holds
	// still leave one to read.
	for i := range 50 {
		mustRecord(t, s, ana.Token, classroom.Attempt{Exercise: "ex", Answer: fmt.Sprint(i), Graded: true})
	}
	next(t, ch, "after a burst")
	cancel()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("the channel did not close after its context ended")
		}
	}
}

// testSubscribeAcrossHandles is two server processes (or replicas) on one
// database: a change written through one reaches subscribers of the
// other. SQLite stores are single-process, so only PostgreSQL runs it.
func testSubscribeAcrossHandles(t *testing.T, h Harness) {
	if !h.Replicas {
		t.Skip("this store shares changes within one server process only (SQLite is one server's file)")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr := h.New(t)
	s1 := h.MustOpen(t, addr, classroom.Options{})
	s2 := h.MustOpen(t, addr, classroom.Options{})
	nc := mustCreate(t, s1, "Shared")
	ch, err := s1.Subscribe(ctx, nc.Class.ID)
	if err != nil {
		t.Fatal(err)
	}
	sess := mustJoin(t, s2, nc.Class.Code, "Ana")
	select {
	case c := <-ch:
		if c.Kind != classroom.ChangeJoin || c.LearnerID != sess.Learner.ID {
			t.Fatalf("change %+v", c)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a join through one handle did not reach the other's subscriber")
	}
}

func testConcurrent(t *testing.T, h Harness) {
	ctx := context.Background()
	s := h.MustNew(t, classroom.Options{})
	nc := mustCreate(t, s, "Busy")
	const learners, perLearner, workers = 8, 20, 4
	toks := make([]string, learners)
	var wg sync.WaitGroup
	errs := make(chan error, learners*perLearner*workers)
	for i := range learners {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sess, err := s.Join(ctx, nc.Class.Code, fmt.Sprintf("learner %d", i))
			if err != nil {
				errs <- err
				return
			}
			toks[i] = sess.Token
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("concurrent join: %v", err)
	}
	// Several goroutines per learner, all on one exercise, so try numbers
	// and the progress upsert are contended.
	tries := make([]map[int]bool, learners)
	var mu sync.Mutex
	errs = make(chan error, learners*perLearner*workers)
	for i := range learners {
		tries[i] = map[int]bool{}
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := range perLearner {
					a, err := s.Record(ctx, toks[i], classroom.Attempt{Exercise: "ex", Answer: fmt.Sprint(w, k), Graded: true, Correct: k == perLearner-1})
					if err != nil {
						errs <- err
						return
					}
					mu.Lock()
					tries[i][a.Try] = true
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("concurrent record: %v", err)
	}
	d, err := s.Dashboard(ctx, nc.Class.Code, nc.TeacherKey)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Learners) != learners || len(d.Progress) != learners {
		t.Fatalf("%d learners and %d progress rows, want %d", len(d.Learners), len(d.Progress), learners)
	}
	for i, p := range d.Progress {
		if p.Tries != perLearner*workers || !p.Correct {
			t.Fatalf("learner %s: %+v, want %d tries", p.LearnerName, p, perLearner*workers)
		}
		if len(tries[i]) != perLearner*workers {
			t.Fatalf("learner %d got %d distinct try numbers for %d attempts", i, len(tries[i]), perLearner*workers)
		}
	}
}

func testReopen(t *testing.T, h Harness) {
	ctx := context.Background()
	addr := h.New(t)
	s := h.MustOpen(t, addr, classroom.Options{})
	nc := mustCreate(t, s, "Kept")
	ana := mustJoin(t, s, nc.Class.Code, "Ana")
	mustRecord(t, s, ana.Token, classroom.Attempt{Exercise: "ex", Answer: "1", Graded: true, Correct: true})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// Opening again runs the migrations again: a no-op on a current schema.
	s = h.MustOpen(t, addr, classroom.Options{})
	d, err := s.Dashboard(ctx, nc.Class.Code, nc.TeacherKey)
	if err != nil || len(d.Progress) != 1 || !d.Progress[0].Correct {
		t.Fatalf("after reopening: %+v %v", d, err)
	}
	if _, _, err := s.Learner(ctx, ana.Token); err != nil {
		t.Fatalf("a session after reopening: %v", err)
	}
}
