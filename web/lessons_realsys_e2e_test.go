package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestE2ERealLockSystemsLesson: the lesson on etcd, ZooKeeper and Chubby
// sits between "Where the lock lives" and Redlock; its first playground
// waits for a prediction and hides its caption until then; the
// session-expiry prediction is graded on a real run and then shows it; the etcd
// transaction is predicted as a number; and the lock-delay exercise runs
// the engine on the learner's setting, failing with none and passing with
// one that lets the held write drain.
func TestE2ERealLockSystemsLesson(t *testing.T) {
	b := startBrowser(t)
	ctx := b.tab("/lessons/real-lock-systems")
	b.do(ctx, chromedp.WaitVisible(chromedp.CSS(`#exercise-zk-session-predict [data-testid=check]`)))
	if prev, next := run(b, ctx, chromedp.Evaluate[string](`document.querySelector('a[rel=prev]')?.getAttribute('href') || ''`)),
		run(b, ctx, chromedp.Evaluate[string](`document.querySelector('a[rel=next]')?.getAttribute('href') || ''`)); prev != "/lessons/where-the-lock-lives" || next != "/lessons/redlock" {
		t.Errorf("the lesson links back to %q and on to %q", prev, next)
	}
	b.shots(ctx, "lessons-realsys-01-top")

	// The first playground waits for its prediction, and its caption,
	// which tells the outcome, is not on the page yet.
	b.shots(ctx, "lessons-realsys-02-before-first-predict", "[data-exercise=etcd-revision-predict]")
	if !b.runDisabled(ctx, "#playground-1") {
		t.Error("the first playground runs before its prediction")
	}
	if body := run(b, ctx, chromedp.Evaluate[string](`document.body.textContent`)); strings.Contains(body, "The gap changes nothing") {
		t.Error("the first playground's caption is on the page before the prediction")
	}
	b.choose(ctx, "etcd-revision-predict", "a")
	b.waitText(ctx, `#exercise-etcd-revision-predict [data-testid=feedback]`, "Correct")
	b.waitJS(ctx, `!document.querySelector('#playground-1 [data-testid=lp-run]').disabled`, "the playground opening")

	b.shots(ctx, "lessons-realsys-03-before-predict", "[data-exercise=zk-session-predict]")
	if n := run(b, ctx, chromedp.Evaluate[int](`document.querySelectorAll('#exercise-zk-session-predict [data-testid=result-timeline] [data-testid=write-mark]').length`)); n != 0 {
		t.Errorf("the run is drawn before the prediction: %d write marks", n)
	}

	// The first prediction: the frozen holder's write lands.
	b.choose(ctx, "zk-session-predict", "a")
	b.waitText(ctx, `#exercise-zk-session-predict [data-testid=feedback]`, "Correct")
	b.waitJS(ctx, `document.querySelector('#exercise-zk-session-predict [data-testid=result-timeline]')?.dataset.drawn === '1'`, "the prediction's real timeline")
	b.shots(ctx, "lessons-realsys-04-predicted", "[data-exercise=zk-session-predict]")

	// The second: a wrong total is told why, then the right one.
	b.answer(ctx, "etcd-txn-predict", "42000")
	fb := b.waitText(ctx, `#exercise-etcd-txn-predict [data-testid=feedback]`, "Not yet")
	if !strings.Contains(fb, "compares the lock key") {
		t.Errorf("the stale-write mistake is told %q", fb)
	}
	b.answer(ctx, "etcd-txn-predict", "43000")
	b.waitText(ctx, `#exercise-etcd-txn-predict [data-testid=feedback]`, "Correct")

	// Graded by running the engine on the learner's lock-delay.
	field := `#exercise-lock-delay-setting input[data-path="lock.lock_delay"]`
	b.do(ctx, chromedp.Click(chromedp.CSS(`#exercise-lock-delay-setting [data-testid=check]`)))
	fb = b.waitText(ctx, `#exercise-lock-delay-setting [data-testid=feedback]`, "Not yet")
	if !strings.Contains(fb, "lock-delay") {
		t.Errorf("no lock-delay: feedback %q", fb)
	}
	b.do(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector('`+field+`').value = ''`),
		chromedp.SendKeys(chromedp.CSS(field), "8s"),
		chromedp.Click(chromedp.CSS(`#exercise-lock-delay-setting [data-testid=check]`)))
	b.waitText(ctx, `#exercise-lock-delay-setting [data-testid=feedback]`, "Correct")
	b.shots(ctx, "lessons-realsys-05-lock-delay", "[data-exercise=lock-delay-setting]")
}
