package web_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// visibleBeforeJS collects the text a learner can see, in a real browser
// with the page's script run, before answering a prediction: every
// visible text node before its options, and the locked playground it
// opens (its Run bar included).
const visibleBeforeJS = `(() => {
  const form = document.getElementById('exercise-%[1]s');
  // Its options name every outcome on purpose; a number has its box.
  const options = form.querySelector('fieldset') || form.querySelector('[name=answer]');
  const fig = document.querySelector('figure[data-predict="%[1]s"]');
  const out = [];
  const w = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (w.nextNode()) {
    const n = w.currentNode, el = n.parentElement;
    if (!el || !el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})) continue;
    const before = options.compareDocumentPosition(n) & Node.DOCUMENT_POSITION_PRECEDING;
    if ((before && !options.contains(n)) || fig.contains(n)) out.push(n.textContent);
  }
  for (const el of document.querySelectorAll('[title]')) {
    if (fig.contains(el) || options.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_PRECEDING) out.push(el.title);
  }
  return out.join(' ');
})()`

// TestE2ELessonsGiveNothingAwayBeforeThePrediction: in lessons 1, 6 and
// 8, with the page's script run at a desktop's and a phone's size, the
// text shown before the prediction (header, contents, headings, text,
// the question, the locked playground beside its Run button) holds
// neither the preset's title nor a phrase that states the outcome. The
// screenshots show the top of each page and the question.
func TestE2ELessonsGiveNothingAwayBeforeThePrediction(t *testing.T) {
	cat := catalog(t)
	b := startBrowser(t)
	for _, tc := range []struct{ n, slug, ex string }{
		{"1", "why-a-lock", "pause-outlives-lease"},
		{"6", "redlock", "more-servers-pause"},
		{"8", "side-effects", "sms-fencing-predict"},
	} {
		ctx := b.tab("/lessons/" + tc.slug)
		b.do(ctx, chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`figure[data-predict=%q] [data-testid=lp-run]`, tc.ex))))
		for _, sz := range [][2]int{{1366, 900}, {390, 844}} {
			b.size(ctx, sz[0], sz[1])
			b.settle(ctx)
			seen := plainLower(run(b, ctx, chromedp.Evaluate[string](fmt.Sprintf(visibleBeforeJS, tc.ex))))
			if !strings.Contains(seen, "predict first") {
				t.Fatalf("lesson %s: the collected text misses the locked playground: %q", tc.n, seen)
			}
			for _, g := range cat.Giveaways(tc.ex) {
				if strings.Contains(seen, plainLower(g)) {
					t.Errorf("lesson %s at %dx%d: before the prediction the page shows %q", tc.n, sz[0], sz[1], g)
				}
			}
		}
		b.size(ctx, 1366, 900)
		b.do(ctx, chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
		b.shots(ctx, "lesson-"+tc.n+"-top")
		b.shots(ctx, "lesson-"+tc.n+"-question", "#exercise-"+tc.ex)
	}
}
