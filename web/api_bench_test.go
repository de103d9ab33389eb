package web_test

import (
	"bytes"
	"io"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/leaselab/playground/web"
)

// BenchmarkAPIRun posts one preset (fenced) to POST /api/run on a warm
// server, one request at a time, and reports the median and p90 wall time
// of a request: parsing, the run as fast as possible (its Raft group
// included) and the JSON answer.
//
// Rerun: go test ./web -run '^$' -bench APIRun -benchtime 40x
func BenchmarkAPIRun(b *testing.B) {
	for _, name := range []string{"paused-holder", "raft-failover"} {
		b.Run(name, func(b *testing.B) {
			ts, _ := startServer(b, web.Config{})
			body := preset(b, name, true)
			post := func() {
				res, err := http.Post(ts.URL+"/api/run", "application/json", bytes.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				out, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode != http.StatusOK {
					b.Fatalf("POST /api/run: %d %s", res.StatusCode, out)
				}
			}
			post() // warm: the first request pays for lazy set-up
			var took []float64
			b.ResetTimer()
			for b.Loop() {
				start := time.Now()
				post()
				took = append(took, ms(time.Since(start)))
			}
			slices.Sort(took)
			b.ReportMetric(took[len(took)/2], "median-ms")
			b.ReportMetric(took[len(took)*9/10], "p90-ms")
		})
	}
}
