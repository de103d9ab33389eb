package engine

import "fmt"

// splitter is a lock service in which two nodes can serve at once, each
// as the primary of its own side of a partition: an asynchronous primary
// the monitor replaced goes on answering the clients it reaches, unaware
// (asyncService). A grant one of them makes while the other keeps another
// client's lease is a double grant the split caused, not a clock or a
// forgotten grant.
type splitter interface {
	// primaryBeside names the node that serves as primary now beside
	// node, itself serving as one, or "" when node serves alone.
	primaryBeside(node string) string
}

// primaryBeside names the primary that serves now beside node, on the
// other side of a partition, or "" (a service that cannot split).
func (w *world) primaryBeside(node string) string {
	if sp, ok := w.svc.(splitter); ok {
		return sp.primaryBeside(node)
	}
	return ""
}

// splitBrainWords says, after a verdict's count of double grants, how many
// two primaries made, each serving its own side of a partition; "" when
// none did.
func splitBrainWords(s Summary) string {
	switch {
	case s.SplitBrainGrants == 0:
		return ""
	case s.SplitBrainGrants == s.DoubleGrants:
		return " (by two primaries at once, each serving its own side of a partition)"
	}
	return fmt.Sprintf(" (%d of them by two primaries at once, each serving its own side of a partition)", s.SplitBrainGrants)
}
