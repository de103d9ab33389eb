package web

import (
	"fmt"
	"time"
)

// ClassConfig bounds what one address or one teacher may do with the
// classroom; Config.Class holds it. Zero values take the defaults.
type ClassConfig struct {
	// CreateRate bounds the classes one address creates (per minute, and
	// a burst), so that a public server cannot be filled with classes.
	CreateRate Rate
	// StreamsPerKey bounds the live dashboard streams one teacher key
	// holds open at once (tabs, devices, a projector); past it a new
	// stream is refused with 429. All streams together count against
	// Config.MaxConnections with the websockets.
	StreamsPerKey int
	// CreationKey, when set, is required to create a class (the header
	// X-Class-Creation-Key, or the form's creation_key field): a public
	// server whose operator hands it to its teachers.
	CreationKey string
	// Clock is what the per-IP rate limits, and the pages that say
	// whether a class has expired, read the time from; nil is time.Now.
	// Tests fix it (and the store's clock with it), so that what a
	// limiter decides does not depend on how fast the machine is.
	Clock func() time.Time
	// After is the timer that goes with Clock: it fires once Clock has
	// moved on by d (a live page is told its class expired when it
	// does); nil is time.After. A test that moves Clock fires it.
	After func(d time.Duration) <-chan time.Time
	// Live bounds the learners' live class streams and their pages'
	// fallback poll (config_learnerlive.go).
	Live LearnerLiveConfig
}

// DefaultStreamsPerKey lets a teacher keep the dashboard open on a few
// screens; more than that from one key is a script or a leak.
const DefaultStreamsPerKey = 10

func (c ClassConfig) withDefaults() ClassConfig {
	if c.CreateRate == (Rate{}) {
		c.CreateRate = DefaultCreateRate
	}
	if c.StreamsPerKey == 0 {
		c.StreamsPerKey = DefaultStreamsPerKey
	}
	if c.Clock == nil {
		c.Clock = time.Now
	}
	if c.After == nil {
		c.After = time.After
	}
	c.Live = c.Live.withDefaults()
	return c
}

// validate reports the first bound out of range, naming its flag.
func (c ClassConfig) validate() error {
	c = c.withDefaults()
	switch {
	case c.CreateRate.PerMinute <= 0 || c.CreateRate.PerMinute > 10000:
		return fmt.Errorf("class-create-rate: must be more than 0 and at most 10000 a minute, not %g", c.CreateRate.PerMinute)
	case c.CreateRate.Burst < 1 || c.CreateRate.Burst > 10000:
		return fmt.Errorf("class-create-burst: must be between 1 and 10000, not %d", c.CreateRate.Burst)
	case len(c.CreationKey) > 256:
		return fmt.Errorf("class-creation-key: must be at most 256 bytes, not %d", len(c.CreationKey))
	case c.StreamsPerKey < 1 || c.StreamsPerKey > 100000:
		return fmt.Errorf("dashboard-streams-per-key: must be between 1 and 100000, not %d", c.StreamsPerKey)
	}
	return c.Live.validate()
}
