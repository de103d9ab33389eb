package web

import (
	"container/list"
	"crypto/sha256"
	"sync"
)

// resultCache keeps the answers of the GET routes that run a shared
// scenario (/api/history, /playground/history), by scenario: a scenario
// always gives the same history, so a link opened by a whole class, or a
// script fetching one link over and over, runs the engine once. It is
// bounded in entries and bytes, the least recently used going first.
type resultCache struct {
	mu       sync.Mutex
	maxBytes int
	maxLen   int
	bytes    int
	order    *list.List // of *cached, the most recently used first
	byKey    map[[sha256.Size]byte]*list.Element
}

// cached is one answer: its body and, for a page, its security policy.
type cached struct {
	key  [sha256.Size]byte
	body []byte
	csp  string
}

// Bounds of the history cache: a few hundred links, a few megabytes.
const (
	historyCacheEntries = 256
	historyCacheBytes   = 16 << 20
)

func newResultCache(entries, bytes int) *resultCache {
	return &resultCache{maxLen: entries, maxBytes: bytes, order: list.New(), byKey: map[[sha256.Size]byte]*list.Element{}}
}

// cacheKey is the key of an answer: its kind and the scenario as the
// engine normalised it, so two links that differ only in defaults share
// an entry.
func cacheKey(kind string, scenario []byte) [sha256.Size]byte {
	h := sha256.New()
	h.Write([]byte(kind))
	h.Write([]byte{0})
	h.Write(scenario)
	var k [sha256.Size]byte
	h.Sum(k[:0])
	return k
}

func (rc *resultCache) get(key [sha256.Size]byte) (*cached, bool) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	e, ok := rc.byKey[key]
	if !ok {
		return nil, false
	}
	rc.order.MoveToFront(e)
	return e.Value.(*cached), true
}

func (rc *resultCache) put(v *cached) {
	size := len(v.body) + len(v.csp)
	if size > rc.maxBytes/8 {
		return // one huge answer would push out many small ones
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if e, ok := rc.byKey[v.key]; ok {
		rc.order.MoveToFront(e)
		return
	}
	rc.byKey[v.key] = rc.order.PushFront(v)
	rc.bytes += size
	for rc.order.Len() > rc.maxLen || rc.bytes > rc.maxBytes {
		last := rc.order.Back()
		old := last.Value.(*cached)
		rc.order.Remove(last)
		delete(rc.byKey, old.key)
		rc.bytes -= len(old.body) + len(old.csp)
	}
}
