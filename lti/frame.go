package lti

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"time"
)

// framesFresh is how long the frame origins are trusted once read: a
// platform added by the command is allowed to frame the tool within it.
const framesFresh = 30 * time.Second

// FrameAncestors returns the origins allowed to frame the tool's pages:
// every registered platform's frame origins, sorted, read again every
// framesFresh. On a store error it keeps the last list it had.
func (t *Tool) FrameAncestors(ctx context.Context) []string {
	now := t.now()
	t.mu.Lock()
	if !t.framesAt.IsZero() && now.Sub(t.framesAt) < framesFresh && !now.Before(t.framesAt) {
		f := t.frames
		t.mu.Unlock()
		return f
	}
	t.mu.Unlock()
	ps, err := t.store.LTIPlatforms(ctx)
	t.mu.Lock()
	defer t.mu.Unlock()
	if err != nil {
		return t.frames
	}
	var out []string
	for _, p := range ps {
		for _, o := range p.FrameOrigins {
			if !slices.Contains(out, o) {
				out = append(out, o)
			}
		}
	}
	slices.Sort(out)
	t.frames, t.framesAt = out, now
	return out
}

// ForgetFrames makes the next FrameAncestors read the platforms again.
func (t *Tool) ForgetFrames() {
	t.mu.Lock()
	t.framesAt = time.Time{}
	t.mu.Unlock()
}

// Origin is the origin (scheme://host[:port]) of a URL, "" if it has
// none: what a CSP source and a frame origin are written as.
func Origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return ""
	}
	// A CSP source list is split on spaces and ends at a semicolon: an
	// origin with either (or a quote) is not one.
	if strings.ContainsAny(u.Host, " ;'\",") {
		return ""
	}
	return strings.ToLower(u.Scheme + "://" + u.Host)
}
