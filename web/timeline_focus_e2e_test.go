package web_test

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/leaselab/playground/web"
)

// TestE2EAClickOnAMarkShowsWhereTheKeysGo: after a click on the
// grant_back mark the timeline has the focus, ringed, so the keyboard's ←
// and → visibly step it; a click in a text field then takes the keys
// back: a digit typed there goes into the field and moves no playhead.
// Before, the focus went to <main>, which shows no outline.
func TestE2EAClickOnAMarkShowsWhereTheKeysGo(t *testing.T) {
	b := startBrowser(t)
	share, err := web.EncodeShare(grantBackScenario(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx := b.tab("/playground?s=" + share + "&run=1&speed=0")
	b.size(ctx, 1366, 900)
	b.waitUntil(ctx, `!!document.querySelector('[data-testid=verdict-text]')`, "the verdict")
	b.settle(ctx)
	r := run(b, ctx, chromedp.Evaluate[[]float64](markBox))
	b.do(ctx, chromedp.MouseClickXY(r[0]+r[2]/2, r[1]+r[3]/2))
	b.settle(ctx)
	type focus struct {
		ID      string `json:"id"`
		Outline string `json:"outline"`
		Width   string `json:"width"`
		Scrub   string `json:"scrub"`
	}
	focused := func() focus {
		return run(b, ctx, chromedp.Evaluate[focus](`(() => { const a = document.activeElement, s = getComputedStyle(a);
  return { id: a.id, outline: s.outlineStyle, width: s.outlineWidth, scrub: document.getElementById('scrub').value }; })()`))
	}
	if f := focused(); f.ID != "timeline" || f.Outline == "none" || f.Width == "0px" || f.Scrub != "5200" {
		t.Errorf("after a click on the mark the focus is on %q, outline %s %s, the playhead at %sms; want the timeline, ringed, at 5200ms", f.ID, f.Outline, f.Width, f.Scrub)
	}
	b.shots(ctx, "timeline-focus", "#timeline")
	b.do(ctx, chromedp.KeyEvent(kb.ArrowRight))
	b.settle(ctx)
	if f := focused(); f.ID != "timeline" || f.Scrub == "5200" {
		t.Errorf("after → the focus is on %q and the playhead at %sms; want the timeline, the playhead on", f.ID, f.Scrub)
	}
	at := focused().Scrub
	b.do(ctx, chromedp.Click(chromedp.ID("until")), chromedp.KeyEvent(kb.End), chromedp.KeyEvent("5"), chromedp.KeyEvent(kb.ArrowLeft))
	b.settle(ctx)
	v := run(b, ctx, chromedp.Evaluate[string](`document.getElementById('until').value`))
	if f := focused(); f.ID != "until" || f.Scrub != at || v != "305" {
		t.Errorf("typing in Run for: the focus is on %q, the field says %q, the playhead at %sms; want until, 305, %sms", f.ID, v, f.Scrub, at)
	}
}
