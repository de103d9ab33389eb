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

// LTI's part of the suite: the tool's platforms, keys, logins, nonces,
// course classes and score queue, which every replica shares.

func ltiStore(tb testing.TB, s classroom.Store) classroom.LTIStore {
	tb.Helper()
	ls, ok := s.(classroom.LTIStore)
	if !ok {
		tb.Fatalf("%T is not a classroom.LTIStore", s)
	}
	return ls
}

func testPlatform() classroom.LTIPlatform {
	return classroom.LTIPlatform{Issuer: "https://lms.example.edu", ClientID: "client-1", DeploymentIDs: []string{"d1", "d2"},
		AuthURL: "https://lms.example.edu/auth", TokenURL: "https://lms.example.edu/token", JWKSURL: "https://lms.example.edu/jwks",
		FrameOrigins: []string{"https://lms.example.edu"}}
}

func mustPlatform(tb testing.TB, ls classroom.LTIStore) *classroom.LTIPlatform {
	tb.Helper()
	p, err := ls.AddLTIPlatform(context.Background(), testPlatform())
	if err != nil {
		tb.Fatalf("add platform: %v", err)
	}
	return p
}

func testJoinProfile(t *testing.T, h Harness) {
	ctx := context.Background()
	s := h.MustNew(t, classroom.Options{})
	nc := mustCreate(t, s, "Profiles")
	sess, err := s.JoinAs(ctx, nc.Class.Code, classroom.Profile{Name: "Ada", StudentID: "s-1815", Email: "ada@uni.example.edu"})
	if err != nil {
		t.Fatal(err)
	}
	l, _, err := s.Learner(ctx, sess.Token)
	if err != nil || l.StudentID != "s-1815" || l.Email != "ada@uni.example.edu" {
		t.Fatalf("learner after JoinAs = %+v, %v; want the student ID and email kept", l, err)
	}
	_, err = s.JoinAs(ctx, nc.Class.Code, classroom.Profile{Name: "Bo", Email: "bo at uni"})
	wantCode(t, err, classroom.EINVALID, "a bad email")
	// One row per student ID, whatever the name: a gradebook import
	// matches rows by it and would keep one of two.
	_, err = s.JoinAs(ctx, nc.Class.Code, classroom.Profile{Name: "Ada B", StudentID: "S-1815"})
	wantCode(t, err, classroom.ECONFLICT, "a student ID already in the class")
	if err == nil || !strings.HasPrefix(classroom.ErrorMessage(err), "student_id: ") {
		t.Errorf("the refusal %v does not name student_id", err)
	}
	// So for an email: Moodle's import matches rows by it ("Email
	// address"), and a second row with Ada's email, joined later, would
	// give her its grade.
	_, err = s.JoinAs(ctx, nc.Class.Code, classroom.Profile{Name: "Eve", Email: "ADA@uni.example.edu"})
	wantCode(t, err, classroom.ECONFLICT, "an email already in the class")
	if err == nil || !strings.HasPrefix(classroom.ErrorMessage(err), "email: ") {
		t.Errorf("the refusal %v does not name email", err)
	}
	if l2, _, _ := s.Learner(ctx, mustJoin(t, s, nc.Class.Code, "Cy").Token); l2.StudentID != "" || l2.Email != "" {
		t.Fatalf("a plain join has identifiers: %+v", l2)
	}
}

func testLTIPlatforms(t *testing.T, h Harness) {
	ctx := context.Background()
	ls := ltiStore(t, h.MustNew(t, classroom.Options{}))
	p := mustPlatform(t, ls)
	if p.ID == 0 || len(p.DeploymentIDs) != 2 || p.FrameOrigins[0] != "https://lms.example.edu" {
		t.Fatalf("added platform = %+v", p)
	}
	_, err := ls.AddLTIPlatform(ctx, testPlatform())
	wantCode(t, err, classroom.ECONFLICT, "the same issuer and client ID again")
	other := testPlatform()
	other.ClientID = "client-2"
	if _, err := ls.AddLTIPlatform(ctx, other); err != nil {
		t.Fatalf("a second client ID of the issuer: %v", err)
	}
	ps, err := ls.LTIPlatforms(ctx)
	if err != nil || len(ps) != 2 || ps[0].ClientID != "client-1" {
		t.Fatalf("platforms = %+v, %v", ps, err)
	}
	if err := ls.RemoveLTIPlatform(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	wantCode(t, ls.RemoveLTIPlatform(ctx, p.ID), classroom.ENOTFOUND, "removing it twice")
}

func testLTIKeys(t *testing.T, h Harness) {
	ctx := context.Background()
	clock := NewClock()
	ls := ltiStore(t, h.MustNew(t, classroom.Options{Now: clock.Now}))
	if err := ls.AddLTIKey(ctx, classroom.LTIKey{KID: "k1", PrivatePEM: "pem1"}, false); err != nil {
		t.Fatal(err)
	}
	// A second replica making its first key finds one and keeps it.
	if err := ls.AddLTIKey(ctx, classroom.LTIKey{KID: "k1b", PrivatePEM: "pem1b"}, false); err != nil {
		t.Fatal(err)
	}
	ks, _ := ls.LTIKeys(ctx, clock.Now())
	if len(ks) != 1 || ks[0].KID != "k1" {
		t.Fatalf("keys = %+v, want only k1", ks)
	}
	if err := ls.AddLTIKey(ctx, classroom.LTIKey{KID: "k2", PrivatePEM: "pem2"}, true); err != nil {
		t.Fatal(err)
	}
	ks, _ = ls.LTIKeys(ctx, clock.Now().Add(-time.Hour))
	if len(ks) != 2 || ks[0].KID != "k2" || !ks[0].RetiredAt.IsZero() || ks[1].KID != "k1" || ks[1].RetiredAt.IsZero() {
		t.Fatalf("after rotating: %+v, want k2 current then k1 retired", ks)
	}
	clock.Advance(2 * time.Hour)
	if ks, _ = ls.LTIKeys(ctx, clock.Now().Add(-time.Hour)); len(ks) != 1 || ks[0].KID != "k2" {
		t.Fatalf("past the grace: %+v, want k2 only", ks)
	}
}

func testLTILoginsAndNonces(t *testing.T, h Harness) {
	ctx := context.Background()
	clock := NewClock()
	addr := h.New(t)
	ls := ltiStore(t, h.MustOpen(t, addr, classroom.Options{Now: clock.Now}))
	p := mustPlatform(t, ls)
	state := classroom.HashSecret("state-1")
	if err := ls.SaveLTILogin(ctx, state, p.ID, "nonce-1", clock.Now().Add(10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	// Another replica finishes the login this one started.
	other := ls
	if !h.Exclusive {
		other = ltiStore(t, h.MustOpen(t, addr, classroom.Options{Now: clock.Now}))
	}
	if id, nonce, err := other.LTILogin(ctx, state); err != nil || id != p.ID || nonce != "nonce-1" {
		t.Fatalf("login = %d %q %v", id, nonce, err)
	}
	_, _, err := other.LTILogin(ctx, classroom.HashSecret("state-2"))
	wantCode(t, err, classroom.ENOTFOUND, "an unknown state")

	// A nonce is used once, whichever replica sees it, even when many
	// try at once.
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok, used := 0, 0
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := ls
			if i%2 == 1 {
				st = other
			}
			err := st.UseLTINonce(ctx, p.ID, "nonce-1", clock.Now().Add(time.Hour))
			mu.Lock()
			defer mu.Unlock()
			switch classroom.ErrorCode(err) {
			case "":
				ok++
			case classroom.ECONFLICT:
				used++
			default:
				t.Errorf("UseLTINonce: %v", err)
			}
		}()
	}
	wg.Wait()
	if ok != 1 || used != 7 {
		t.Fatalf("8 uses of one nonce: %d accepted, %d refused; want 1 and 7", ok, used)
	}
	clock.Advance(11 * time.Minute)
	_, _, err = ls.LTILogin(ctx, state)
	wantCode(t, err, classroom.ENOTFOUND, "an expired login")
}

func testLTILaunchAndQueue(t *testing.T, h Harness) {
	ctx := context.Background()
	clock := NewClock()
	addr := h.New(t)
	s := h.MustOpen(t, addr, classroom.Options{Now: clock.Now})
	ls := ltiStore(t, s)
	p := mustPlatform(t, ls)
	launch := classroom.LTILaunch{PlatformID: p.ID, ContextID: "course-1", ContextTitle: "Distributed Systems",
		MembershipsURL: "https://lms.example.edu/nrps", Sub: "u1", Name: "Ada", Email: "ada@uni.example.edu", StudentID: "s1",
		ResourceLinkID: "link-1", Target: "exercise:ex1", LineItemURL: "https://lms.example.edu/li/1"}
	r1, err := ls.LTILaunch(ctx, launch)
	if err != nil || r1.Session == nil || r1.Class.Name != "Distributed Systems" || r1.Session.Learner.StudentID != "s1" {
		t.Fatalf("first launch = %+v, %v", r1, err)
	}
	r2, err := ls.LTILaunch(ctx, launch)
	if err != nil || r2.Class.ID != r1.Class.ID || r2.Session.Learner.ID != r1.Session.Learner.ID || r2.Session.Token == r1.Session.Token {
		t.Fatalf("second launch = %+v, %v; want the same class and learner with a new session", r2, err)
	}
	if _, _, err := s.Learner(ctx, r1.Session.Token); classroom.ErrorCode(err) != classroom.EUNAUTHORIZED {
		t.Fatalf("the first session after a new launch: %v, want it ended", err)
	}
	// Another learner of the same name gets a number after it.
	other := launch
	other.Sub = "u2"
	r3, err := ls.LTILaunch(ctx, other)
	if err != nil || r3.Session.Learner.Name != "Ada (2)" {
		t.Fatalf("a second Ada = %+v, %v", r3, err)
	}
	teacher := launch
	teacher.Sub, teacher.Instructor = "t1", true
	rt, err := ls.LTILaunch(ctx, teacher)
	if err != nil || rt.Session != nil || rt.TeacherKey == "" {
		t.Fatalf("instructor launch = %+v, %v", rt, err)
	}
	if c, err := s.Teacher(ctx, r1.Class.Code, rt.TeacherKey); err != nil || c.ID != r1.Class.ID {
		t.Fatalf("the instructor's key: %v", err)
	}
	lc, err := ls.LTIContext(ctx, r1.Class.ID)
	if err != nil || lc.MembershipsURL != launch.MembershipsURL || lc.Subs["u1"] != r1.Session.Learner.ID || len(lc.Subs) != 2 {
		t.Fatalf("context = %+v, %v", lc, err)
	}

	// Scores: queued once per better score, for graded links only.
	learner := r1.Session.Learner.ID
	enqueue := func(target string, given float64) int {
		n, err := ls.EnqueueLTIScore(ctx, r1.Class.ID, learner, target, given, 1, false)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := enqueue("exercise:ex2", 1); n != 0 {
		t.Fatalf("a score on an unlinked exercise queued %d", n)
	}
	if n := enqueue("exercise:ex1", 0.5); n != 1 {
		t.Fatalf("a first score queued %d, want 1", n)
	}
	if n := enqueue("exercise:ex1", 0.5); n != 0 {
		t.Fatalf("the same score again queued %d, want 0", n)
	}
	if n := enqueue("exercise:ex1", 1); n != 1 {
		t.Fatalf("a better score queued %d, want 1", n)
	}
	now := clock.Now()
	job, err := ls.ClaimLTIScore(ctx, now, time.Minute)
	if err != nil || job == nil || job.Given != 1 || job.UserSub != "u1" || job.Platform.TokenURL != testPlatform().TokenURL || job.Tries != 1 {
		t.Fatalf("claim = %+v, %v; want the better score (the first was superseded), with its platform", job, err)
	}
	if j2, err := ls.ClaimLTIScore(ctx, now, time.Minute); err != nil || j2 != nil {
		t.Fatalf("a second claim while the first holds it: %+v, %v", j2, err)
	}
	// The claimer stalled: after the lease another takes it.
	j3, err := ls.ClaimLTIScore(ctx, now.Add(2*time.Minute), time.Minute)
	if err != nil || j3 == nil || j3.ID != job.ID || j3.Tries != 2 {
		t.Fatalf("claim after the lease = %+v, %v", j3, err)
	}
	// The stalled claimer's post did reach the course after all: the
	// score is sent, whoever holds it now. The second claimer's try, which
	// fails, neither sends it again later nor gives it up
	// (testLTIScoreStaleClaimCannotEnd has a stale failure instead).
	if err := ls.FinishLTIScore(ctx, job, "sent", "", time.Time{}); err != nil {
		t.Fatal(err)
	}
	if err := ls.FinishLTIScore(ctx, j3, "", "503", now.Add(3*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if j4, _ := ls.ClaimLTIScore(ctx, now.Add(time.Hour), time.Minute); j4 != nil {
		t.Fatalf("a sent score was claimed again: %+v", j4)
	}
	jobs, _ := ls.LTIScoreJobs(ctx, 10)
	if len(jobs) != 2 || jobs[0].Outcome != "sent" || jobs[1].Outcome != "superseded" {
		t.Fatalf("queue = %+v", jobs)
	}
	// The standing goes down (a withdrawn late credit, a regrade): the
	// platform keeps the last score posted, so the lower one is sent too,
	// and once.
	if n := enqueue("exercise:ex1", 0.25); n != 1 {
		t.Fatalf("a lower score after the sent 1 queued %d, want 1: the gradebook would keep the 1", n)
	}
	if n := enqueue("exercise:ex1", 0.25); n != 0 {
		t.Fatalf("the same lower score again queued %d, want 0", n)
	}
	j5, err := ls.ClaimLTIScore(ctx, now.Add(time.Hour), time.Minute)
	if err != nil || j5 == nil || j5.Given != 0.25 {
		t.Fatalf("claim of the lowered score = %+v, %v", j5, err)
	}
	// The platform refused it until the queue gave up: it still holds
	// the 1. The same standing queued again is sent, not taken for one
	// the platform has.
	if err := ls.FinishLTIScore(ctx, j5, "failed", "503", time.Time{}); err != nil {
		t.Fatal(err)
	}
	if n := enqueue("exercise:ex1", 0.25); n != 1 {
		t.Fatalf("the score the queue gave up on, queued again, queued %d, want 1: the gradebook keeps the 1", n)
	}
}

// testLTIQueueReplicas has replicas claim a queue together: every score
// is claimed by exactly one.
func testLTIQueueReplicas(t *testing.T, h Harness) {
	if !h.Replicas {
		t.Skip("one server process per store")
	}
	ctx := context.Background()
	clock := NewClock()
	addr := h.New(t)
	s := h.MustOpen(t, addr, classroom.Options{Now: clock.Now})
	ls := ltiStore(t, s)
	p := mustPlatform(t, ls)
	const n = 12
	var classID int64
	for i := range n {
		r, err := ls.LTILaunch(ctx, classroom.LTILaunch{PlatformID: p.ID, ContextID: "c", Sub: fmt.Sprint("u", i), Name: fmt.Sprint("L", i),
			ResourceLinkID: "link", Target: "exercise:ex", LineItemURL: "https://lms.example.edu/li"})
		if err != nil {
			t.Fatal(err)
		}
		classID = r.Class.ID
		if q, err := ls.EnqueueLTIScore(ctx, classID, r.Session.Learner.ID, "exercise:ex", 1, 1, false); err != nil || q != 1 {
			t.Fatalf("enqueue: %d %v", q, err)
		}
	}
	seen := map[int64]int{}
	claimOnReplicas(t, h, addr, ls, clock, clock.Now().Add(time.Minute), func(j *classroom.LTIScoreJob) { seen[j.ID]++ })
	if len(seen) != n {
		t.Fatalf("%d scores claimed, want %d", len(seen), n)
	}
	for id, c := range seen {
		if c != 1 {
			t.Errorf("score %d claimed %d times", id, c)
		}
	}
}

// testLTILessonScore: a lesson's score is the learner's points on its
// exercises, of what they are worth (GradeCell and GradeItem.Points, as
// the gradebook's lesson column); a learner who came by no launch queues
// nothing.
func testLTILessonScore(t *testing.T, h Harness) {
	ctx := context.Background()
	one := func(string) float64 { return 1 }
	leases := classroom.ItemOf("leases", []string{"a", "b", "c"}, one)
	s := h.MustNew(t, classroom.Options{})
	ls := ltiStore(t, s)
	p := mustPlatform(t, ls)
	r, err := ls.LTILaunch(ctx, classroom.LTILaunch{PlatformID: p.ID, ContextID: "c", Sub: "u1", Name: "Ada",
		ResourceLinkID: "l", Target: "lesson:leases", LineItemURL: "https://lms.example.edu/li/2"})
	if err != nil {
		t.Fatal(err)
	}
	mustRecord(t, s, r.Session.Token, classroom.Attempt{Exercise: "a", Answer: "1", Correct: true, Graded: true})
	mustRecord(t, s, r.Session.Token, classroom.Attempt{Exercise: "b", Answer: "1", Graded: true})
	mustRecord(t, s, r.Session.Token, classroom.Attempt{Exercise: "z", Answer: "1", Correct: true, Graded: true})
	if n, err := ls.EnqueueLTIItemScore(ctx, r.Class.ID, r.Session.Learner.ID, "lesson:leases", leases); err != nil || n != 1 {
		t.Fatalf("lesson score queued %d, %v", n, err)
	}
	j, err := ls.ClaimLTIScore(ctx, time.Now().Add(time.Hour), time.Minute)
	if err != nil || j == nil || j.Given != 1 || j.Maximum != 3 {
		t.Fatalf("lesson score = %+v, %v; want 1 of 3 (z is not the lesson's, b is wrong)", j, err)
	}
	if err := ls.FinishLTIScore(ctx, j, "sent", "", time.Time{}); err != nil {
		t.Fatal(err)
	}
	// A revealed exercise the teacher scored counts as the gradebook
	// counts it (BestScore): Ada gives up on b, and is given 1 for it.
	if _, err := s.GiveUp(ctx, r.Session.Token, "b", 0); err != nil {
		t.Fatal(err)
	}
	rt, err := ls.LTILaunch(ctx, classroom.LTILaunch{PlatformID: p.ID, ContextID: "c", Sub: "t1", Name: "Teacher", Instructor: true,
		ResourceLinkID: "l", Target: "lesson:leases", LineItemURL: "https://lms.example.edu/li/2"})
	if err != nil || rt.TeacherKey == "" {
		t.Fatalf("the instructor's launch: %+v, %v", rt, err)
	}
	if _, err := s.Review(ctx, r.Class.Code, rt.TeacherKey, classroom.Review{LearnerID: r.Session.Learner.ID, Exercise: "b", Score: 1, Graded: true}); err != nil {
		t.Fatal(err)
	}
	if n, err := ls.EnqueueLTIItemScore(ctx, r.Class.ID, r.Session.Learner.ID, "lesson:leases", leases); err != nil || n != 1 {
		t.Fatalf("lesson score queued %d, %v", n, err)
	}
	j, err = ls.ClaimLTIScore(ctx, time.Now().Add(2*time.Hour), time.Minute)
	if err != nil || j == nil || j.Given != 2 || j.Maximum != 3 {
		t.Fatalf("lesson score after the teacher scored b = %+v, %v; want 2 of 3, as the gradebook says", j, err)
	}
	if err := ls.FinishLTIScore(ctx, j, "sent", "", time.Time{}); err != nil {
		t.Fatal(err)
	}
	// Each exercise counts at its points: a worth 2 makes it 3 of 4.
	weighted := classroom.ItemOf("leases", []string{"a", "b", "c"}, func(id string) float64 {
		if id == "a" {
			return 2
		}
		return 1
	})
	if n, err := ls.EnqueueLTIItemScore(ctx, r.Class.ID, r.Session.Learner.ID, "lesson:leases", weighted); err != nil || n != 1 {
		t.Fatalf("weighted lesson score queued %d, %v", n, err)
	}
	j, err = ls.ClaimLTIScore(ctx, time.Now().Add(3*time.Hour), time.Minute)
	if err != nil || j == nil || j.Given != 3 || j.Maximum != 4 {
		t.Fatalf("lesson score with a worth 2 = %+v, %v; want 3 of 4", j, err)
	}
	if err := ls.FinishLTIScore(ctx, j, "sent", "", time.Time{}); err != nil {
		t.Fatal(err)
	}
	// An open answer in the lesson, submitted and not scored yet, makes
	// the lesson's score partial: queued again as pending, the same
	// points, until the teacher scores it.
	claim := func(at time.Duration, want string, given float64, pending bool) {
		t.Helper()
		j, err := ls.ClaimLTIScore(ctx, time.Now().Add(at), time.Minute)
		if err != nil || j == nil || j.Given != given || j.Maximum != 3 || j.Pending != pending {
			t.Fatalf("%s: %+v, %v; want %v of 3, pending %v", want, j, err, given, pending)
		}
		if err := ls.FinishLTIScore(ctx, j, "sent", "", time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := ls.EnqueueLTIItemScore(ctx, r.Class.ID, r.Session.Learner.ID, "lesson:leases", leases); err != nil || n != 1 {
		t.Fatalf("lesson score queued %d, %v", n, err)
	}
	claim(4*time.Hour, "the lesson again, unweighted", 2, false)
	mustRecord(t, s, r.Session.Token, classroom.Attempt{Exercise: "c", Answer: "an essay", Graded: false})
	if n, err := ls.EnqueueLTIItemScore(ctx, r.Class.ID, r.Session.Learner.ID, "lesson:leases", leases); err != nil || n != 1 {
		t.Fatalf("the lesson with an open answer waiting: queued %d, %v; want it queued again as pending", n, err)
	}
	claim(5*time.Hour, "the lesson with an open answer waiting", 2, true)
	if _, err := s.Review(ctx, r.Class.Code, rt.TeacherKey, classroom.Review{LearnerID: r.Session.Learner.ID, Exercise: "c", Score: 0.5}); err != nil {
		t.Fatal(err)
	}
	if n, err := ls.EnqueueLTIItemScore(ctx, r.Class.ID, r.Session.Learner.ID, "lesson:leases", leases); err != nil || n != 1 {
		t.Fatalf("the lesson once the teacher scored the open answer: queued %d, %v", n, err)
	}
	claim(6*time.Hour, "the lesson once the open answer is scored", 2.5, false)
	hand := mustJoin(t, s, r.Class.Code, "Bo")
	mustRecord(t, s, hand.Token, classroom.Attempt{Exercise: "a", Answer: "1", Correct: true, Graded: true})
	if n, err := ls.EnqueueLTIItemScore(ctx, r.Class.ID, hand.Learner.ID, "lesson:leases", classroom.ItemOf("leases", []string{"a"}, one)); err != nil || n != 0 {
		t.Fatalf("a learner who joined by code queued %d, %v", n, err)
	}
}

// claimOnReplicas has ls and two more replicas opened on addr claim
// scores at now, all at once, until none is left, and calls claimed with
// each score claimed, one call at a time.
func claimOnReplicas(t *testing.T, h Harness, addr string, ls classroom.LTIStore, clock *Clock, now time.Time, claimed func(*classroom.LTIScoreJob)) {
	t.Helper()
	ctx := context.Background()
	replicas := []classroom.LTIStore{ls, ltiStore(t, h.MustOpen(t, addr, classroom.Options{Now: clock.Now})), ltiStore(t, h.MustOpen(t, addr, classroom.Options{Now: clock.Now}))}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, r := range replicas {
		wg.Go(func() {
			for {
				j, err := r.ClaimLTIScore(ctx, now, time.Hour)
				if err != nil {
					t.Error(err)
					return
				}
				if j == nil {
					return
				}
				mu.Lock()
				claimed(j)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
}
