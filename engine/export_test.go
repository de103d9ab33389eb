package engine

// Handed is how many events r has handed to its sink, counted once a
// step's last event was: equal to what the sink saw, the step is whole.
func Handed(r *Run) int { return int(r.handed.Load()) }
