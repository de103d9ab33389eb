package web_test

import (
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/lessons"
	"github.com/leaselab/playground/web"
)

// BenchmarkHTTPChecksRecorded measures exercise checks recorded per
// second through the whole web stack: HTTP, the check endpoint's grading,
// and the store's durable commit, as a class of 60 learners sends them.
// Only the number and choice exercises are used (no engine run), so the
// figure is the cost of checking and recording, not of simulating. The
// per-IP check limit is lifted: the benchmark is one address.
//
//	go test ./web -run '^$' -bench HTTPChecksRecorded -benchtime 3s -cpu 1,8
func BenchmarkHTTPChecksRecorded(b *testing.B) {
	for _, k := range storeKinds() {
		b.Run(k.name, func(b *testing.B) { benchChecks(b, k.open(b)) })
	}
}

func benchChecks(b *testing.B, st classroom.Store) {
	saved := [2]web.Rate{web.DefaultJoinRate, web.DefaultCheckRate}
	web.DefaultJoinRate = web.Rate{PerMinute: 1e9, Burst: 1 << 30}
	web.DefaultCheckRate = web.Rate{PerMinute: 1e9, Burst: 1 << 30}
	srv, err := web.NewServer(web.Config{Classroom: st})
	web.DefaultJoinRate, web.DefaultCheckRate = saved[0], saved[1]
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	b.Cleanup(ts.Close)

	cat, err := lessons.Default()
	if err != nil {
		b.Fatal(err)
	}
	var exercises []string
	for _, ex := range cat.Exercises() {
		if ex.Kind == lessons.KindNumber || ex.Kind == lessons.KindChoice {
			exercises = append(exercises, ex.ID)
		}
	}
	probe, _ := http.Post(ts.URL+"/api/exercises/"+exercises[0]+"/check", "application/json", strings.NewReader(`{"answer":"1"}`))
	if probe != nil {
		probe.Body.Close()
		if probe.StatusCode == http.StatusNotFound {
			b.Skip("POST /api/exercises/{id}/check is not on this branch (the lesson pages add it)")
		}
	}

	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	b.Cleanup(tr.CloseIdleConnections)
	c := createClass(b, ts.URL, "Bench")
	const learners = 60
	clients := make([]*http.Client, learners)
	for i := range clients {
		// Numbered names: letters like "La" and "Ia" look alike and are refused.
		p, _ := join(b, ts.URL, c.Code, fmt.Sprintf("learner %02d", i))
		jar, _ := cookiejar.New(nil)
		u, _ := url.Parse(ts.URL)
		jar.SetCookies(u, []*http.Cookie{{Name: web.LearnerCookie, Value: p.cookie(web.LearnerCookie)}})
		clients[i] = &http.Client{Transport: tr, Jar: jar}
	}
	var next atomic.Int64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			n := next.Add(1)
			cl := clients[n%learners]
			ex := exercises[(n/learners)%int64(len(exercises))]
			res, err := cl.Post(ts.URL+"/api/exercises/"+ex+"/check", "application/json", strings.NewReader(`{"answer":"3"}`))
			if err != nil {
				b.Error(err)
				return
			}
			res.Body.Close()
			if res.StatusCode != http.StatusOK {
				b.Errorf("check %s: %s", ex, res.Status)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "checks/s")
}
