package web_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/web"
)

// countingSettings counts the writes of classes' settings.
type countingSettings struct {
	classroom.Store
	writes *atomic.Int32
}

func (s countingSettings) UpdateSettings(ctx context.Context, code, key string, change func(classroom.Settings) (classroom.Settings, error)) (*classroom.Class, error) {
	s.writes.Add(1)
	return s.Store.UpdateSettings(ctx, code, key, change)
}

// TestClassRevealAgainChangesNothing: the teacher API's reveal posted
// again for an exercise already revealed, on a server with LTI and for a
// class with no course, writes nothing and says so. Before, every repeat
// went through the settings' write.
func TestClassRevealAgainChangesNothing(t *testing.T) {
	eachLTIStore(t, func(t *testing.T, kind string) {
		var writes atomic.Int32
		e := startLTIWith(t, kind, func(cfg web.Config) string {
			cfg.Classroom = countingSettings{Store: cfg.Classroom, writes: &writes}
			ts, _ := startServer(t, cfg)
			return ts.URL
		})
		c := createClass(t, e.url, "No course")
		owner := teacher(t, e.url, c.TeacherKey)
		const ex = "outlive-lease"
		var first, again struct {
			Revealed bool   `json:"revealed"`
			Already  bool   `json:"already"`
			Message  string `json:"message"`
		}
		a := owner.postJSON("/api/classes/"+c.Code+"/reveal", `{"exercise":"`+ex+`"}`)
		wantStatus(t, a, http.StatusOK, "the first reveal")
		a.decode(t, &first)
		if !first.Revealed || first.Already || writes.Load() != 1 {
			t.Fatalf("the first reveal answered %+v after %d settings writes; want revealed, not already, one write", first, writes.Load())
		}
		a = owner.postJSON("/api/classes/"+c.Code+"/reveal", `{"exercise":"`+ex+`"}`)
		wantStatus(t, a, http.StatusOK, "the reveal posted again")
		a.decode(t, &again)
		if !again.Revealed || !again.Already || again.Message == "" {
			t.Errorf("the reveal posted again answered %s; want revealed, already, and a message saying nothing changed", a.body)
		}
		if n := writes.Load(); n != 1 {
			t.Errorf("the reveal posted again wrote the settings: %d writes, want 1", n)
		}
	})
}
