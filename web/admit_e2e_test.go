package web_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/leaselab/playground/web"
)

// TestE2EARunWaitingForASlotShowsItsPlace fills the server's one slot with
// another browser's run, presses Run on the page, and reads its place in
// line; when the slot frees, the page's run starts by itself and ends
// with its verdict.
func TestE2EARunWaitingForASlotShowsItsPlace(t *testing.T) {
	b := startBrowserWith(t, web.Config{RunSlots: 1, MaxLiveRuns: 1, QueueWait: time.Minute})
	holder := dial(t, b.base, nil)
	holder.send(map[string]any{"type": "start", "scenario": preset(t, "nightly-total", true), "speed": 1})
	holder.started()
	ctx := b.tab("/playground")
	b.do(ctx, choose("#preset", "paused-holder"), setSpeed(0))
	b.do(ctx, chromedp.Click(chromedp.ID("run")))
	run(b, ctx, chromedp.Poll[bool](`document.getElementById('status').textContent.includes('place 1 in line')`,
		chromedp.WithPollingInterval(20*time.Millisecond)))
	status := run(b, ctx, chromedp.TextContent(chromedp.ID("status")))
	if !strings.Contains(status, "Waiting for a free slot") {
		t.Errorf("status while waiting %q", status)
	}
	b.do(ctx, chromedp.EmulateViewport(1366, 900))
	b.screenshot(ctx, "20-waiting-for-a-slot")
	b.do(ctx, chromedp.EmulateViewport(390, 844))
	b.screenshot(ctx, "21-waiting-for-a-slot-phone")
	holder.send(map[string]any{"type": "stop"})
	b.waitVerdict(ctx, "stale write")
}

// TestE2EAFaultWaitingForASlotShowsItsPlace: a fault injected into a run
// whose simulation is long simulates it again, which takes a slot. With
// the server's one slot held by another browser, the page says that the
// fault waits and its place in line, and the playhead stands still with
// the run; once the slot frees, the fault strikes where the run stood.
// With the line full, the next fault is refused: the page says why, and
// the run is over.
func TestE2EAFaultWaitingForASlotShowsItsPlace(t *testing.T) {
	const line = 4
	b := startBrowserWith(t, web.Config{RunSlots: 1, RunQueue: line, MaxLiveRuns: 4, SessionShare: 1, AddressShare: 1, QueueWait: time.Minute})
	ctx, holder := faultWaiting(t, b)
	if status := run(b, ctx, chromedp.TextContent(chromedp.ID("status"))); !strings.HasSuffix(status, "The fault waits for a free slot on the server: place 1 in line.") {
		t.Errorf("status while the fault waits: %q", status)
	}
	playhead := `document.querySelector('#timeline .playhead').getAttribute('x1')`
	before := run(b, ctx, chromedp.Evaluate[string](playhead))
	time.Sleep(300 * time.Millisecond) // three simulated seconds at 10x, were the playhead moving
	if after := run(b, ctx, chromedp.Evaluate[string](playhead)); after != before {
		t.Errorf("the playhead moved from %s to %s while the run stood still", before, after)
	}
	b.shots(ctx, "22-fault-waiting-for-a-slot")
	holder.send(map[string]any{"type": "stop"})
	holder.until(web.MsgSummary)
	b.waitJS(ctx, `[...document.querySelectorAll('#event-log tr.k-pause_start')].some(r => r.cells[1].textContent === 'client-2')`, "the fault struck")
	if status := run(b, ctx, chromedp.TextContent(chromedp.ID("status"))); !strings.HasSuffix(status, "The fault struck.") {
		t.Errorf("status once the fault struck: %q", status)
	}
	holder = holdSlot(t, b.base)
	var waiting []<-chan reply
	for range line {
		waiting = append(waiting, postAsync(b.base+"/api/run", string(preset(t, "ride-claim", false))))
	}
	waitFor(t, func() bool { return b.srv.QueuedRuns() == line })
	b.openLaneMenu(ctx, "client-1")
	b.do(ctx, chromedp.Click(chromedp.CSS(`#actor-menu button[data-do=pause]`)))
	b.waitJS(ctx, `document.getElementById('status').textContent.includes('could not wait')`, "the refusal told")
	if status := run(b, ctx, chromedp.TextContent(chromedp.ID("status"))); !strings.Contains(status, "the run ended where it stood") {
		t.Errorf("status once the fault was refused: %q", status)
	}
	b.waitJS(ctx, `document.getElementById('stop').disabled`, "the run over: nothing to stop")
	b.shots(ctx, "23-fault-refused-its-turn")
	holder.send(map[string]any{"type": "stop"})
	for _, w := range waiting {
		await(t, w)
	}
}

// faultWaiting plays a long run at 10x in a new tab of b, whose server
// has one slot, holds that slot, and pauses client-2 from its lane's menu:
// the fault waits in line for the slot, and the page says so. It returns
// the tab and the run that holds the slot.
func faultWaiting(t *testing.T, b *browser) (context.Context, *wsClient) {
	t.Helper()
	ctx := b.tab("/playground?s=" + url.QueryEscape(mustShare(t, longSparseScenario(t))))
	b.do(ctx, setSpeed(10), chromedp.Click(chromedp.ID("run")))
	b.waitJS(ctx, `document.querySelectorAll('#event-log tbody tr').length > 5`, "the long run playing")
	holder := holdSlot(t, b.base)
	b.openLaneMenu(ctx, "client-2")
	b.do(ctx, chromedp.Click(chromedp.CSS(`#actor-menu button[data-do=pause]`)))
	b.waitJS(ctx, `document.getElementById('status').textContent.includes('The fault waits')`, "the fault told its place")
	return ctx, holder
}

// TestE2EAStopWhileAFaultWaitsTakesItsPlace: a learner who presses Stop
// while a fault waits for a slot is told at once that the stop waits, in
// the fault's place; once the slot frees, the run ends where it stood,
// and the fault, pressed before the stop, never strikes.
func TestE2EAStopWhileAFaultWaitsTakesItsPlace(t *testing.T) {
	b := startBrowserWith(t, web.Config{RunSlots: 1, MaxLiveRuns: 4, SessionShare: 1, AddressShare: 1, QueueWait: time.Minute})
	ctx, holder := faultWaiting(t, b)
	b.do(ctx, chromedp.KeyEvent("x")) // the keyboard, right after the lane's menu was clicked
	b.waitJS(ctx, `document.getElementById('status').textContent.includes('The stop waits')`, "the stop told its place")
	if status := run(b, ctx, chromedp.TextContent(chromedp.ID("status"))); !strings.HasSuffix(status, "The stop waits for a free slot on the server: place 1 in line.") {
		t.Errorf("status while the stop waits: %q", status)
	}
	b.shots(ctx, "25-stop-waiting-in-the-faults-place")
	holder.send(map[string]any{"type": "stop"})
	// The status says "The run was stopped at …" when the summary comes,
	// and the verdict's line ("Stopped at …") takes its place as soon as
	// the verdict is drawn, which may be before a poll reads the first.
	b.waitJS(ctx, `/The run was stopped at|Stopped at/.test(document.getElementById('status').textContent)`, "the run stopped")
	if struck := run(b, ctx, chromedp.Evaluate[bool](`[...document.querySelectorAll('#event-log tr.k-pause_start')].some(r => r.cells[1].textContent === 'client-2')`)); struck {
		t.Error("the fault struck after the stop")
	}
}

// TestE2EAPauseWhileAFaultWaitsHoldsAfterIt: a learner who pauses while a
// fault waits for a slot sees the fault strike once the slot frees, and
// the run paused right after it, told so.
func TestE2EAPauseWhileAFaultWaitsHoldsAfterIt(t *testing.T) {
	b := startBrowserWith(t, web.Config{RunSlots: 1, MaxLiveRuns: 4, SessionShare: 1, AddressShare: 1, QueueWait: time.Minute})
	ctx, holder := faultWaiting(t, b)
	b.do(ctx, chromedp.Click(chromedp.ID("play")))
	b.waitJS(ctx, `document.getElementById('status').textContent.includes('Paused at')`, "the run paused")
	holder.send(map[string]any{"type": "stop"})
	b.waitJS(ctx, `document.getElementById('status').textContent.includes('The fault struck at')`, "the fault struck, paused")
	status := run(b, ctx, chromedp.TextContent(chromedp.ID("status")))
	if !strings.HasSuffix(status, "and the run is paused: Space plays on.") {
		t.Errorf("status once the fault struck in a paused run: %q", status)
	}
	if at := run(b, ctx, chromedp.TextContent(chromedp.ID("scrub-time"))); !strings.Contains(status, "struck at "+at+",") {
		t.Errorf("the playhead stands at %s, the status says %q", at, status)
	}
	b.shots(ctx, "26-fault-struck-in-a-paused-run")
	rows := `document.querySelectorAll('#event-log tbody tr').length`
	struck := run(b, ctx, chromedp.Evaluate[int](rows))
	time.Sleep(500 * time.Millisecond) // five simulated seconds at 10x, were the run going on
	if after := run(b, ctx, chromedp.Evaluate[int](rows)); after != struck {
		t.Errorf("the paused run went on after the fault: %d events, then %d", struck, after)
	}
	if label := run(b, ctx, chromedp.Evaluate[string](`document.getElementById('play').getAttribute('aria-label')`)); label == "Pause" {
		t.Error("the play button offers to pause a paused run")
	}
	// Space, with the focus still on the button the mouse paused with,
	// plays on: once, not once for the key and again for the button.
	b.do(ctx, chromedp.KeyEvent(" "))
	b.waitJS(ctx, `document.getElementById('status').textContent.includes('Running')`, "Space playing on")
	b.waitJS(ctx, `document.querySelectorAll('#event-log tbody tr').length > `+fmt.Sprint(struck), "events after the fault")
}

// TestE2EAFasterSpeedWaitingForASlotShowsItsPlace: with the server's one
// slot held, a run asked to go as fast as possible goes on at its speed,
// and the page says the new speed waits and its place in line; once the
// slot frees, the run goes as fast as possible and finishes.
func TestE2EAFasterSpeedWaitingForASlotShowsItsPlace(t *testing.T) {
	b := startBrowserWith(t, web.Config{RunSlots: 1, MaxLiveRuns: 4, SessionShare: 1, AddressShare: 1, QueueWait: time.Minute})
	holder := holdSlot(t, b.base)
	ctx := b.tab("/playground?preset=nightly-total")
	b.do(ctx, setSpeed(1), chromedp.Click(chromedp.ID("run")))
	b.waitJS(ctx, `document.querySelectorAll('#event-log tbody tr').length > 0`, "the run playing")
	b.do(ctx, setSpeed(0))
	b.waitJS(ctx, `document.getElementById('status').textContent.includes('place 1 in line')`, "the new speed told its place")
	if status := run(b, ctx, chromedp.TextContent(chromedp.ID("status"))); !strings.HasSuffix(status, "The new speed waits for a free slot on the server: place 1 in line.") {
		t.Errorf("status while the new speed waits: %q", status)
	}
	b.shots(ctx, "24-speed-waiting-for-a-slot")
	holder.send(map[string]any{"type": "stop"})
	b.waitVerdict(ctx, "")
}

// TestE2EASpeedChangedAsTheRunStartsIsKept: a speed chosen right after
// Run is pressed, before the page's socket is open, is the speed the run
// starts at: here full speed, so with the one slot held it waits its turn.
func TestE2EASpeedChangedAsTheRunStartsIsKept(t *testing.T) {
	b := startBrowserWith(t, web.Config{RunSlots: 1, MaxLiveRuns: 4, SessionShare: 1, AddressShare: 1, QueueWait: time.Minute})
	holder := holdSlot(t, b.base)
	ctx := b.tab("/playground?preset=nightly-total")
	b.do(ctx, setSpeed(1))
	b.do(ctx, chromedp.Evaluate[chromedp.Void](`(() => {
		document.getElementById('run').click();
		const e = document.getElementById('speed'); e.value = e.max; e.dispatchEvent(new Event('input', {bubbles: true}));
	})()`))
	b.waitJS(ctx, `document.getElementById('status').textContent.includes('The run starts by itself')`, "the run at full speed waiting for the slot")
	holder.send(map[string]any{"type": "stop"})
	b.waitVerdict(ctx, "")
}

// TestE2EAPauseAsTheRunStartsIsKept: a pause pressed right after Run,
// before the page's socket is open, reaches the run: at 10x it would make
// ten simulated seconds of events in a second, and it makes none once the
// pause has landed (at 0 s, or just after its first step when the server
// reads the pause after the run began).
func TestE2EAPauseAsTheRunStartsIsKept(t *testing.T) {
	b := startBrowser(t)
	ctx := b.tab("/playground?preset=nightly-total")
	b.do(ctx, setSpeed(10))
	b.do(ctx, chromedp.Evaluate[chromedp.Void](`(() => {
		document.getElementById('run').click();
		document.getElementById('play').click();
	})()`))
	waitFor(t, func() bool { return b.srv.LiveRuns() == 1 })
	shown := `document.querySelectorAll('#event-log tbody tr').length`
	time.Sleep(300 * time.Millisecond)
	before := run(b, ctx, chromedp.Evaluate[int](shown))
	time.Sleep(1500 * time.Millisecond) // 15 simulated seconds at 10x, were the run going
	if after := run(b, ctx, chromedp.Evaluate[int](shown)); after != before {
		t.Errorf("a run paused as it started went on: %d events, then %d", before, after)
	}
	b.do(ctx, setSpeed(0), chromedp.Click(chromedp.ID("play")))
	b.waitVerdict(ctx, "")
}
