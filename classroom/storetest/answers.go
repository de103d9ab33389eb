package storetest

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
)

// testMistakes: wrong answers group by the checker's named mistake across
// variants and ways of typing, unnamed ones by their parsed value; each
// learner counts once per group with their last answer; right and open
// answers are no mistakes.
func testMistakes(t *testing.T, h Harness) {
	ctx := context.Background()
	s := h.MustNew(t, classroom.Options{})
	nc := mustCreate(t, s, "M")
	var toks []string
	for i := range 4 {
		toks = append(toks, mustJoin(t, s, nc.Class.Code, fmt.Sprintf("L%d", i)).Token)
	}
	wrong := func(tok, ex, ans, mistake, parsed string, variant int) {
		mustRecord(t, s, tok, classroom.Attempt{Exercise: ex, Answer: ans, Graded: true, Mistake: mistake, Parsed: parsed, Variant: variant})
	}
	// The same slip on three learners' own numbers, typed three ways.
	wrong(toks[0], "outlive", "4950", "fast-share", "4,950", 0)
	wrong(toks[1], "outlive", "9,900 runs", "fast-share", "9,900", 7)
	wrong(toks[2], "outlive", "about 1980", "fast-share", "1,980", 9)
	wrong(toks[2], "outlive", "1,980", "fast-share", "1,980", 9) // again: counts once, last answer kept
	// Unnamed: "4950" and "4,950 runs" read alike; 12 is on its own.
	wrong(toks[3], "outlive", "51", "", "51", 0)
	wrong(toks[0], "outlive", "51 runs", "", "51", 0)
	wrong(toks[1], "outlive", "12", "", "12", 0)
	mustRecord(t, s, toks[3], classroom.Attempt{Exercise: "outlive", Answer: "50", Graded: true, Correct: true})
	mustRecord(t, s, toks[3], classroom.Attempt{Exercise: "essay", Answer: "some words here", Graded: false})
	wrong(toks[1], "four", "a, b, c, e", "option-e", "a, b, c, e", 3)

	got, err := s.Mistakes(ctx, nc.Class.Code, nc.TeacherKey)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 {
		t.Fatalf("mistakes %+v: want 4 groups", got)
	}
	if got[0].Exercise != "four" || got[0].Mistake != "option-e" || got[0].Count != 1 {
		t.Errorf("first group %+v", got[0])
	}
	fast := got[1]
	if fast.Exercise != "outlive" || fast.Mistake != "fast-share" || fast.Count != 3 || len(fast.Learners) != 3 {
		t.Fatalf("the named mistake across variants: %+v", fast)
	}
	if l := fast.Learners[2]; l.Name != "L2" || l.Answer != "1,980" || l.Variant != 9 {
		t.Errorf("a learner's entry %+v: want L2's last answer, 1,980 on variant 9", l)
	}
	if u := got[2]; u.Mistake != "" || u.Value != "51" || u.Count != 2 {
		t.Errorf("unnamed answers read as 51: %+v", u)
	}
	if u := got[3]; u.Value != "12" || u.Count != 1 {
		t.Errorf("the lone unnamed answer: %+v", u)
	}
	for _, g := range got {
		if g.Exercise == "essay" || g.Value == "50" {
			t.Errorf("a right or open answer is listed as a mistake: %+v", g)
		}
	}
	d, err := s.Dashboard(ctx, nc.Class.Code, nc.TeacherKey)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Mistakes) != len(got) {
		t.Errorf("the dashboard has %d mistake groups, the endpoint %d", len(d.Mistakes), len(got))
	}
	if _, err := s.Mistakes(ctx, nc.Class.Code, ""); classroom.ErrorCode(err) != classroom.EUNAUTHORIZED {
		t.Errorf("mistakes without the teacher key: %v", err)
	}
	if _, err := s.Mistakes(ctx, nc.Class.Code, mustCreate(t, s, "Other").TeacherKey); classroom.ErrorCode(err) != classroom.EFORBIDDEN {
		t.Errorf("mistakes with another class's key: %v", err)
	}
}

// testSharedVariants: a class gives each learner their own numbers until
// the teacher switches it to shared, and only the teacher may.
func testSharedVariants(t *testing.T, h Harness) {
	ctx := context.Background()
	s := h.MustNew(t, classroom.Options{})
	nc := mustCreate(t, s, "V")
	if nc.Class.Variants != classroom.VariantsPerLearner {
		t.Fatalf("a new class has variants %q", nc.Class.Variants)
	}
	c, err := s.SetVariants(ctx, nc.Class.Code, nc.TeacherKey, classroom.VariantsShared)
	if err != nil || c.Variants != classroom.VariantsShared {
		t.Fatalf("SetVariants shared: %+v, %v", c, err)
	}
	sess := mustJoin(t, s, nc.Class.Code, "Ada")
	if _, cl, err := s.Learner(ctx, sess.Token); err != nil || cl.Variants != classroom.VariantsShared {
		t.Fatalf("a learner's class: %+v, %v", cl, err)
	}
	_, err = s.SetVariants(ctx, nc.Class.Code, nc.TeacherKey, "everyone")
	wantCode(t, err, classroom.EINVALID, "variants everyone")
	_, err = s.SetVariants(ctx, nc.Class.Code, "", classroom.VariantsPerLearner)
	wantCode(t, err, classroom.EUNAUTHORIZED, "variants without a key")
	_, err = s.SetVariants(ctx, nc.Class.Code, sess.Token, classroom.VariantsPerLearner)
	wantCode(t, err, classroom.EFORBIDDEN, "variants with a learner's token")
	if c, _ := s.Teacher(ctx, nc.Class.Code, nc.TeacherKey); c.Variants != classroom.VariantsShared {
		t.Errorf("a refused change changed variants to %q", c.Variants)
	}
}

// testGiveUp: giving up is recorded on the learner's progress without a
// try, once, and shows in the exports.
func testGiveUp(t *testing.T, h Harness) {
	ctx := context.Background()
	s := h.MustNew(t, classroom.Options{})
	nc := mustCreate(t, s, "G")
	sess := mustJoin(t, s, nc.Class.Code, "Ada")
	p, err := s.GiveUp(ctx, sess.Token, "ex", 4)
	if err != nil {
		t.Fatal(err)
	}
	if !p.GaveUp || p.Tries != 0 || p.Correct || p.LastVariant != 4 {
		t.Fatalf("progress after giving up first: %+v", p)
	}
	mustRecord(t, s, sess.Token, classroom.Attempt{Exercise: "ex2", Answer: "7", Graded: true})
	if p, err = s.GiveUp(ctx, sess.Token, "ex2", 0); err != nil || !p.GaveUp || p.Tries != 1 {
		t.Fatalf("progress after a try and giving up: %+v, %v", p, err)
	}
	if p, err = s.GiveUp(ctx, sess.Token, "ex2", 0); err != nil || !p.GaveUp || p.Tries != 1 {
		t.Fatalf("giving up twice: %+v, %v", p, err)
	}
	_, err = s.GiveUp(ctx, "", "ex", 0)
	wantCode(t, err, classroom.EUNAUTHORIZED, "give up without a session")
	_, err = s.GiveUp(ctx, sess.Token, "", 0)
	wantCode(t, err, classroom.EINVALID, "give up on no exercise")
	d, err := s.Dashboard(ctx, nc.Class.Code, nc.TeacherKey)
	if err != nil {
		t.Fatal(err)
	}
	st := d.Stats([]string{"ex", "ex2"})
	if st[0].Attempted != 0 || st[0].GaveUp != 1 || st[1].Attempted != 1 || st[1].GaveUp != 1 {
		t.Errorf("stats after giving up: %+v", st)
	}
	rows := progressCSV(t, d, []string{"ex", "ex2"})
	if rows[1][2] != "0" || rows[1][8] != "1" || rows[2][2] != "1" || rows[2][8] != "1" {
		t.Errorf("progress.csv after giving up: %q", rows)
	}
}

// testReviews: a teacher scores open answers; the score and comment reach
// the learner's own progress, the dashboard, progress.csv and
// answers.csv, and a second review replaces the first.
func testReviews(t *testing.T, h Harness) {
	ctx := context.Background()
	s := h.MustNew(t, classroom.Options{})
	nc := mustCreate(t, s, "R")
	ada := mustJoin(t, s, nc.Class.Code, "Ada")
	bob := mustJoin(t, s, nc.Class.Code, "=Bob")
	mustRecord(t, s, ada.Token, classroom.Attempt{Exercise: "sms-twice", Variant: 3, Answer: "Give each send an idempotency key.", Graded: false})
	mustRecord(t, s, bob.Token, classroom.Attempt{Exercise: "sms-twice", Answer: "=SUM(A1) a longer lock", Graded: false})
	mustRecord(t, s, ada.Token, classroom.Attempt{Exercise: "sms-twice", Variant: 3, Answer: "An idempotency key made from the reminder.", Graded: false})

	answers, err := s.Answers(ctx, nc.Class.Code, nc.TeacherKey)
	if err != nil {
		t.Fatal(err)
	}
	if len(answers) != 3 || answers[0].LearnerName != "Ada" || answers[1].LearnerName != "=Bob" || answers[0].Review != nil || answers[0].Variant != 3 {
		t.Fatalf("answers before review: %+v", answers)
	}
	r, err := s.Review(ctx, nc.Class.Code, nc.TeacherKey, classroom.Review{LearnerID: ada.Learner.ID, Exercise: "sms-twice", Score: 0.5, Comment: "  Say why fencing cannot help. "})
	if err != nil {
		t.Fatal(err)
	}
	if r.Score != 0.5 || r.Comment != "Say why fencing cannot help." || r.At.IsZero() {
		t.Errorf("review %+v", r)
	}
	if _, err := s.Review(ctx, nc.Class.Code, nc.TeacherKey, classroom.Review{LearnerID: ada.Learner.ID, Exercise: "sms-twice", Score: 1, Comment: "Good now."}); err != nil {
		t.Fatal(err)
	}
	prog, err := s.LearnerProgress(ctx, nc.Class.Code, classroom.Credentials{Session: ada.Token}, ada.Learner.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(prog) != 1 || prog[0].Review == nil || prog[0].Review.Score != 1 || prog[0].Review.Comment != "Good now." {
		t.Fatalf("the learner's own progress does not show the latest review: %+v", prog)
	}
	answers, _ = s.Answers(ctx, nc.Class.Code, nc.TeacherKey)
	if answers[0].Review == nil || answers[2].Review == nil || answers[2].Review.Score != 1 || answers[1].Review != nil {
		t.Errorf("answers after review: %+v", answers)
	}
	var buf bytes.Buffer
	if err := classroom.WriteAnswersCSV(&buf, answers); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"learner", "exercise", "variant", "answer", "time", "score", "comment", "late"}
	if fmt.Sprint(rows[0]) != fmt.Sprint(want) || len(rows) != 4 {
		t.Fatalf("answers.csv: %q", rows)
	}
	if rows[1][0] != "Ada" || rows[1][2] != "3" || rows[1][5] != "1" || rows[1][6] != "Good now." || rows[1][4] == "" {
		t.Errorf("answers.csv row of Ada: %q", rows[1])
	}
	if rows[2][0] != "'=Bob" || rows[2][3] != "'=SUM(A1) a longer lock" || rows[2][5] != "" {
		t.Errorf("answers.csv row of =Bob (formulas neutralised, not reviewed): %q", rows[2])
	}
	d, err := s.Dashboard(ctx, nc.Class.Code, nc.TeacherKey)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Answers) != 3 {
		t.Errorf("the dashboard lists %d open answers, want 3", len(d.Answers))
	}
	pr := progressCSV(t, d, []string{"sms-twice"})
	if pr[1][0] != "Ada" || pr[1][9] != "1" || pr[1][10] != "Good now." || pr[2][9] != "" {
		t.Errorf("progress.csv does not carry the review: %q", pr)
	}
}

// testReviewAuthorization: only the class's teacher scores, only its own
// learners, only answers that exist, only scores from 0 to 1.
func testReviewAuthorization(t *testing.T, h Harness) {
	ctx := context.Background()
	s := h.MustNew(t, classroom.Options{})
	nc := mustCreate(t, s, "A")
	other := mustCreate(t, s, "B")
	ada := mustJoin(t, s, nc.Class.Code, "Ada")
	eve := mustJoin(t, s, other.Class.Code, "Eve")
	mustRecord(t, s, ada.Token, classroom.Attempt{Exercise: "sms-twice", Answer: "an idempotency key please", Graded: false})
	mustRecord(t, s, eve.Token, classroom.Attempt{Exercise: "sms-twice", Answer: "an idempotency key please", Graded: false})
	ok := classroom.Review{LearnerID: ada.Learner.ID, Exercise: "sms-twice", Score: 1}
	for _, tt := range []struct {
		what string
		key  string
		r    classroom.Review
		code string
	}{
		{"no key", "", ok, classroom.EUNAUTHORIZED},
		{"a learner's token", ada.Token, ok, classroom.EFORBIDDEN},
		{"another class's key", other.TeacherKey, ok, classroom.EFORBIDDEN},
		{"another class's learner", nc.TeacherKey, classroom.Review{LearnerID: eve.Learner.ID, Exercise: "sms-twice", Score: 1}, classroom.ENOTFOUND},
		{"an unanswered exercise", nc.TeacherKey, classroom.Review{LearnerID: ada.Learner.ID, Exercise: "interview-pitch", Score: 1}, classroom.ENOTFOUND},
		{"a score above 1", nc.TeacherKey, classroom.Review{LearnerID: ada.Learner.ID, Exercise: "sms-twice", Score: 1.5}, classroom.EINVALID},
		{"a negative score", nc.TeacherKey, classroom.Review{LearnerID: ada.Learner.ID, Exercise: "sms-twice", Score: -0.1}, classroom.EINVALID},
		{"no learner", nc.TeacherKey, classroom.Review{Exercise: "sms-twice", Score: 1}, classroom.EINVALID},
		{"a long comment", nc.TeacherKey, classroom.Review{LearnerID: ada.Learner.ID, Exercise: "sms-twice", Score: 1, Comment: string(bytes.Repeat([]byte("x"), classroom.MaxCommentLen+1))}, classroom.EINVALID},
	} {
		_, err := s.Review(ctx, nc.Class.Code, tt.key, tt.r)
		wantCode(t, err, tt.code, "review with "+tt.what)
	}
	if a, _ := s.Answers(ctx, nc.Class.Code, nc.TeacherKey); a[0].Review != nil {
		t.Errorf("a refused review was stored: %+v", a[0].Review)
	}
	_, err := s.Answers(ctx, nc.Class.Code, ada.Token)
	wantCode(t, err, classroom.EFORBIDDEN, "answers with a learner's token")
	_, err = s.Answers(ctx, nc.Class.Code, other.TeacherKey)
	wantCode(t, err, classroom.EFORBIDDEN, "answers with another class's key")
}

// testServerSecret: a secret is made once and is the same for every
// handle on the database, and across a reopen.
func testServerSecret(t *testing.T, h Harness) {
	ctx := context.Background()
	addr := h.New(t)
	a, err := h.Open(ctx, addr, classroom.Options{})
	if err != nil {
		t.Fatal(err)
	}
	k1, err := a.ServerSecret(ctx, "practice")
	if err != nil || len(k1) != 32 {
		t.Fatalf("secret %x, %v", k1, err)
	}
	k2, _ := a.ServerSecret(ctx, "practice")
	other, _ := a.ServerSecret(ctx, "other")
	if !bytes.Equal(k1, k2) || bytes.Equal(k1, other) {
		t.Errorf("secrets: %x, %x, other %x", k1, k2, other)
	}
	a.Close()
	b := h.MustOpen(t, addr, classroom.Options{})
	if k3, err := b.ServerSecret(ctx, "practice"); err != nil || !bytes.Equal(k1, k3) {
		t.Errorf("after a reopen the secret is %x, %v; want %x", k3, err, k1)
	}
	_, err = b.ServerSecret(ctx, "")
	wantCode(t, err, classroom.EINVALID, "a secret without a name")
}

func progressCSV(tb testing.TB, d *classroom.Dashboard, exercises []string) [][]string {
	tb.Helper()
	var buf bytes.Buffer
	if err := classroom.WriteProgressCSV(&buf, d, exercises); err != nil {
		tb.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		tb.Fatal(err)
	}
	return rows
}

// testAnsweredAgainSinceReview: a learner who answers an open question
// again after the teacher scored it keeps the score (it was earned) but
// the new answer waits to be scored: the status says "resubmitted", the
// new answer has no score in answers.csv (the earlier ones keep theirs),
// and a new review scores it. An answer after the deadline is marked late
// in answers.csv.
func testAnsweredAgainSinceReview(t *testing.T, h Harness) {
	ctx := context.Background()
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	s := h.MustNew(t, classroom.Options{Now: func() time.Time { return now }})
	nc := mustCreate(t, s, "Again")
	code, key := nc.Class.Code, nc.TeacherKey
	ada := mustJoin(t, s, code, "Ada")
	mustRecord(t, s, ada.Token, classroom.Attempt{Exercise: "essay", Answer: "first go", Graded: false})
	now = now.Add(time.Minute)
	if _, err := s.Review(ctx, code, key, classroom.Review{LearnerID: ada.Learner.ID, Exercise: "essay", Score: 0.25, Comment: "Say why."}); err != nil {
		t.Fatal(err)
	}
	status := func() (string, float64) {
		t.Helper()
		d, err := s.Dashboard(ctx, code, key)
		if err != nil || len(d.Progress) != 1 {
			t.Fatalf("dashboard: %+v, %v", d, err)
		}
		sc, _ := classroom.BestScore(d.Progress[0])
		return d.Progress[0].Status(), sc
	}
	if st, sc := status(); st != classroom.StatusScored || sc != 0.25 {
		t.Fatalf("after the review: %q %v", st, sc)
	}
	deadline := now.Add(time.Minute)
	if _, err := s.SetSettings(ctx, code, key, classroom.Settings{ShowMe: true, OpenLessons: []string{}, Deadline: &deadline}); err != nil {
		t.Fatal(err)
	}
	now = deadline.Add(time.Minute)
	mustRecord(t, s, ada.Token, classroom.Attempt{Exercise: "essay", Answer: "second go, with the reason", Graded: false})
	if st, sc := status(); st != classroom.StatusResubmitted || sc != 0.25 {
		t.Errorf("answered again since the review: %q %v, want resubmitted, the earlier score standing", st, sc)
	}
	answers, err := s.Answers(ctx, code, key)
	if err != nil || len(answers) != 2 {
		t.Fatalf("answers: %+v, %v", answers, err)
	}
	if !answers[0].Reviewed() || answers[1].Reviewed() || answers[0].Late || !answers[1].Late {
		t.Errorf("the first answer is the reviewed one, on time; the second neither: %+v", answers)
	}
	var buf bytes.Buffer
	if err := classroom.WriteAnswersCSV(&buf, answers); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if rows[1][5] != "0.25" || rows[1][7] != "0" || rows[2][5] != "" || rows[2][6] != "" || rows[2][7] != "1" {
		t.Errorf("answers.csv: %q; want the first answer scored 0.25, the late second one not scored", rows)
	}
	now = now.Add(time.Minute)
	if _, err := s.Review(ctx, code, key, classroom.Review{LearnerID: ada.Learner.ID, Exercise: "essay", Score: 0.75}); err != nil {
		t.Fatal(err)
	}
	if st, sc := status(); st != classroom.StatusScored || sc != 0.75 {
		t.Errorf("after scoring the new answer: %q %v", st, sc)
	}
}
