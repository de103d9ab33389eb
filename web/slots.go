package web

import "sync"

// slots is a counting semaphore that never waits: a caller past the cap is
// told at once, so it can answer "busy, try again".
type slots struct {
	mu   sync.Mutex
	used int
	max  int
}

func newSlots(max int) *slots { return &slots{max: max} }

func (s *slots) tryAcquire() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.used >= s.max {
		return false
	}
	s.used++
	return true
}

func (s *slots) release() {
	s.mu.Lock()
	s.used--
	s.mu.Unlock()
}

func (s *slots) inUse() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.used
}
