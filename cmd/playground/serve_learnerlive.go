package main

import (
	"time"

	"github.com/leaselab/playground/web"
)

// learnerLiveFlags are serve's bounds on the learners' live class
// streams (GET /api/me/events) and the poll their pages fall back on.
type learnerLiveFlags struct {
	streams, perAddr, perLearner int
	maxAge, poll, keepAlive      time.Duration
}

// addLearnerLiveFlags defines the learner stream flags on ef's flag set.
func addLearnerLiveFlags(ef *envFlags) *learnerLiveFlags {
	f := &learnerLiveFlags{}
	ef.intVar(&f.streams, "max-learner-streams", "PLAYGROUND_MAX_LEARNER_STREAMS", web.DefaultMaxLearnerStreams,
		"learners' pages following their class live at once, in a pool of their own; past it a page polls instead")
	ef.intVar(&f.perAddr, "learner-streams-per-address", "PLAYGROUND_LEARNER_STREAMS_PER_ADDRESS", web.DefaultLearnerStreamsPerAddress,
		"learner streams one address may hold open (a class behind one NAT must fit), at most --max-learner-streams")
	ef.intVar(&f.perLearner, "learner-streams-per-learner", "PLAYGROUND_LEARNER_STREAMS_PER_LEARNER", web.DefaultLearnerStreamsPerLearner,
		"learner streams one learner's tabs may hold open; more tabs poll")
	ef.durationVar(&f.maxAge, "learner-stream-max-age", "PLAYGROUND_LEARNER_STREAM_MAX_AGE", web.DefaultLearnerStreamMaxAge,
		"longest a learner stream stays open before the browser reconnects, between 100ms and 24h")
	ef.durationVar(&f.poll, "learner-poll", "PLAYGROUND_LEARNER_POLL", web.DefaultLearnerPoll,
		"how often a learner's page without a stream reads /api/me, between 100ms and 24h")
	ef.durationVar(&f.keepAlive, "learner-stream-keepalive", "PLAYGROUND_LEARNER_STREAM_KEEPALIVE", web.DefaultLearnerStreamKeepAlive,
		"how often an idle learner stream sends a comment, so that proxies keep it open, between 10ms and 10m")
	return f
}

// apply checks the flags and sets them in the server's configuration;
// errors name the flag. A share larger than its pool is cut to the pool.
func (f *learnerLiveFlags) apply(cfg *web.Config) error {
	switch {
	case f.streams <= 0:
		return usagef("--max-learner-streams: must be positive, not %d", f.streams)
	case f.perAddr <= 0:
		return usagef("--learner-streams-per-address: must be positive, not %d", f.perAddr)
	case f.perLearner <= 0:
		return usagef("--learner-streams-per-learner: must be positive, not %d", f.perLearner)
	case f.maxAge <= 0:
		return usagef("--learner-stream-max-age: must be positive, not %s", f.maxAge)
	case f.poll <= 0:
		return usagef("--learner-poll: must be positive, not %s", f.poll)
	case f.keepAlive <= 0:
		return usagef("--learner-stream-keepalive: must be positive, not %s", f.keepAlive)
	}
	cfg.Class.Live = web.LearnerLiveConfig{MaxStreams: f.streams, StreamsPerAddress: min(f.perAddr, f.streams),
		StreamsPerLearner: f.perLearner, MaxAge: f.maxAge, Poll: f.poll, KeepAlive: f.keepAlive}
	return nil
}
