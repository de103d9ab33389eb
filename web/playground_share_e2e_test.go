package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestE2EShareSaysWhenTheScenarioIsTooLarge: a scenario too large for a
// share link (the server refuses an s past its limit, so the link could
// not open) gets a message naming the sizes instead of a link; made
// small again, it gets its link back.
func TestE2EShareSaysWhenTheScenarioIsTooLarge(t *testing.T) {
	b := startBrowser(t)
	ctx := b.tab("/playground")
	// One client whose 4,000 work steps make a scenario of about 120 KB.
	huge := `(() => { const sc = JSON.parse(document.getElementById('json').value);
		sc.clients[0].steps = Array.from({length: 4000}, () => ({do: 'work', for: '1ms'}));
		const ta = document.getElementById('json');
		document.getElementById('json-details').open = true;
		ta.focus(); ta.value = JSON.stringify(sc); ta.dispatchEvent(new Event('input', {bubbles: true})); })()`
	b.do(ctx, chromedp.Evaluate[chromedp.Void](huge))
	b.waitJS(ctx, `!!document.getElementById('c0-s3999')`, "the large scenario taken")
	b.do(ctx, chromedp.Click(chromedp.ID("share")))
	b.waitJS(ctx, `!document.getElementById('share-too-long').hidden`, "the message that the scenario is too large for a link")
	msg := run(b, ctx, chromedp.Text(chromedp.ID("share-too-long")))
	if !strings.Contains(msg, "too large for a link") || !strings.Contains(msg, "87,382") {
		t.Errorf("the message says %q", msg)
	}
	if !run(b, ctx, chromedp.Evaluate[bool](`document.getElementById('share-link').hidden && document.getElementById('share-link').value === ''`)) {
		t.Error("a link the server would refuse is still offered")
	}
	b.shots(ctx, "share-too-long", "#share-box")

	b.do(ctx, chromedp.Navigate(b.base+"/playground"))
	b.do(ctx, chromedp.Click(chromedp.ID("share")))
	b.waitJS(ctx, `document.getElementById('share-link').value.includes('/playground?s=')`, "a link for a scenario of ordinary size")
	if !run(b, ctx, chromedp.Evaluate[bool](`document.getElementById('share-too-long').hidden && !document.getElementById('share-link').hidden`)) {
		t.Error("an ordinary scenario's link is not shown alone")
	}
}
