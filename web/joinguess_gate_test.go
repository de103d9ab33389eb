package web_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/web"
)

// guessHoldingStore holds every device code that begins ZZZZZ in its
// lookup until release is closed, and counts those lookups.
type guessHoldingStore struct {
	classroom.Store
	release chan struct{}
	lookups atomic.Int64
}

func (s *guessHoldingStore) ContinueSession(ctx context.Context, code string) (*classroom.Session, error) {
	if strings.HasPrefix(classroom.NormalizeCode(code), "ZZZZZ") {
		s.lookups.Add(1)
		<-s.release
	}
	return s.Store.ContinueSession(ctx, code)
}

// guessesWaiting reads playground_code_guesses_waiting (0 when absent).
func guessesWaiting(t *testing.T, base string) int {
	t.Helper()
	m := regexp.MustCompile(`(?m)^playground_code_guesses_waiting (\d+)`).FindStringSubmatch(newPerson(t, base).get("/metrics").body)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// TestCodesSentAtOnceCannotOutrunTheWrongCodeLimit: a script that sends
// its guesses all at once, rather than one after another, gets no more of
// them looked up than the wrong-code bucket holds: the ones past it wait
// their turn while the others are looked up, and, those all wrong, are
// refused (429). Right codes sent at once by a class behind the same
// address all go through, waiting their turn at most.
func TestCodesSentAtOnceCannotOutrunTheWrongCodeLimit(t *testing.T) {
	st := &guessHoldingStore{Store: openSQLite(t), release: make(chan struct{})}
	clk := newTestClock()
	ts, _ := startServer(t, web.Config{Classroom: st, Class: web.ClassConfig{Clock: clk.Now}})
	base := ts.URL
	burst := web.DefaultWrongCodeRate.Burst

	// Twice the bucket of learners go on in another browser at once,
	// every code right: all of them do.
	c := createClass(t, base, "Hall")
	codes := make([]string, 2*burst)
	for i := range codes {
		p, _ := join(t, base, c.Code, fmt.Sprint("Learner ", i))
		a := p.postJSON("/api/me/device-code", "")
		wantStatus(t, a, http.StatusCreated, "a device code")
		var offer struct{ Code string }
		a.decode(t, &offer)
		codes[i] = offer.Code
	}
	statuses := sendAtOnce(t, base, codes)
	if got := statuses[http.StatusOK]; got != len(codes) {
		t.Fatalf("%d learners continuing at once with right codes: %v, want %d x 200", len(codes), statuses, len(codes))
	}

	// A script sends the bucket and five more guesses at once.
	guesses := make([]string, burst+5)
	for i := range guesses {
		guesses[i] = "ZZZZZ-ZZ" + string(classroom.CodeAlphabet[i/32]) + string(classroom.CodeAlphabet[i%32]) + "Z"
	}
	done := make(chan map[int]int)
	go func() { done <- sendAtOnce(t, base, guesses) }()
	// Wait until every guess is either being looked up or waiting.
	for int(st.lookups.Load())+guessesWaiting(t, base) < len(guesses) {
		time.Sleep(time.Millisecond)
	}
	if n := st.lookups.Load(); n != int64(burst) {
		t.Errorf("%d guesses sent at once: %d looked up, want the bucket's %d", len(guesses), n, burst)
	}
	close(st.release)
	statuses = <-done
	if statuses[http.StatusNotFound] != burst || statuses[http.StatusTooManyRequests] != len(guesses)-burst {
		t.Errorf("%d guesses sent at once were answered %v, want %d x 404 and %d x 429", len(guesses), statuses, burst, len(guesses)-burst)
	}
	if n := guessesWaiting(t, base); n != 0 {
		t.Errorf("%d guesses still wait after all were answered", n)
	}
}

// sendAtOnce sends every code to POST /api/classes/continue at once, each
// from a browser of its own, and counts the answers by status.
func sendAtOnce(t *testing.T, base string, codes []string) map[int]int {
	var mu sync.Mutex
	out := map[int]int{}
	var wg sync.WaitGroup
	for _, code := range codes {
		wg.Go(func() {
			a := newPerson(t, base).postJSON("/api/classes/continue", `{"code":"`+code+`"}`)
			mu.Lock()
			defer mu.Unlock()
			out[a.status]++
		})
	}
	wg.Wait()
	return out
}
