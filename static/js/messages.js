// Messages as they fly: each request a client sends the lock service, its
// answer, and a Raft leader's appends to its followers, drawn over the
// timeline as arrows slanted in time from the sender's lane to the
// receiver's. The server records them and says which were lost or late
// (and why); this module only draws what it is sent. It loads the first
// time a run's messages are shown: most runs on a phone never need it.

import { esc, formatMS as fmt } from './format.js';

// A message with no latency arrives the instant it leaves: it is drawn
// over SLANT pixels (the node's moment one SLANT after the client's), so
// that a request, the appends it causes and its answer read in order.
const SLANT = 4;

// Its styles load with it (the page's security policy allows no inline
// style), before the first arrow is drawn.
const link = document.head.appendChild(Object.assign(document.createElement('link'),
  { rel: 'stylesheet', href: new URL('../css/messages.css', import.meta.url).href }));
await new Promise(done => {
  link.addEventListener('load', done);
  link.addEventListener('error', done);
});

// The legend names what this module draws, the first time it draws.
const LEGEND = [
  ['msg-request', 'request to the lock service', '<path d="M2 12L20 3" class="rq"/>'],
  ['msg-answer', 'its answer', '<path d="M2 3L20 12" class="an"/>'],
  ['msg-append', 'Raft leader appends to a follower', '<path d="M2 3L20 12" class="ap"/>'],
  ['msg-lost', 'message lost (×: where it ends)', '<path d="M2 12L12 7" class="lost"/><path d="M9 4l6 6M15 4l-6 6" class="x"/>'],
  ['msg-late', 'message late (held, or after its timeout)', '<path d="M2 12L14 6" class="late"/>' + clock(18, 5)],
];
const legend = document.querySelector('[data-testid=legend]');
if (legend) {
  for (const [id, label, icon] of LEGEND) {
    legend.insertAdjacentHTML('beforeend', `<li data-legend="${id}"><svg viewBox="0 0 24 14" aria-hidden="true"><g class="mg">${icon}</g></svg> ${esc(label)}</li>`);
  }
}

/** clock is the late mark: a clock face centred at x, y. */
function clock(x, y) {
  return `<path d="M${x.toFixed(1)} ${y.toFixed(1)}m-4 0a4 4 0 1 0 8 0a4 4 0 1 0 -8 0M${x.toFixed(1)} ${(y - 2.5).toFixed(1)}v2.5h2" class="ck"/>`;
}

/** drawn tells the messages this module draws: between a client and the
 * lock service, and between lock nodes; the storage's own arrows are the
 * timeline's. */
export function drawn(msgs, lanes) {
  const kind = new Map(lanes.map(l => [l.name, l.kind]));
  return msgs.filter(m => {
    const a = kind.get(m.from), b = kind.get(m.to);
    return a && b && (a === 'node' || b === 'node');
  });
}

/** draw puts the messages sent up to time t over the timeline last
 * rendered into svg (geo: its geometry). A message still in flight at t is
 * drawn as far as it got. */
export function draw(svg, geo, msgs, t) {
  svg.querySelector('g.mg')?.remove();
  const lane = new Map(geo.lanes.map(l => [l.name, l]));
  const id = svg.dataset.uid;
  const yOf = l => (l.kind === 'client' ? l.y + l.h - 12 : l.y + l.h / 2);
  const out = [];
  for (const m of drawn(msgs, geo.lanes)) {
    if (m.sent > t || m.sent > geo.view.to || m.at < geo.view.from) continue;
    const a = lane.get(m.from), b = lane.get(m.to);
    // The node's moment comes one SLANT after the client's.
    const x1 = geo.x(m.sent) + (a.kind === 'node' ? SLANT : 0);
    const x2 = Math.max(geo.x(m.at) + (b.kind === 'node' ? SLANT : 2 * SLANT), x1 + SLANT);
    const y1 = yOf(a), y2 = yOf(b);
    // Lost: the arrow stops half-way, at a cross. In flight: as far as t.
    let f = m.lost ? 0.5 : 1;
    if (m.at > t) f = Math.min(f, (t - m.sent) / Math.max(m.at - m.sent, 1));
    const ex = x1 + (x2 - x1) * f, ey = y1 + (y2 - y1) * f;
    const cls = m.kind === 'append' ? 'ap' : m.answer ? 'an' : 'rq';
    const mark = m.lost ? 'msg-lost' : m.late ? 'msg-late' : m.kind === 'append' ? 'msg-append' : m.answer ? 'msg-answer' : 'msg-request';
    const what = m.kind === 'append' ? `appends ${m.text || 'an entry'}` : m.answer ? `answers ${m.kind}` : m.kind;
    const title = `${m.from} → ${m.to}: ${what}, sent at ${fmt(m.sent)}, ${m.lost ? 'lost' : 'arrived'} at ${fmt(m.at)}${m.why ? ` (${m.lost ? 'lost' : 'late'}: ${m.why})` : ''}`;
    const seg = `x1="${x1.toFixed(1)}" y1="${y1}" x2="${ex.toFixed(1)}" y2="${ey.toFixed(1)}"`;
    out.push(`<g data-mark="${mark}" data-msg="${m.id}"${m.lost ? ' data-lost="1"' : ''}${m.late ? ' data-late="1"' : ''}><title>${esc(title)}</title>`
      + `<line ${seg} class="${cls}${m.late ? ' late' : ''}${m.lost ? ' lost' : ''}"/><line ${seg} class="hit"/>`);
    if (m.lost && f === 0.5) out.push(`<path d="M${ex - 4} ${ey - 4}l8 8M${ex + 4} ${ey - 4}l-8 8" class="x"/>`);
    else if (f === 1) {
      // The head: a small triangle pointing along the arrow.
      const ang = Math.atan2(y2 - y1, x2 - x1), c = Math.cos(ang), s = Math.sin(ang);
      const p = (u, v) => `${(ex - u * c + v * s).toFixed(1)} ${(ey - u * s - v * c).toFixed(1)}`;
      out.push(`<path d="M${ex.toFixed(1)} ${ey.toFixed(1)}L${p(6, 2.5)}L${p(6, -2.5)}z" class="hd"/>`);
    }
    // Late: a small clock where it arrived (a shape, not a word, so that
    // it never covers the timeline's labels).
    if (m.late && f === 1) out.push(clock(ex + 6, ey + (y2 > y1 ? -6 : 6)));
    out.push('</g>');
  }
  // Over the marks, under the words: the timeline's labels stay readable.
  const html = `<g class="mg" clip-path="url(#${id}-clip)" data-testid="messages">${out.join('')}</g>`;
  const marks = svg.querySelector(':scope > g[clip-path]');
  if (marks) marks.insertAdjacentHTML('afterend', html);
  else svg.insertAdjacentHTML('beforeend', html);
}
