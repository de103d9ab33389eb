package storetest

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/leaselab/playground/classroom"
)

// benchLearners is a realistic class: a lecture's worth of learners, each
// goroutine of the benchmark checking as one of them.
const benchLearners = 60

// Bench measures recorded checks per second: the record step alone, and
// the record followed by the progress read a check's response carries.
// Goroutines run in parallel (-cpu sets how many), as requests do.
func Bench(b *testing.B, h Harness) {
	b.Run("Record", func(b *testing.B) { benchRecord(b, h, false) })
	b.Run("RecordAndProgress", func(b *testing.B) { benchRecord(b, h, true) })
	b.Run("Dashboard", func(b *testing.B) { benchDashboard(b, h) })
}

// benchDashboard measures what a live dashboard pays per change: the whole
// class read again, for a lecture of benchLearners learners who each tried
// 12 exercises 4 times.
func benchDashboard(b *testing.B, h Harness) {
	ctx := context.Background()
	s := h.MustNew(b, classroom.Options{})
	nc := mustCreate(b, s, "Bench")
	for i := range benchLearners {
		sess := mustJoin(b, s, nc.Class.Code, fmt.Sprintf("learner %d", i))
		for k := range 48 {
			mustRecord(b, s, sess.Token, classroom.Attempt{Exercise: fmt.Sprintf("ex-%d", k%12), Answer: fmt.Sprint(k % 5), Graded: true, Correct: k >= 36})
		}
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Dashboard(ctx, nc.Class.Code, nc.TeacherKey); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "reads/s")
}

func benchRecord(b *testing.B, h Harness, read bool) {
	ctx := context.Background()
	s := h.MustNew(b, classroom.Options{Limits: classroom.Limits{MaxAttemptsPerExercise: 1 << 30}})
	nc := mustCreate(b, s, "Bench")
	sessions := make([]*classroom.Session, benchLearners)
	for i := range sessions {
		sessions[i] = mustJoin(b, s, nc.Class.Code, fmt.Sprintf("learner %d", i))
	}
	var next atomic.Int64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		sess := sessions[int(next.Add(1)-1)%len(sessions)]
		creds := classroom.Credentials{Session: sess.Token}
		i := 0
		for pb.Next() {
			i++
			a := classroom.Attempt{Exercise: fmt.Sprintf("ex-%d", i%12), Variant: 3, Answer: fmt.Sprint(i), Graded: true, Correct: i%4 == 0, Feedback: "Not quite: the lease ran out first."}
			if _, err := s.Record(ctx, sess.Token, a); err != nil {
				b.Fatal(err)
			}
			if read {
				if _, err := s.LearnerProgress(ctx, nc.Class.Code, creds, sess.Learner.ID); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "checks/s")
}
