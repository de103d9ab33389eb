package web_test

import (
	"bytes"
	"compress/flate"
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/lessons"
	"github.com/leaselab/playground/web"
)

// BenchmarkDashboardRead measures one read of a teacher's dashboard
// (GET /api/classes/{code}/dashboard: the store's read, the grid, the
// totals every view shares, the answers to mark) for a class of 200
// learners who each answered 10 exercises, on SQLite. What a live
// dashboard pays on every change it hears of; bytes/read is what each of
// its streams is sent each time, gzip-bytes/event what a compressed
// stream is sent.
//
//	go test ./web -run '^$' -bench DashboardRead -benchtime 200x -count 3
func BenchmarkDashboardRead(b *testing.B) {
	st := openSQLite(b)
	ts, _ := startServer(b, web.Config{Classroom: st})
	c := createClass(b, ts.URL, "Big class")
	cat, err := lessons.Default()
	if err != nil {
		b.Fatal(err)
	}
	var exercises []string
	for _, ex := range cat.Exercises()[:10] {
		exercises = append(exercises, ex.ID)
	}
	ctx := context.Background()
	for i := range 200 {
		s, err := st.Join(ctx, c.Code, fmt.Sprint("Learner ", i))
		if err != nil {
			b.Fatal(err)
		}
		for j, ex := range exercises {
			if _, err := st.Record(ctx, s.Token, classroom.Attempt{Exercise: ex, Answer: "1", Correct: (i+j)%3 == 0, Graded: true}); err != nil {
				b.Fatal(err)
			}
		}
	}
	owner := teacher(b, ts.URL, c.TeacherKey)
	b.ReportAllocs()
	b.ResetTimer()
	var body string
	for b.Loop() {
		a := owner.get("/api/classes/" + c.Code + "/dashboard")
		if a.status != http.StatusOK {
			b.Fatalf("dashboard: %d", a.status)
		}
		body = a.body
	}
	b.ReportMetric(float64(len(body)), "bytes/read")
	// What a compressed stream sends for it (the feed deflates each event
	// once, as here).
	var z bytes.Buffer
	zw, _ := flate.NewWriter(&z, flate.DefaultCompression)
	zw.Write([]byte(body))
	zw.Flush()
	b.ReportMetric(float64(z.Len()), "gzip-bytes/event")
}
