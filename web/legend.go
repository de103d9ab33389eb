package web

import (
	"slices"

	"github.com/a-h/templ"

	"github.com/leaselab/playground/engine"
)

// LegendMark is one mark the timeline can draw: its id (the data-mark of
// every element static/js/timeline.js draws for it), what it means, and
// its small picture in the legend.
type LegendMark struct {
	ID    string
	Label string
	Icon  string // SVG content in a 24x14 box
}

// legendMarks lists every common mark of the timeline in legend order; the
// marks a backend adds come from its entry (legend), a node's hold from the
// first entry with Holds (holdMark). A mark the timeline draws must be in
// one of them: TestE2ETimelineOfEveryPreset fails otherwise.
var legendMarks = []LegendMark{
	{ID: "lease", Label: "lease held (token · end)", Icon: `<rect x="1" y="3" width="22" height="8" rx="2" class="lease"/>`},
	{ID: "renewal", Label: "renewal", Icon: `<rect x="1" y="3" width="22" height="8" rx="2" class="lease"/><path d="M8 11l4 -5l4 5z" class="renew-tick"/>`},
	{ID: "lease-early", Label: "lease ended early (says why)", Icon: `<rect x="1" y="3" width="14" height="8" rx="2" class="lease"/><path d="M15 1v12" class="early-end"/>`},
	{ID: "lease-back", Label: "lease given back came back (says why)", Icon: `<path d="M9 1v12" class="back-start"/><rect x="9" y="3" width="14" height="8" rx="2" class="lease back"/>`},
	{ID: "belief", Label: "still believes it holds the lock", Icon: `<rect x="1" y="3" width="22" height="8" class="belief"/>`},
	{ID: "pause", Label: "paused (frozen)", Icon: `<rect x="1" y="2" width="22" height="10" class="pause"/>`},
	{ID: "write-sent", Label: "write sent", Icon: `<path d="M7 2L17 7L7 12z" class="m-sent"/>`},
	{ID: "message", Label: "message to the storage (click: delay)", Icon: `<path d="M2 2L20 12" class="msg"/>`},
	{ID: "delay", Label: "message held by the network", Icon: `<path d="M2 2L20 12" class="delay"/>`},
	{ID: "ask", Label: "request refused or unanswered", Icon: `<circle cx="12" cy="7" r="4" class="m-ask"/>`},
	{ID: "check-ok", Label: "check passed", Icon: `<circle cx="12" cy="7" r="4.5" class="m-check"/>`},
	{ID: "lost", Label: "learns it lost the lock / gives up", Icon: `<path d="M12 2v7" class="m-lost-line"/><circle cx="12" cy="12" r="1.6" class="m-lost-dot"/>`},
	{ID: "crashed", Label: "client crashed", Icon: `<path d="M8 3l8 8M16 3l-8 8" class="m-lost-line"/>`},
	{ID: "grant", Label: "grant", Icon: `<path d="M12 1L18 7L12 13L6 7z" class="m-grant"/>`},
	{ID: "expired", Label: "lease ran out at the server", Icon: `<path d="M12 1L18 7L12 13L6 7z" class="m-expired"/>`},
	{ID: "lock-delay", Label: "lock-delay: nobody gets the lock", Icon: `<rect x="1" y="3" width="22" height="8" class="lock-delay"/>`},
	{ID: "stale-read", Label: "stale read", Icon: `<circle cx="12" cy="7" r="4.5" class="m-check m-stale-read"/>`},
	{ID: "disk-lost", Label: "disk lost", Icon: `<path d="M6 1l12 12M18 1l-12 12" class="m-lost-line"/>`},
	{ID: "answer-lost", Label: "applied, answer lost", Icon: `<circle cx="12" cy="7" r="5" class="m-answer-lost"/><text x="12" y="10.5" text-anchor="middle" class="glyph-dark">?</text>`},
	{ID: "leader", Label: "leader (★, with its term)", Icon: `<rect x="1" y="4" width="22" height="6" class="role leader"/>`},
	{ID: "follower", Label: "follower / replica / server up", Icon: `<rect x="1" y="4" width="22" height="6" class="role follower"/>`},
	{ID: "down", Label: "node down", Icon: `<rect x="1" y="1" width="22" height="12" class="node-down"/>`},
	{ID: "cut-off", Label: "node cut off (unreachable)", Icon: `<rect x="1" y="1" width="22" height="12" class="node-cut"/>`},
	{ID: "clock-jump", Label: "clock jump (offset)", Icon: `<path d="M12 0l-3 5h5l-3 4h4l-5 5" class="clock-jump"/>`},
	{ID: "clock-drift", Label: "drifting clock (rate)", Icon: `<rect x="1" y="5" width="22" height="4" class="clock-drift"/>`},
	{ID: "accepted", Label: "write accepted / claim won", Icon: `<g class="m-accepted"><circle cx="12" cy="7" r="6"/><path d="M9 7l2 2l4 -4" class="glyph-line"/></g>`},
	{ID: "refused", Label: "write refused / claim lost", Icon: `<g class="m-refused"><rect x="6" y="1" width="12" height="12"/><path d="M9 4l6 6M15 4l-6 6" class="glyph-line"/></g>`},
	{ID: "stale", Label: "stale write accepted", Icon: `<g class="m-stale"><path d="M12 0L19 13L5 13z"/><text x="12" y="12" class="glyph" text-anchor="middle">!</text></g>`},
	{ID: "double-grant", Label: "double grant: two clients granted at once", Icon: `<g class="m-violation"><rect x="2" y="1" width="20" height="12" rx="3"/><text x="12" y="10.5" class="glyph" text-anchor="middle">2×</text></g>`},
	{ID: "duplicate-token", Label: "duplicate token: handed out twice", Icon: `<g class="m-violation"><rect x="2" y="1" width="20" height="12" rx="3"/><text x="12" y="10.5" class="glyph" text-anchor="middle">#</text></g>`},
	{ID: "overlap", Label: "two clients believe they hold the lock", Icon: `<rect x="1" y="1" width="22" height="12" class="overlap legend-overlap"/>`},
	{ID: "sms", Label: "outside service: sent / dropped", Icon: `<g class="m-accepted"><rect x="5" y="2" width="14" height="10"/><path d="M5 2l7 6l7 -6" class="glyph-line"/></g>`},
	{ID: "other", Label: "other event", Icon: `<circle cx="12" cy="7" r="3.5" class="m-other"/>`},
	{ID: "playhead", Label: "playhead", Icon: `<path d="M12 0v14" class="playhead"/>`},
}

// holdMark is a node's own grant to a client, drawn for a backend whose
// client holds the lock while a majority of nodes granted it; its label
// is the first such backend's Holds line.
var holdMark = LegendMark{ID: "hold", Icon: `<rect x="1" y="3" width="22" height="8" rx="2" class="hold"/>`}

// backendMarksAt is the common mark before which the backends' own marks
// stand in the legend; holdsAt the one before which a node's hold stands.
const (
	backendMarksAt = "disk-lost"
	holdsAt        = "clock-jump"
)

// legendList lists every mark in legend order: the common ones, with the
// registered backends' own marks among them.
func legendList() []LegendMark {
	var own, holds []LegendMark
	for _, m := range TheCatalog().legend {
		if m.ID == holdMark.ID {
			holds = append(holds, m)
		} else {
			own = append(own, m)
		}
	}
	i := slices.IndexFunc(legendMarks, func(m LegendMark) bool { return m.ID == backendMarksAt })
	j := slices.IndexFunc(legendMarks, func(m LegendMark) bool { return m.ID == holdsAt })
	return slices.Concat(legendMarks[:i], own, legendMarks[i:j], holds, legendMarks[j:])
}

// kindLegend adds to the legend the entries of a backend's marked event
// kinds that it lacks (a copy of a backend under another name declares the
// same), drawn from their shape and style as the timeline draws them.
func kindLegend(out []LegendMark, kinds []engine.KindCapability) []LegendMark {
	for _, k := range kinds {
		if k.Lane == "" || slices.ContainsFunc(out, func(m LegendMark) bool { return m.ID == engine.MarkID(k.Kind) }) {
			continue
		}
		icon := `<circle cx="12" cy="7" r="4.5" class="` + k.Class + `"/>`
		if k.Shape == "diamond" {
			icon = `<path d="M12 1L18 7L12 13L6 7z" class="` + k.Class + `"/>`
		}
		out = append(out, LegendMark{ID: engine.MarkID(k.Kind), Label: k.Legend, Icon: icon})
	}
	return out
}

// legendIcon is a mark's picture, trusted markup: legendMarks', or a
// backend's shape with its class name, which the registry checks is one.
func legendIcon(m LegendMark) templ.Component {
	return templ.Raw(`<svg viewBox="0 0 24 14" aria-hidden="true">` + m.Icon + `</svg>`)
}
