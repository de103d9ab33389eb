package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/web"
)

// classFlags are serve's classroom bounds: how fast one address may
// create classes and how many it may have, how many classes the store
// holds, how many live dashboards one teacher key may hold open, how long
// unused, empty and archived classes are kept, and the key that creating
// a class may need.
type classFlags struct {
	createRate  float64
	createBurst int
	streams     int
	retention   time.Duration
	grace       time.Duration
	// The classes the store holds, and who may make them.
	maxClasses     int
	maxEmpty       int
	perAddress     int
	emptyRetention time.Duration
	creationKey    string
	// The bytes of answers kept for one learner and one class.
	learnerBytes, classBytes int64
}

// addClassFlags defines the classroom flags on ef's flag set.
func addClassFlags(ef *envFlags) *classFlags {
	f := &classFlags{}
	ef.floatVar(&f.createRate, "class-create-rate", "PLAYGROUND_CLASS_CREATE_RATE", web.DefaultCreateRate.PerMinute,
		"classes one address may create a minute once its burst is spent")
	ef.intVar(&f.createBurst, "class-create-burst", "PLAYGROUND_CLASS_CREATE_BURST", web.DefaultCreateRate.Burst,
		"classes one address may create at once")
	ef.intVar(&f.streams, "dashboard-streams-per-key", "PLAYGROUND_DASHBOARD_STREAMS_PER_KEY", web.DefaultStreamsPerKey,
		"live dashboards one teacher key may hold open at once (all of them count against --max-dashboard-streams)")
	ef.daysVar(&f.retention, "class-retention", "PLAYGROUND_CLASS_RETENTION", classroom.DefaultRetention,
		"how long a class may go unused (no join, answer or teacher change) before it expires and takes no more joins or answers, like 180d or 720h")
	ef.daysVar(&f.grace, "class-grace", "PLAYGROUND_CLASS_GRACE", classroom.DefaultGrace,
		"how long an archived or expired class is kept for its teacher to export or restore before it is deleted, like 30d")
	d := classroom.DefaultLimits()
	ef.intVar(&f.maxClasses, "max-classes", "PLAYGROUND_MAX_CLASSES", d.MaxClasses,
		"classes in use (someone joined them) the store may hold; archived and expired ones count until deleted")
	ef.intVar(&f.maxEmpty, "max-empty-classes", "PLAYGROUND_MAX_EMPTY_CLASSES", d.MaxEmptyClasses,
		"classes nobody has joined yet the store may hold, counted apart from those in use")
	ef.intVar(&f.perAddress, "classes-per-address", "PLAYGROUND_CLASSES_PER_ADDRESS", d.MaxClassesPerAddress,
		"live classes one address may have made (an IPv6 /64 is one address)")
	ef.daysVar(&f.emptyRetention, "empty-class-retention", "PLAYGROUND_EMPTY_CLASS_RETENTION", classroom.DefaultEmptyRetention,
		"how long a class nobody joins is kept after it was made, like 1d or 12h")
	ef.sizeVar(&f.learnerBytes, "max-bytes-per-learner", "PLAYGROUND_MAX_BYTES_PER_LEARNER", d.MaxBytesPerLearner,
		"`bytes` of answers the store keeps for one learner (like 2MiB); past it their answers are refused as full")
	ef.sizeVar(&f.classBytes, "max-bytes-per-class", "PLAYGROUND_MAX_BYTES_PER_CLASS", d.MaxBytesPerClass,
		"`bytes` of answers the store keeps for one class (like 256MiB); past it the class's answers are refused as full")
	f.creationKey = ef.getenv("PLAYGROUND_CLASS_CREATION_KEY")
	ef.fs.StringVar(&f.creationKey, "class-creation-key", f.creationKey,
		"when set, creating a class needs this key (header X-Class-Creation-Key, or the form's field); give it to your teachers (env PLAYGROUND_CLASS_CREATION_KEY)")
	return f
}

// apply checks the flags and sets them in the server's and the store's
// configuration; errors name the flag.
func (f *classFlags) apply(cfg *web.Config, opts *classroom.Options) error {
	switch {
	case f.createRate <= 0:
		return usagef("--class-create-rate: must be positive, not %g", f.createRate)
	case f.createBurst <= 0:
		return usagef("--class-create-burst: must be positive, not %d", f.createBurst)
	case f.streams <= 0:
		return usagef("--dashboard-streams-per-key: must be positive, not %d", f.streams)
	case f.retention < time.Hour:
		return usagef("--class-retention: must be at least 1h, not %s", f.retention)
	case f.grace < time.Hour:
		return usagef("--class-grace: must be at least 1h, not %s", f.grace)
	case f.maxClasses <= 0:
		return usagef("--max-classes: must be positive, not %d", f.maxClasses)
	case f.maxEmpty <= 0:
		return usagef("--max-empty-classes: must be positive, not %d", f.maxEmpty)
	case f.perAddress <= 0:
		return usagef("--classes-per-address: must be positive, not %d", f.perAddress)
	case f.emptyRetention < time.Hour:
		return usagef("--empty-class-retention: must be at least 1h, not %s", f.emptyRetention)
	case f.learnerBytes <= 0:
		return usagef("--max-bytes-per-learner: must be positive, not %d", f.learnerBytes)
	case f.classBytes <= 0:
		return usagef("--max-bytes-per-class: must be positive, not %d", f.classBytes)
	case len(f.creationKey) > 256:
		return usagef("--class-creation-key: must be at most 256 bytes, not %d", len(f.creationKey))
	}
	cfg.Class.CreateRate = web.Rate{PerMinute: f.createRate, Burst: f.createBurst}
	cfg.Class.StreamsPerKey = f.streams
	opts.Retention, opts.Grace = f.retention, f.grace
	opts.EmptyRetention = f.emptyRetention
	opts.Limits.MaxClasses, opts.Limits.MaxEmptyClasses, opts.Limits.MaxClassesPerAddress = f.maxClasses, f.maxEmpty, f.perAddress
	opts.Limits.MaxBytesPerLearner, opts.Limits.MaxBytesPerClass = f.learnerBytes, f.classBytes
	cfg.Class.CreationKey = f.creationKey
	return nil
}

// daysVar is a duration flag that also takes whole days ("180d"), the unit
// retention is thought of in.
func (e *envFlags) daysVar(p *time.Duration, name, envName string, def time.Duration, usage string) {
	*p = envDefault(e, name, envName, def, parseDays)
	e.fs.Func(name, usage+" (env "+envName+"; default "+formatDays(def)+")", func(s string) error {
		d, err := parseDays(s)
		if err == nil {
			*p = d
		}
		return err
	})
}

// parseDays reads "180d" as 180 days, anything else as a Go duration.
func parseDays(s string) (time.Duration, error) {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil || days < 0 || days > 100*365 {
			return 0, fmt.Errorf("%q is not a number of days like 180d", s)
		}
		return time.Duration(days) * 24 * time.Hour, nil
	}
	return time.ParseDuration(s)
}

func formatDays(d time.Duration) string {
	if d%(24*time.Hour) == 0 {
		return strconv.Itoa(int(d/(24*time.Hour))) + "d"
	}
	return d.String()
}
