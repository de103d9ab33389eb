package engine

import "sync"

// parsed keeps the scenarios ParseScenario accepted lately, by their
// exact bytes. A class pressing Run on one preset sends the same bytes
// hundreds of times, and a parse (decoding, the check for keys given
// twice, validation, defaults) costs about a tenth of a preset's whole
// run through the API. A Prepared never changes, so one serves every run
// of those bytes.
var parsed = parseCache{max: parseCacheEntries}

const (
	// parseCacheEntries bounds how many scenarios the cache keeps; a
	// full cache starts again empty.
	parseCacheEntries = 128
	// parseCacheMaxSize is the largest scenario kept, in bytes: the
	// presets are 1 to 4 KB, so the cache holds at most 2 MB.
	parseCacheMaxSize = 16 << 10
)

// parseCache maps a scenario's bytes to what ParseScenario made of them.
// What is valid depends on the backend registry (a backend's name, its
// node counts and options), so the cache is emptied whenever the
// registry changes. Errors are not kept: a rejected scenario is parsed
// again, and told its error again.
type parseCache struct {
	mu    sync.Mutex
	max   int
	gen   int // the registry generation the kept scenarios were checked against
	byKey map[string]*Prepared
}

// get returns the scenario parsed from data under the registry
// generation gen, or nil.
func (c *parseCache) get(data []byte, gen int) *Prepared {
	if len(data) > parseCacheMaxSize {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return nil
	}
	return c.byKey[string(data)]
}

// put keeps p as what data parses to under the registry generation gen
// (read before the parse: a registry that changed meanwhile is caught by
// the next get).
func (c *parseCache) put(data []byte, gen int, p *Prepared) {
	if len(data) > parseCacheMaxSize {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen || len(c.byKey) >= c.max {
		c.gen, c.byKey = gen, make(map[string]*Prepared, c.max)
	}
	c.byKey[string(data)] = p
}
