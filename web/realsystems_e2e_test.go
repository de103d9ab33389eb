package web_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestE2ERealLockSystems runs each preset of ZooKeeper, reads that skip
// the log, the lost disk and the ambiguous commit in the playground, and
// checks that the timeline draws what is new in it: the closed session
// and the watch, the stale read and which node answered, the wiped disk,
// the lost answer. Screenshots at desktop and phone sizes.
func TestE2ERealLockSystems(t *testing.T) {
	b := startBrowser(t)
	cases := []struct {
		preset, verdict string
		marks           []string // data-mark values the timeline must hold
	}{
		{"zookeeper-session-expiry", "stale write", []string{"session-expired", "watch-fired", "watching"}},
		{"lease-read-stale", "stale write", []string{"stale-read"}},
		{"follower-read-stale", "stale write", []string{"stale-read", "session-expired"}},
		{"raft-disk-loss", "handed out twice", []string{"disk-lost", "duplicate-token"}},
		{"ambiguous-commit", "as expected", []string{"answer-lost"}},
	}
	for i, tc := range cases {
		t.Run(tc.preset, func(t *testing.T) {
			ctx := b.tab("/playground?preset=" + tc.preset)
			b.do(ctx, setSpeed(0), chromedp.Click(chromedp.ID("run")))
			b.waitVerdict(ctx, tc.verdict)
			for _, m := range tc.marks {
				js := fmt.Sprintf(`document.querySelectorAll('#timeline [data-mark=%q]').length > 0`, m)
				if _, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
					t.Errorf("%s: the timeline has no %s mark", tc.preset, m)
				}
			}
			b.shots(ctx, fmt.Sprintf("realsys-%d-%s", i+1, tc.preset), "#timeline")
		})
	}
}
