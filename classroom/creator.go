package classroom

import "context"

// creatorKey is the context key of WithCreator.
type creatorKey struct{}

// WithCreator returns ctx carrying the address of whoever asks for a
// class (an IPv6 address cut to its /64 by the caller): CreateClass counts
// it against Limits.MaxClassesPerAddress. Without it, a class counts
// against no address (the command line, a course's LTI launch).
func WithCreator(ctx context.Context, addr string) context.Context {
	return context.WithValue(ctx, creatorKey{}, addr)
}

// Creator returns the address WithCreator put in ctx, or "".
func Creator(ctx context.Context) string {
	a, _ := ctx.Value(creatorKey{}).(string)
	return a
}
