package web

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/engine"
)

// healthz: GET /healthz is the liveness probe. It says whether the process
// serves at all, so it answers 200 even while the classroom store is down:
// restarting every replica would not bring the database back, and would
// end every live run for nothing. It reports the store's state all the
// same, for people reading it: as of its last ping, so that the probe
// never waits behind a busy database (health_store.go).
func (s *Server) healthz(c echo.Context) error {
	body := s.healthBody()
	if s.cfg.Classroom != nil {
		if err := s.storeState(); err != nil {
			body["store"] = "not answering"
		} else {
			body["store"] = "ok"
		}
	}
	return c.JSON(http.StatusOK, body)
}

// readyz: GET /readyz is the readiness probe: 200 when the replica should
// get requests (its classroom store answers a query, and its warm Raft
// groups have been booted once), 503 otherwise and while it shuts down, so
// the load balancer sends its traffic to the replicas that can serve it.
func (s *Server) readyz(c echo.Context) error {
	body := s.healthBody()
	ready := true
	if s.ctx.Err() != nil {
		body["status"], ready = "stopping", false
	}
	if s.cfg.Classroom != nil {
		if err := s.pingStore(c.Request().Context()); err != nil {
			// A replica that cannot reach its store must leave the load
			// balancer's rotation: it would lose every answer.
			s.log.Warn("readyz: classroom store does not answer", slog.Any("err", err))
			body["store"], ready = "not answering", false
		} else {
			body["store"] = "ok"
		}
	}
	if s.pool != nil {
		if s.poolWarm() {
			body["warm_pool"] = "ok"
		} else {
			body["warm_pool"], ready = "filling", false
		}
	}
	if !ready {
		if body["status"] == "ok" {
			body["status"] = "unavailable"
		}
		return c.JSON(http.StatusServiceUnavailable, body)
	}
	return c.JSON(http.StatusOK, body)
}

func (s *Server) healthBody() map[string]any {
	return map[string]any{"status": "ok", "live_runs": s.LiveRuns(), "queued_runs": s.QueuedRuns(), "connections": s.Connections()}
}

func (s *Server) pingStore(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	return s.cfg.Classroom.Ping(ctx)
}

// poolWarm reports whether the warm pool has held every group it keeps at
// least once since start-up. After that it stays true: under load the
// pool is drained by runs, which is what it is for, not a reason to stop
// sending the replica work.
func (s *Server) poolWarm() bool {
	if s.warmed.Load() {
		return true
	}
	size := engine.PoolSizeForSlots(s.cfg.RunSlots)
	want := size.One + size.Three + size.Five
	idle := 0
	for _, n := range s.pool.Stats().Idle {
		idle += n
	}
	if idle >= want {
		s.warmed.Store(true)
		return true
	}
	return false
}
