package web_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
)

// sweepTabs is how many pages a sweep (every lesson, every preset) has
// open at once, each in a tab of its own: a page spends much of its time
// replaying a run or waiting for the server, time another page can use.
const sweepTabs = 3

// sweep runs each of items (with its index) in a subtest of its own,
// named by name, at most sweepTabs at a time. Each subtest gets a browser
// of its own on b's server and browser context, so that a failure is
// reported against the lesson or preset it belongs to.
func sweep[T any](t *testing.T, b *browser, items []T, name func(T) string, each func(b *browser, i int, item T)) {
	t.Helper()
	free := make(chan struct{}, sweepTabs)
	var wg sync.WaitGroup
	for i, it := range items {
		free <- struct{}{}
		wg.Go(func() {
			defer func() { <-free }()
			t.Run(name(it), func(t *testing.T) { each(b.on(t), i, it) })
		})
	}
	wg.Wait()
}

// on is b for the subtest t: the same server and browser context, with
// t's failures and its own record of the pages' uncaught exceptions.
func (b *browser) on(t *testing.T) *browser {
	return &browser{t: t, base: b.base, srv: b.srv, ctx: b.ctx}
}

// press presses the button sel as a script does (its click()), not with
// the mouse at its place on the screen. The sweeps check that every
// playground's controls make a run, on pages still drawing what came
// before (a shown answer above Run, three tabs at once on a loaded
// machine); whether the button stays where a learner aims is
// TestE2EAReplayKeepsItsHeight's to check. A disabled button ignores it,
// as it ignores a mouse.
func press(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%q).click()`, sel))
}
