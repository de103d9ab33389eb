package web

import "time"

// SetChaosLimit replaces a server's deadline for a chaos batch (normally
// chaosTimeoutFactor times the run timeout, at least 4 s), so that a test
// can give a batch less time than any machine needs to run it.
func (s *Server) SetChaosLimit(d time.Duration) { s.chaosLimit.Store(int64(d)) }
