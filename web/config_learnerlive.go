package web

import (
	"fmt"
	"time"
)

// LearnerLiveConfig bounds the learners' live class streams (GET
// /api/me/events, see class_mestream.go) and sets the poll their pages
// fall back on. Config.Class.Live holds it; zero values take the defaults.
type LearnerLiveConfig struct {
	// MaxStreams bounds the learners' streams on this server, in a pool
	// of their own: learners fill neither the playground's websockets
	// nor the teachers' dashboards, and those do not shut learners out.
	// Past it a stream is refused with 503 and the page polls.
	MaxStreams int
	// StreamsPerAddress is one address's share of MaxStreams (a class of
	// 200 behind a school's NAT, a tab or two each); past it, 429.
	StreamsPerAddress int
	// StreamsPerLearner bounds one learner's streams (their tabs); past
	// it, 429 and that tab polls. Kept small because a browser speaking
	// HTTP/1.1 has six connections to a site in all, and every open
	// stream holds one of them.
	StreamsPerLearner int
	// MaxAge is the longest a stream stays open: then the server ends it
	// and the browser reconnects (to any replica), so no stream outlives
	// a deploy's drain or holds a place for ever. Each stream's age is
	// drawn between three quarters of it and all of it, so that a class
	// that opened together does not reconnect together.
	MaxAge time.Duration
	// Poll is how often a page without a stream reads /api/me instead;
	// the page is told it in every answer.
	Poll time.Duration
	// KeepAlive is how often an idle stream sends a comment, so that a
	// proxy with a shorter idle timeout than the default's 20 s does not
	// cut it, and a gone browser is noticed.
	KeepAlive time.Duration
}

// Defaults for LearnerLiveConfig.
const (
	DefaultMaxLearnerStreams        = 2000
	DefaultLearnerStreamsPerAddress = 500
	DefaultLearnerStreamsPerLearner = 3
	DefaultLearnerStreamMaxAge      = 30 * time.Minute
	DefaultLearnerPoll              = 5 * time.Second
	DefaultLearnerStreamKeepAlive   = sseKeepAlive
)

func (c LearnerLiveConfig) withDefaults() LearnerLiveConfig {
	if c.MaxStreams == 0 {
		c.MaxStreams = DefaultMaxLearnerStreams
	}
	if c.StreamsPerAddress == 0 {
		c.StreamsPerAddress = min(DefaultLearnerStreamsPerAddress, c.MaxStreams)
	}
	if c.StreamsPerLearner == 0 {
		c.StreamsPerLearner = DefaultLearnerStreamsPerLearner
	}
	if c.MaxAge == 0 {
		c.MaxAge = DefaultLearnerStreamMaxAge
	}
	if c.Poll == 0 {
		c.Poll = DefaultLearnerPoll
	}
	if c.KeepAlive == 0 {
		c.KeepAlive = DefaultLearnerStreamKeepAlive
	}
	return c
}

// validate reports the first bound out of range, naming its flag.
func (c LearnerLiveConfig) validate() error {
	c = c.withDefaults()
	switch {
	case c.MaxStreams < 1 || c.MaxStreams > 100000:
		return fmt.Errorf("max-learner-streams: must be between 1 and 100000, not %d", c.MaxStreams)
	case c.StreamsPerAddress < 1 || c.StreamsPerAddress > c.MaxStreams:
		return fmt.Errorf("learner-streams-per-address: must be between 1 and max-learner-streams (%d), not %d", c.MaxStreams, c.StreamsPerAddress)
	case c.StreamsPerLearner < 1 || c.StreamsPerLearner > 100:
		return fmt.Errorf("learner-streams-per-learner: must be between 1 and 100, not %d", c.StreamsPerLearner)
	case c.MaxAge < 100*time.Millisecond || c.MaxAge > 24*time.Hour:
		return fmt.Errorf("learner-stream-max-age: must be between 100ms and 24h, not %s", c.MaxAge)
	case c.Poll < 100*time.Millisecond || c.Poll > 24*time.Hour:
		return fmt.Errorf("learner-poll: must be between 100ms and 24h, not %s", c.Poll)
	case c.KeepAlive < 10*time.Millisecond || c.KeepAlive > 10*time.Minute:
		return fmt.Errorf("learner-stream-keepalive: must be between 10ms and 10m, not %s", c.KeepAlive)
	}
	return nil
}
