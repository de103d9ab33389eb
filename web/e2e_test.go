package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web"
)

// The browser tests run when PLAYGROUND_E2E=1 and a Chromium is installed
// (.ci/run installs Debian's). Screenshots of each final state go to
// PLAYGROUND_E2E_ARTIFACTS, by default e2e-artifacts/ at the repository root.

type browser struct {
	t      *testing.T
	base   string
	srv    *web.Server     // the server under test
	ctx    context.Context // the browser; tabs are its children
	mu     sync.Mutex
	errors []string // uncaught exceptions in any tab
}

func chromiumPath() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

func startBrowser(t *testing.T) *browser {
	t.Helper()
	return startBrowserWith(t, web.Config{})
}

// startBrowserWith is startBrowser on a server configured by cfg. The
// test gets a browser context of its own in the package's one Chromium
// (sharedChromium): its own cookies, storage and cache, like a browser of
// its own, disposed of when the test ends.
func startBrowserWith(t *testing.T, cfg web.Config) *browser {
	t.Helper()
	if os.Getenv("PLAYGROUND_E2E") != "1" {
		t.Skip("browser tests run with PLAYGROUND_E2E=1")
	}
	path := chromiumPath()
	if path == "" {
		t.Skip("no chromium binary found (apt-get install -y chromium)")
	}
	ts, srv := startServer(t, cfg)
	root, err := sharedChromium(path)
	if err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	ctx, err := openBrowserContext(t, root)
	if err != nil {
		t.Fatalf("opening a browser context: %v", err)
	}
	return &browser{t: t, base: ts.URL, ctx: ctx, srv: srv}
}

// contextHang is how long opening a browser context may go unanswered
// before it is given up and tried once more. It takes milliseconds; on a
// loaded machine Chromium has once left the very first one unanswered
// for good, and the package then hung until its timeout.
const contextHang = 2 * time.Minute

// openBrowserContext opens a browser context of its own in root's
// Chromium, trying a second time if the first goes unanswered.
func openBrowserContext(t *testing.T, root context.Context) (context.Context, error) {
	t.Helper()
	var err error
	for try := 1; try <= 2; try++ {
		ctx, cancel := chromedp.NewContext(root, chromedp.WithNewBrowserContext())
		done := make(chan error, 1)
		go func() { done <- chromedp.Do(ctx) }()
		select {
		case err = <-done:
		case <-time.After(contextHang):
			err = fmt.Errorf("no answer from Chromium in %v", contextHang)
		}
		if err == nil {
			t.Cleanup(cancel)
			return ctx, nil
		}
		cancel()
		t.Logf("opening a browser context (try %d): %v", try, err)
	}
	return nil, err
}

// chromium is the package's one browser, started by the first browser
// test and shut down by TestMain: a start costs a second or more, a
// browser context a few milliseconds.
var chromium struct {
	once  sync.Once
	ctx   context.Context
	close func()
	err   error
}

func sharedChromium(path string) (context.Context, error) {
	chromium.once.Do(func() {
		dir, err := os.MkdirTemp("", "playground-e2e-chromium-")
		if err != nil {
			chromium.err = err
			return
		}
		opts := []chromedp.ExecAllocatorOption{
			chromedp.ExecPath(path),
			chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
			chromedp.NoDefaultBrowserCheck,
			chromedp.Flag("disable-quic", true),
			chromedp.Flag("disable-background-networking", true),
			chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true),
			chromedp.Flag("disable-dev-shm-usage", true),
			chromedp.UserDataDir(dir),
			chromedp.WindowSize(1400, 1000),
		}
		actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancelCtx := chromedp.NewContext(actx)
		chromium.ctx = ctx
		chromium.close = func() { cancelCtx(); cancelAlloc(); os.RemoveAll(dir) }
		chromium.err = chromedp.Do(ctx)
	})
	return chromium.ctx, chromium.err
}

// TestMain shuts the shared Chromium down once every test has run.
func TestMain(m *testing.M) {
	code := m.Run()
	if chromium.close != nil {
		chromium.close()
	}
	os.Exit(code)
}

// tab opens a fresh tab at path and fails the test on any uncaught
// exception in it.
func (b *browser) tab(path string) context.Context {
	b.t.Helper()
	ctx, cancel := chromedp.NewContext(b.ctx)
	b.t.Cleanup(cancel)
	if err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*runtime.EventExceptionThrown); ok {
			b.mu.Lock()
			d := e.ExceptionDetails
			msg := d.Text
			if d.Exception != nil && d.Exception.Description != "" {
				msg = d.Exception.Description
			}
			b.errors = append(b.errors, fmt.Sprintf("%s:%d: %s", d.URL, d.LineNumber+1, msg))
			b.mu.Unlock()
		}
	}); err != nil {
		b.t.Fatal(err)
	}
	b.size(ctx, 1366, 900)
	b.do(ctx, chromedp.Navigate(b.base+path), chromedp.WaitVisible(chromedp.ID("main")))
	b.t.Cleanup(func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		for _, e := range b.errors {
			b.t.Errorf("uncaught exception in the page: %s", e)
		}
		b.errors = nil
	})
	return ctx
}

func (b *browser) do(ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(tctx, steps...); err != nil {
		b.t.Fatalf("browser: %v", err)
	}
}

func run[T any](b *browser, ctx context.Context, a chromedp.Action[T]) T {
	b.t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(tctx, a)
	if err != nil {
		b.t.Fatalf("browser: %v", err)
	}
	return v
}

// waitVerdict waits until the verdict says want and returns it.
func (b *browser) waitVerdict(ctx context.Context, want string) string {
	b.t.Helper()
	js := fmt.Sprintf(`(document.querySelector('[data-testid=verdict-text]')?.textContent || '').includes(%q)`, want)
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := chromedp.Run(tctx, chromedp.Poll[bool](js, chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
		got, _ := chromedp.Run(ctx, chromedp.TextContent(chromedp.ID("verdict")))
		status, _ := chromedp.Run(ctx, chromedp.TextContent(chromedp.ID("status")))
		b.t.Fatalf("verdict never said %q: verdict %q, status %q (%v)", want, got, status, err)
	}
	return run(b, ctx, chromedp.TextContent(chromedp.CSS("[data-testid=verdict-text]")))
}

// screenshot saves the whole page as name.png in the artifact directory
// (quality 100 makes chromium send a PNG).
func (b *browser) screenshot(ctx context.Context, name string) {
	b.t.Helper()
	dir := os.Getenv("PLAYGROUND_E2E_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("..", "e2e-artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.t.Fatal(err)
	}
	png := run(b, ctx, chromedp.FullScreenshot(100))
	file := filepath.Join(dir, name+".png")
	if err := os.WriteFile(file, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	b.t.Logf("screenshot: %s", file)
}

// size sets the tab's viewport, as a screen of that size would (a phone's
// below 600 px wide).
func (b *browser) size(ctx context.Context, w, h int) {
	b.t.Helper()
	if _, err := chromedp.Call(ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: int64(w), Height: int64(h), DeviceScaleFactor: 1, Mobile: w < 600,
	}); err != nil {
		b.t.Fatal(err)
	}
}

// settle waits for two animation frames: the page has redrawn.
func (b *browser) settle(ctx context.Context) {
	b.t.Helper()
	run(b, ctx, chromedp.Evaluate[bool](`new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`, chromedp.EvalAwaitPromise))
}

// shots saves the viewport at 1366x900 and at 390x844 (a phone) as
// name-1366x900.png and name-390x844.png, and leaves the tab at 1366x900.
// With a selector, each picture shows that element at the top.
func (b *browser) shots(ctx context.Context, name string, sel ...string) {
	b.t.Helper()
	for _, sz := range [][2]int{{390, 844}, {1366, 900}} {
		b.size(ctx, sz[0], sz[1])
		b.settle(ctx)
		if len(sel) > 0 {
			b.do(ctx, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%q).scrollIntoView()`, sel[0])))
			b.settle(ctx)
		}
		b.shot(ctx, "", fmt.Sprintf("%s-%dx%d", name, sz[0], sz[1]))
	}
}

// setSpeed moves the speed slider to v simulated seconds a second (0: as
// fast as possible), as a user's drag would.
func setSpeed(v float64) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => { const e = document.getElementById('speed'); e.value = %v ? Math.log10(%v) : e.max; e.dispatchEvent(new Event('input', {bubbles: true})); })()`, v, v))
}

// pick chooses a preset and waits until its scenario is in the settings.
func (b *browser) pick(ctx context.Context, name string) {
	b.t.Helper()
	b.do(ctx, choose("#preset", name))
	run(b, ctx, chromedp.Poll[bool](fmt.Sprintf(`document.getElementById('preset').dataset.loaded === %q`, name), chromedp.WithPollingTimeout(10*time.Second)))
}

// choose sets a select or checkbox the way a user's change would.
func choose(sel, value string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => { const e = document.querySelector(%q); e.value = %q; e.dispatchEvent(new Event('change', {bubbles: true})); })()`, sel, value))
}

func (b *browser) fencing(ctx context.Context, on bool) {
	b.t.Helper()
	if run(b, ctx, chromedp.Evaluate[bool](`document.getElementById('fencing').checked`)) != on {
		b.do(ctx, chromedp.Click(chromedp.ID("fencing")))
	}
}

func TestE2EFencingOffThenOnThenShare(t *testing.T) {
	b := startBrowser(t)
	ctx := b.tab("/playground")
	b.pick(ctx, "paused-holder")
	b.do(ctx, setSpeed(0))
	b.fencing(ctx, false)
	b.do(ctx, chromedp.Click(chromedp.ID("run")))
	b.waitVerdict(ctx, "stale write accepted")
	headline := run(b, ctx, chromedp.TextContent(chromedp.CSS("[data-testid=verdict-headline]")))
	if !strings.Contains(headline, "client-1 overwrote client-2's write with a stale token (33): 3,000 lost") {
		t.Errorf("headline %q", headline)
	}
	if line := run(b, ctx, chromedp.TextContent(chromedp.CSS("[data-testid=verdict-line]"))); !strings.Contains(line, "Unsafe") {
		t.Errorf("the verdict beside the run controls says %q", line)
	}
	if n := run(b, ctx, chromedp.Evaluate[int](`document.querySelectorAll('#event-log tbody tr').length`)); n < 20 {
		t.Errorf("event log has %d rows", n)
	}
	if n := run(b, ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid=overlap]').length`)); n != 1 {
		t.Errorf("%d overlap spans drawn, want 1", n)
	}
	b.shots(ctx, "01-fencing-off")

	b.fencing(ctx, true)
	b.do(ctx, chromedp.Click(chromedp.ID("run")))
	b.waitVerdict(ctx, "every stale write was refused")
	if kinds := run(b, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#timeline [data-testid=write-mark]')].map(e => e.dataset.kind)`)); strings.Join(kinds, ",") != "write_accepted,write_refused" {
		t.Errorf("write marks %v, want one accepted, one refused", kinds)
	}
	b.shots(ctx, "02-fencing-on")

	// The share link, opened in a fresh tab, restores the settings and
	// gives the same timeline.
	b.do(ctx, chromedp.Click(chromedp.ID("share")))
	link := run(b, ctx, chromedp.Value(chromedp.ID("share-link")))
	if !strings.HasPrefix(link, b.base+"/playground?s=") {
		t.Fatalf("share link %q", link)
	}
	logOf := `[...document.querySelectorAll('#event-log tbody tr')].map(r => r.textContent).join('\n')`
	want := run(b, ctx, chromedp.Evaluate[string](logOf))
	// What the live Raft nodes report is observed, not deterministic: it
	// is left out of the comparison.
	svgOf := `(() => { const s = document.getElementById('timeline').cloneNode(true); s.querySelectorAll('[data-observed]').forEach(e => e.remove()); return s.innerHTML; })()`
	// The drawing depends on its width (ticks, compact labels), and the
	// two tabs may differ by a scrollbar: at another width, the same
	// timeline is the same marks and lanes, each with its own words.
	marksOf := `[...document.querySelectorAll('#timeline [data-mark], #timeline [data-lane]')].filter(e => !e.closest('[data-observed]')).map(e => [e.dataset.mark || '', e.dataset.lane || '', e.dataset.laneKind || '', e.dataset.t || '', e.dataset.client || '', e.dataset.kind || '', (e.querySelector('title') || {}).textContent || ''].join('|')).join('\n')`
	widthOf := `document.getElementById('timeline').getAttribute('width')`
	wantSVG, wantMarks, wantWidth := run(b, ctx, chromedp.Evaluate[string](svgOf)), run(b, ctx, chromedp.Evaluate[string](marksOf)), run(b, ctx, chromedp.Evaluate[string](widthOf))
	if n := strings.Count(wantMarks, "\n") + 1; wantMarks == "" || n < 10 {
		t.Fatalf("the original's timeline has %d marks and lanes, too few to compare:\n%s", n, wantMarks)
	}
	shared := b.tab(strings.TrimPrefix(link, b.base))
	b.do(shared, setSpeed(0), chromedp.Click(chromedp.ID("run"))) // a shared link waits at 0 s
	b.waitVerdict(shared, "every stale write was refused")
	// The verdict's box can bring a scrollbar, and the timeline is drawn
	// again at the narrower width once the browser has laid it out, which
	// on a busy machine can take more than a frame or two: compare until
	// the drawing settles, for a while.
	b.settle(shared)
	if got := run(b, shared, chromedp.Evaluate[string](logOf)); got != want {
		t.Errorf("shared tab's event log differs:\n%s\nwant\n%s", got, want)
	}
	sameTimeline := func() (bool, string) {
		width, marks := run(b, shared, chromedp.Evaluate[string](widthOf)), run(b, shared, chromedp.Evaluate[string](marksOf))
		if marks != wantMarks {
			return false, fmt.Sprintf("its marks and lanes differ:\n%s\nwant\n%s", marks, wantMarks)
		}
		if width == wantWidth && run(b, shared, chromedp.Evaluate[string](svgOf)) != wantSVG {
			return false, "at the same width (" + width + " px) its drawing differs"
		}
		return true, ""
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		ok, why := sameTimeline()
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("shared tab's timeline differs from the original's: %s", why)
			break
		}
	}
	if !run(b, shared, chromedp.Evaluate[bool](`document.getElementById('fencing').checked`)) {
		t.Error("shared tab lost the fencing setting")
	}
	b.shots(shared, "03-shared-link")
}

func TestE2EKeyboardOnly(t *testing.T) {
	b := startBrowser(t)
	ctx := b.tab("/playground?preset=paused-holder")
	active := `document.activeElement && document.activeElement.id`
	// tabTo presses Tab until the element with id has the focus.
	tabTo := func(id string) {
		t.Helper()
		for range 80 {
			if run(b, ctx, chromedp.Evaluate[string](active)) == id {
				return
			}
			b.do(ctx, chromedp.KeyEvent(kb.Tab))
		}
		t.Fatalf("Tab never reached #%s", id)
	}
	tabTo("speed")
	b.do(ctx, chromedp.KeyEvent(kb.End)) // the slider's end: as fast as possible
	if v := run(b, ctx, chromedp.TextContent(chromedp.ID("speed-out"))); v != "as fast as possible" {
		t.Fatalf("speed %q after End", v)
	}
	tabTo("fencing")
	fenced := func() bool { return run(b, ctx, chromedp.Evaluate[bool](`document.getElementById('fencing').checked`)) }
	if fenced() {
		t.Fatal("paused-holder should open with fencing off, the setting that shows the failure")
	}
	b.do(ctx, chromedp.KeyEvent(" ")) // fencing on
	if !fenced() {
		t.Fatal("space did not switch fencing on")
	}
	b.do(ctx, chromedp.KeyEvent(" ")) // and off again
	if fenced() {
		t.Fatal("space did not switch fencing off")
	}
	// The page's keys work on a switch too: R runs.
	b.do(ctx, chromedp.KeyEvent("r"))
	b.waitVerdict(ctx, "stale write accepted")
	// Scrub with the keyboard: Home shows the start, where the record
	// still holds its initial value and node-1 leads.
	tabTo("scrub")
	b.do(ctx, chromedp.KeyEvent(kb.Home))
	if v := run(b, ctx, chromedp.TextContent(chromedp.CSS("[data-testid=storage-value]"))); v != "40,000" {
		t.Errorf("storage value at the start = %q, want 40,000", v)
	}
	// Away from the slider, PageDown moves a second at a time.
	b.do(ctx, chromedp.Focus(chromedp.ID("zoom-in")))
	for range 15 { // to 15 s, after client-2's write
		b.do(ctx, chromedp.KeyEvent(kb.PageDown))
	}
	if v := run(b, ctx, chromedp.TextContent(chromedp.CSS("[data-testid=storage-value]"))); v != "43,000" {
		t.Errorf("storage value at 15s = %q, want 43,000 (client-2's write)", v)
	}
	if v := run(b, ctx, chromedp.TextContent(chromedp.ID("scrub-time"))); v != "15s" {
		t.Errorf("playhead at %s after 15 PageDowns, want 15s", v)
	}
	b.shots(ctx, "04-keyboard-scrubbed-15s")
	// A time in the event log moves the playhead there too.
	b.do(ctx, chromedp.Focus(chromedp.CSS(`#event-log button[data-t="4000"]`)), chromedp.KeyEvent(kb.Enter))
	if v := run(b, ctx, chromedp.Value(chromedp.ID("scrub"))); v != "4000" {
		t.Errorf("playhead at %s after choosing the 4s row, want 4000", v)
	}
	// ? lists the keys, PageUp/PageDown and Shift+arrows among them.
	b.do(ctx, chromedp.KeyEvent("?"))
	help := run(b, ctx, chromedp.TextContent(chromedp.ID("keys-help")))
	for _, k := range []string{"PageUp", "PageDown", "Shift", "Space"} {
		if !strings.Contains(help, k) {
			t.Errorf("the key list does not name %s: %q", k, help)
		}
	}
}

func TestE2EControlsFaultsAndJSONStayInSync(t *testing.T) {
	b := startBrowser(t)
	ctx := b.tab("/playground?preset=paused-holder")
	scenario := func() engine.Scenario {
		t.Helper()
		var sc engine.Scenario
		text := run(b, ctx, chromedp.Value(chromedp.ID("json")))
		if err := json.Unmarshal([]byte(text), &sc); err != nil {
			t.Fatalf("JSON editor: %v\n%s", err, text)
		}
		return sc
	}
	// Controls write the JSON.
	b.do(ctx, choose("#lease", "20"), choose("#c0-renew", ""))
	sc := scenario()
	if sc.Lock.Lease.MS() != 20000 || sc.Clients[0].RenewEvery.IsSet() || !sc.Clients[1].RenewEvery.IsSet() {
		t.Errorf("after lease 20 and client-1's renewal off: lease %s, renew %s/%s", sc.Lock.Lease, sc.Clients[0].RenewEvery, sc.Clients[1].RenewEvery)
	}
	// The fault list: add one, move it up, remove the other. Its editor
	// draws the preset's fault as the list comes near the view; a learner
	// sees it before pressing Add, and the button stays where it was seen.
	run(b, ctx, chromedp.Poll[bool](`document.querySelectorAll('[data-testid=fault-row]').length === 1`, chromedp.WithPollingTimeout(5*time.Second)))
	b.do(ctx, chromedp.Click(chromedp.ID("add-fault")))
	run(b, ctx, chromedp.Poll[bool](`document.querySelectorAll('[data-testid=fault-row]').length === 2`, chromedp.WithPollingTimeout(5*time.Second)))
	if n := len(scenario().Faults); n != 2 {
		t.Fatalf("%d faults after add, want 2", n)
	}
	b.do(ctx, choose("#f1-do", "delay"))
	before := scenario().Faults
	b.do(ctx, chromedp.Click(chromedp.CSS(`#fault-list button[aria-label^="Move fault 2 earlier"]`)))
	sc = scenario()
	if sc.Faults[0].Do != "delay" || sc.Faults[0].Kind != "write" || sc.Faults[1].Do != "pause" {
		t.Errorf("after moving the delay up: %+v", sc.Faults)
	}
	// Moved up, it strikes earlier: the two swap times, and the list stays
	// in the order the faults strike.
	if sc.Faults[0].At.MS() != before[0].At.MS() || sc.Faults[1].At.MS() != before[1].At.MS() {
		t.Errorf("moving the delay up kept the faults' times with them: %s then %s, was %s then %s",
			sc.Faults[0].At, sc.Faults[1].At, before[0].At, before[1].At)
	}
	b.do(ctx, chromedp.Click(chromedp.CSS(`#fault-list button[aria-label="Remove fault 2"]`)))
	if sc = scenario(); len(sc.Faults) != 1 || sc.Faults[0].Do != "delay" {
		t.Errorf("after removing the pause: %+v", sc.Faults)
	}
	// The JSON writes the controls.
	b.do(ctx, chromedp.Click(chromedp.CSS("#json-details summary")))
	edit := func(from, to string) {
		b.do(ctx, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => { const e = document.getElementById('json'); e.focus(); e.value = e.value.replace(%q, %q); e.dispatchEvent(new Event('input')); })()`, from, to)))
	}
	edit(`"fencing": true`, `"fencing": false`)
	run(b, ctx, chromedp.Poll[bool](`!document.getElementById('fencing').checked`, chromedp.WithPollingTimeout(3*time.Second)))
	edit(`"lease": "20s"`, `"lease": "20s",`)
	msg := run(b, ctx, chromedp.Poll[string](`document.getElementById('json-error').textContent || false`, chromedp.WithPollingTimeout(3*time.Second)))
	if !strings.Contains(msg, "Not valid JSON") {
		t.Errorf("JSON error %q", msg)
	}
	edit(`"lease": "20s",`, `"lease": "20s"`)
	// A scenario the engine refuses is reported with its field.
	edit(`"lease": "20s"`, `"lease": "50ms"`)
	run(b, ctx, chromedp.Poll[bool](`document.getElementById('lease').value === '0.05'`, chromedp.WithPollingTimeout(3*time.Second)))
	b.do(ctx, chromedp.Click(chromedp.ID("run")))
	status := run(b, ctx, chromedp.Poll[string](`(document.getElementById('status').textContent.match(/lock\.lease.*/) || [false])[0]`, chromedp.WithPollingTimeout(5*time.Second)))
	if !strings.Contains(status, "lock.lease: must be between 100ms") {
		t.Errorf("status %q, want the engine's lock.lease error", status)
	}
	b.shots(ctx, "08-json-error")
}

// TestE2EOutsideServiceGetsALane opens a shared scenario whose clients
// send SMS: the provider, neither client nor lock server, gets a lane.
func TestE2EOutsideServiceGetsALane(t *testing.T) {
	b := startBrowser(t)
	sc, err := engine.DecodeScenario([]byte(`{"title":"Two reminders","fencing":true,"until":"30s","lock":{"lease":"5s"},
		"clients":[{"name":"sender-1","steps":[{"do":"acquire"},{"do":"pause","for":"8s"},{"do":"send","message":"reminder"},{"do":"release"}]},
		{"name":"sender-2","start":"6s","steps":[{"do":"acquire"},{"do":"send","message":"reminder"},{"do":"release"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	s, err := web.EncodeShare(sc)
	if err != nil {
		t.Fatal(err)
	}
	ctx := b.tab("/playground?speed=0&run=1&s=" + s)
	b.waitVerdict(ctx, "1 side effect happened twice")
	if h := run(b, ctx, chromedp.TextContent(chromedp.CSS("[data-testid=verdict-headline]"))); !strings.Contains(h, "cannot check fencing tokens") {
		t.Errorf("headline %q", h)
	}
	lanes := run(b, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#timeline .lane-label')].map(e => e.textContent.replace(' ▾', ''))`))
	if strings.Join(lanes, ",") != "sender-1,sender-2,node-1,node-2,node-3,storage,sms" {
		t.Errorf("lanes %v", lanes)
	}
	if n := run(b, ctx, chromedp.Evaluate[int](`document.querySelectorAll('#timeline [data-testid=other-mark]').length`)); n != 2 {
		t.Errorf("%d marks on the sms lane, want 2", n)
	}
	b.shots(ctx, "09-sms-lane")
}

// TestE2EReducedMotion checks that with prefers-reduced-motion the playhead
// jumps from event to event instead of gliding between them.
func TestE2EReducedMotion(t *testing.T) {
	b := startBrowser(t)
	ctx := b.tab("/playground?preset=paused-holder")
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: "reduce"}},
	}); err != nil {
		t.Fatal(err)
	}
	if !run(b, ctx, chromedp.Evaluate[bool](`matchMedia('(prefers-reduced-motion: reduce)').matches`)) {
		t.Fatal("emulation did not take")
	}
	// At 1 s a second nothing happens between 0 s and the renewal at 3 s.
	b.do(ctx, setSpeed(1), chromedp.Click(chromedp.ID("run")))
	run(b, ctx, chromedp.Poll[bool](`document.querySelectorAll('#event-log tbody tr').length >= 4`))
	time.Sleep(1200 * time.Millisecond)
	if got := run(b, ctx, chromedp.TextContent(chromedp.ID("scrub-time"))); got != "0s" {
		t.Errorf("playhead %q 1.2 s into a run with reduced motion, want 0s (the last event)", got)
	}
	b.do(ctx, chromedp.Click(chromedp.ID("stop")))
}
