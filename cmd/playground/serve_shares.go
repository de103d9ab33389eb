package main

import (
	"time"

	"github.com/leaselab/playground/web"
)

// shareFlags are serve's bounds on what one address may hold: its share
// of the websockets and of the dashboards' own pool, how long an idle
// socket keeps its place, how many sessions it may have, and how long a
// live run keeps its place while others wait.
type shareFlags struct {
	connsPerAddr  int
	idle          time.Duration
	dashes        int
	dashesPerAddr int
	sessions      int
	liveTurn      time.Duration
	eventRate     float64
}

// addShareFlags defines the share flags on ef's flag set.
func addShareFlags(ef *envFlags) *shareFlags {
	f := &shareFlags{}
	ef.intVar(&f.connsPerAddr, "connections-per-address", "PLAYGROUND_CONNECTIONS_PER_ADDRESS", web.DefaultConnectionsPerAddress,
		"open websockets one address may hold without a session the server issued, at most --max-connections; a learner's or signed visitor's first few count apart, and the address's together are at most --address-share of --max-connections")
	ef.durationVar(&f.idle, "idle-timeout", "PLAYGROUND_IDLE_TIMEOUT", web.DefaultIdleTimeout,
		"close a websocket that starts no run for this long (the page reconnects when Run is pressed)")
	ef.intVar(&f.dashes, "max-dashboard-streams", "PLAYGROUND_MAX_DASHBOARD_STREAMS", web.DefaultMaxDashboardStreams,
		"teachers' live dashboards open at once, in a pool of their own")
	ef.intVar(&f.dashesPerAddr, "dashboard-streams-per-address", "PLAYGROUND_DASHBOARD_STREAMS_PER_ADDRESS", web.DefaultDashboardStreamsPerAddress,
		"live dashboards one address may hold open")
	ef.intVar(&f.sessions, "sessions-per-address", "PLAYGROUND_SESSIONS_PER_ADDRESS", web.DefaultSessionsPerAddress,
		"learners and visitors one address may have running or waiting at once, each with its own fair share; more share the address's anonymous one")
	ef.durationVar(&f.liveTurn, "live-turn", "PLAYGROUND_LIVE_TURN", web.DefaultLiveTurn,
		"how long a live run may hold its place while another run waits for one (a paused or very slow run is then ended)")
	ef.floatVar(&f.eventRate, "live-event-rate", "PLAYGROUND_LIVE_EVENT_RATE", web.DefaultLiveEventRate,
		"events a second a live run may make on its live place alone (its scenario's events per simulated second times its speed); a faster one takes a run slot too")
	return f
}

// apply checks the flags and sets them in the server's configuration;
// errors name the flag. A share larger than its pool is cut to the pool.
func (f *shareFlags) apply(cfg *web.Config) error {
	switch {
	case f.connsPerAddr <= 0:
		return usagef("--connections-per-address: must be positive, not %d", f.connsPerAddr)
	case f.idle <= 0:
		return usagef("--idle-timeout: must be positive, not %s", f.idle)
	case f.dashes <= 0:
		return usagef("--max-dashboard-streams: must be positive, not %d", f.dashes)
	case f.dashesPerAddr <= 0:
		return usagef("--dashboard-streams-per-address: must be positive, not %d", f.dashesPerAddr)
	case f.sessions <= 0:
		return usagef("--sessions-per-address: must be positive, not %d", f.sessions)
	case f.eventRate <= 0:
		return usagef("--live-event-rate: must be positive, not %g", f.eventRate)
	case f.liveTurn <= 0:
		return usagef("--live-turn: must be positive, not %s", f.liveTurn)
	}
	cfg.ConnectionsPerAddress = f.connsPerAddr
	if cfg.MaxConnections > 0 {
		cfg.ConnectionsPerAddress = min(f.connsPerAddr, cfg.MaxConnections)
	}
	cfg.IdleTimeout = f.idle
	cfg.MaxDashboardStreams = f.dashes
	cfg.DashboardStreamsPerAddress = min(f.dashesPerAddr, f.dashes)
	cfg.SessionsPerAddress = f.sessions
	cfg.LiveTurn = f.liveTurn
	cfg.LiveEventRate = f.eventRate
	return nil
}
