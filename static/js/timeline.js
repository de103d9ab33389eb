// The SVG timeline: a lane per client, per lock server (with its own
// grants, where each grants alone) and for the storage, drawn in CSS
// pixels at the width it is shown, so words stay readable on a phone.
// Colours come from site.css (an Okabe-Ito palette) and every meaning also
// has a shape or a word; every mark carries data-mark, named in the legend
// (marks.js). Labels are laid out (layout.js), never just placed.

import { buildModel, signed } from './model.js';
export { setBackends } from './model.js';
import { esc, formatMS as fmt, num } from './format.js';
import { Layout, textWidth } from './layout.js';

/** tok names a token, or says there is none. */
const tok = t => (t ? `token ${t}` : 'no token');
/** upTo says when a span ends, if it does. */
const upTo = t => (t == null ? '' : ' to ' + fmt(t));

let uid = 0;

/** niceStep picks a tick step (1, 2 or 5 times a power of ten) so that
 * ticks stand at least minPx apart. */
function niceStep(span, plotW, minPx) {
  const raw = Math.max(span * minPx / Math.max(plotW, 1), 1);
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  return [1, 2, 5, 10].map(m => m * p).find(s => s >= raw);
}

/** render draws the timeline of sc's events into svg and returns its
 * geometry (for pointer hits and scrubbing).
 * opts: domain (ms of the whole run), now (ms reached), playhead (ms or
 * null), compact (no labels: small multiples), fade (dim what lies after
 * the playhead), view {from, to} (the time window shown; all of it by
 * default), width (px; the svg's own by default), highlight (violations
 * to ring), interactive (lanes are buttons), observed ({node: {term,
 * commit_index}}: read from the live Raft group, kept apart from the
 * deterministic drawing), states (the server's fold of the run, whose
 * node roles the lanes show), cast (the events whose actors get lanes:
 * the whole run, for a replay of part of it). */
export function render(svg, sc, events, opts) {
  const { domain, now, playhead = null, compact = false, fade = true, highlight = [], interactive = false, observed = null } = opts;
  const view = opts.view || { from: 0, to: domain };
  const span = Math.max(view.to - view.from, 1);
  const W = Math.round(opts.width || svg.clientWidth || (svg.parentNode && svg.parentNode.clientWidth) || 1000);
  const narrow = W < 620;
  const LEFT = compact ? (narrow ? 58 : 84) : (narrow ? 64 : 96), RIGHT = 12;
  const TOP = compact ? 22 : 36;
  const plotW = W - LEFT - RIGHT;
  const x = t => LEFT + ((t - view.from) / span) * plotW;
  const inView = t => t >= view.from && t <= view.to;
  const id = svg.dataset.uid || (svg.dataset.uid = 'tl' + (++uid));
  const m = buildModel(sc, events, now, opts.states, opts.cast);
  const L = compact ? { client: 40, node: 30, storage: 34, other: 28 } : narrow ? { client: 70, node: 44, storage: 72, other: 40 } : { client: 70, node: 52, storage: 76, other: 44 };
  const lanes = [];
  let y = TOP;
  for (const c of m.clients) { lanes.push({ kind: 'client', name: c.name, y, h: L.client, data: c }); y += L.client; }
  for (const n of m.nodes) { lanes.push({ kind: 'node', name: n.name, y, h: L.node, data: n }); y += L.node; }
  lanes.push({ kind: 'storage', name: 'storage', y, h: L.storage }); y += L.storage;
  for (const o of m.others) { lanes.push({ kind: 'other', name: o.name, y, h: L.other, data: o }); y += L.other; }
  const bottomRow = y + 14;
  const H = compact ? y + 4 : y + 22;
  const laneOf = name => lanes.find(l => l.name === name);
  const lay = new Layout(LEFT + 2, W - RIGHT - 2);
  const labels = []; // {x, text, rows, cls, prio, title}
  const label = (lx, text, rows, cls, prio = 5) => { if (!compact) labels.push({ x: lx, text, rows, cls, prio }); };

  const out = [];
  out.push(`<defs>
<pattern id="${id}-hatch" width="7" height="7" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="7" height="7" class="hatch-bg"/><line x1="0" y1="0" x2="0" y2="7" class="hatch-line"/></pattern>
<pattern id="${id}-down" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(-45)"><rect width="6" height="6" class="down-bg"/><line x1="0" y1="0" x2="0" y2="6" class="down-line"/></pattern>
<pattern id="${id}-ov" width="10" height="10" patternUnits="userSpaceOnUse" patternTransform="rotate(-45)"><rect width="10" height="10" class="ov-bg"/><line x1="0" y1="0" x2="0" y2="10" class="ov-line"/></pattern>
<marker id="${id}-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0L10 5L0 10z" class="arrow-head"/></marker>
<clipPath id="${id}-clip"><rect x="${LEFT}" y="0" width="${plotW}" height="${H}"/></clipPath>
</defs>`);
  const fill = name => `url(#${id}-${name})`;

  // Lanes, their names (buttons when the page lets you act on them), and
  // the time axis.
  lanes.forEach((l, i) => {
    l.act = interactive && l.kind !== 'storage' && l.kind !== 'other';
    out.push(`<rect x="0" y="${l.y}" width="${W}" height="${l.h}" class="lane ${i % 2 ? 'odd' : ''}${l.act ? ' act' : ''}" data-lane="${esc(l.name)}" data-lane-kind="${l.kind}"/>`);
  });
  const ticksAt = [];
  const step = niceStep(span, plotW, narrow ? 56 : 70);
  for (let t = Math.ceil(view.from / step) * step; t <= view.to + 1; t += step) {
    ticksAt.push(t);
    out.push(`<line x1="${x(t)}" y1="${TOP - 4}" x2="${x(t)}" y2="${H - (compact ? 4 : 20)}" class="grid"/>`);
    if (!compact || t === ticksAt[0] || ticksAt.length % 2) {
      const tx = Math.min(Math.max(x(t), LEFT + 12), W - RIGHT - 12);
      out.push(`<text x="${tx}" y="12" class="tick" text-anchor="middle">${fmt(t)}</text>`);
    }
  }

  out.push(`<g clip-path="url(#${id}-clip)">`);
  // Where two clients believed they held the lock: behind everything.
  for (const o of m.overlaps) {
    const w = Math.max(x(o.to) - x(o.from), 3);
    out.push(`<rect x="${x(o.from)}" y="${TOP}" width="${w}" height="${y - TOP}" class="overlap" fill="${fill('ov')}" data-testid="overlap" data-mark="overlap"><title>${o.count} clients believed they held the lock from ${fmt(o.from)} to ${fmt(o.to)}</title></rect>`);
    if (inView(o.from) || inView(o.to)) label(x(o.from) + w / 2 - 40, `⚠ ${o.count} holders for ${fmt(o.to - o.from)}`, [bottomRow], 'overlap-label', 1);
  }
  // The playhead line goes under the marks, so that it never hides a word.
  if (playhead !== null) out.push(`<line x1="${x(playhead)}" y1="${TOP - 2}" x2="${x(playhead)}" y2="${H - (compact ? 2 : 18)}" class="playhead" data-testid="playhead" data-mark="playhead"/>`);

  // Compare's rings go on top: words keep out from under them.
  const st = laneOf('storage');
  const rings = highlight.map(h => {
    const lane = h.kind === 'stale_write' ? st : laneOf(h.node || h.client) || st;
    const r = { h, cx: x(h.t), cy: lane.kind === 'storage' ? lane.y + 16 : lane.kind === 'node' ? lane.y + lane.h / 2 : lane.y + 24 };
    lay.boxes.push([r.cx - 15, r.cy - 15, r.cx + 15, r.cy + 15]);
    return r;
  });
  for (const l of lanes) {
    if (l.kind === 'client') drawClient(out, l, x, label, fill, compact, lay);
    else if (l.kind === 'node') drawNode(out, l, x, label, fill, compact, m, lay);
    else if (l.kind === 'other') drawOther(out, l, x, label);
  }
  // Messages to the storage: a write travels from its client to the
  // storage's verdict; held ones are dashed.
  for (const w of m.writes) {
    const from = laneOf(w.client);
    if (!from) continue;
    const held = m.delays.some(d => d.client === w.client && d.message === 'write' && d.from <= w.from && d.to >= w.to && w.to > w.from);
    if (held) continue;
    const y1 = from.y + from.h - (compact ? 8 : 18), y2 = st.y + (compact ? 10 : 12);
    const seg = `x1="${x(w.from)}" y1="${y1}" x2="${x(w.to)}" y2="${y2}"`, who = `data-arrow="write" data-client="${esc(w.client)}" data-t="${w.from}"`;
    out.push(`<line ${seg} class="msg${interactive ? ' act' : ''}" data-mark="message" ${who}><title>${esc(w.client)}'s write, sent at ${fmt(w.from)}, reaches the storage at ${fmt(w.to)}${interactive ? ': click to hold its next write in the network' : ''}</title></line>`);
    if (interactive) out.push(`<line ${seg} class="hit" ${who}/>`);
  }
  for (const d of m.delays) {
    const from = laneOf(d.client);
    if (!from) continue;
    const target = d.message === 'write' || d.message === 'read' || d.message === 'send' ? st : (laneOf('node-1') || st);
    const x1 = x(d.from), y1 = from.y + from.h - 14, x2 = x(d.to), y2 = target.y + 12;
    // Words keep off the arrow: it is boxed in steps along its length.
    for (let i = 0, n = Math.ceil(Math.hypot(x2 - x1, y2 - y1) / 8); i <= n; i++) lay.boxes.push([x1 + (x2 - x1) * i / n - 3, y1 + (y2 - y1) * i / n - 3, x1 + (x2 - x1) * i / n + 3, y1 + (y2 - y1) * i / n + 3]);
    out.push(`<line x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" class="delay" marker-end="url(#${id}-arrow)" data-mark="delay" data-arrow="${esc(d.message)}" data-client="${esc(d.client)}"><title>${esc(d.client)}'s ${esc(d.message)} is held by the network until ${fmt(d.to)}</title></line>`);
    if (inView(d.from)) label(x1, `${d.message} held until ${fmt(d.to)}`, [y1 - 4, from.y + from.h - 2], 'mark-label', 4);
  }
  drawStorage(out, st, m.storage, x, label, compact);
  for (const { h, cx, cy } of rings) {
    out.push(`<circle cx="${cx}" cy="${cy}" r="13" class="highlight" data-testid="highlight"><title>${esc(h.why || h.kind.replace(/_/g, ' '))} at ${fmt(h.t)}</title></circle>`);
  }
  if (playhead !== null && fade) {
    const px = Math.max(x(playhead), LEFT);
    out.push(`<rect x="${px}" y="${TOP}" width="${Math.max(W - RIGHT - px, 0)}" height="${y - TOP}" class="future"/>`);
  }
  out.push('</g>');

  // Lane names, with what the live Raft group reports beside them.
  lanes.forEach(l => {
    const act = l.act;
    const arrow = act && !narrow;
    const name = fit(l.name, LEFT - (arrow ? 24 : 12), 700, 12);
    const cy = l.y + l.h / 2 + (observed && observed[l.name] && !compact ? -2 : 4);
    out.push(`<g class="lane-name${act ? ' act' : ''}" data-lane="${esc(l.name)}" data-lane-kind="${l.kind}"${act ? ` role="button" tabindex="0" aria-haspopup="menu" aria-label="${esc(l.name)}: actions"` : ''}>`
      + `<text x="8" y="${cy}" class="lane-label ${l.kind}">${esc(name)}${arrow ? ' ▾' : ''}</text></g>`);
    const o = observed && observed[l.name];
    if (o && !compact) {
      const bits = [o.term ? 't' + o.term : '', o.commit_index !== undefined ? 'c' + o.commit_index : ''].filter(Boolean).join(' · ');
      if (bits) out.push(`<text x="8" y="${cy + 13}" class="observed" data-observed="1"><title>observed from the live Raft node: term ${o.term ?? '?'}, commit index ${o.commit_index ?? '?'}</title>${esc(bits)}</text>`);
    }
  });

  // Labels: the most important first, each where it fits.
  // A label with no room goes, with its time, to the list under the
  // picture.
  labels.sort((a, b) => a.prio - b.prio || a.x - b.x);
  const unplaced = [];
  for (const lb of labels) {
    const w = textWidth(lb.text, lb.cls.includes('label-strong') ? 700 : 600, 10.5) + 2;
    const p = lay.place(lb.x, w, lb.rows);
    if (p) out.push(`<text x="${p.x.toFixed(1)}" y="${p.y}" class="${lb.cls}">${esc(lb.text)}</text>`);
    else unplaced.push({ t: view.from + ((lb.x - LEFT) / plotW) * span, text: lb.text });
  }
  unplaced.sort((a, b) => a.t - b.t);
  if (playhead !== null && !compact) {
    const txt = fmt(playhead);
    const w = textWidth(txt, 700, 11) + 8;
    const px = Math.min(Math.max(x(playhead) - w / 2, LEFT), W - RIGHT - w);
    out.push(`<rect x="${px}" y="17" width="${w}" height="15" rx="3" class="playhead-tag"/><text x="${px + 4}" y="28" class="playhead-label">${txt}</text>`);
  }
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  svg.setAttribute('width', W);
  svg.setAttribute('height', H);
  // A live run redraws every frame: the lane name that had the focus
  // keeps it, so Tab then Enter opens its menu while the run goes on.
  const focused = svg.contains(document.activeElement) && document.activeElement.dataset.lane;
  svg.innerHTML = out.join('');
  if (focused) svg.querySelector(`.lane-name[data-lane="${CSS.escape(focused)}"]`)?.focus({ preventScroll: true });
  return { unplaced, x, t: px => view.from + ((px - LEFT) / plotW) * span, left: LEFT, right: W - RIGHT, width: W, height: H, lanes, view, model: m };
}

/** fit shortens text with an ellipsis to at most w pixels. A name's
 * number (node-3, client-12) stays whole, after the ellipsis, when it fits
 * so: it is what tells one lane from the next. */
function fit(text, w, weight, size) {
  const fits = t => textWidth(t, weight, size) <= w;
  if (fits(text)) return text;
  const cut = (head, tail) => {
    while (head.length > 1 && !fits(head + '…' + tail)) head = head.slice(0, -1);
    return head + '…' + tail;
  };
  const tail = /\d+$/.exec(text)?.[0] ?? '';
  const kept = tail && tail !== text ? cut(text.slice(0, text.length - tail.length), tail) : '';
  return kept && fits(kept) ? kept : cut(text, '');
}

function drawClient(out, l, x, label, fill, compact, lay) {
  const c = l.data;
  const top = l.y + (compact ? 6 : 16), h = compact ? 12 : 20, band = top + h + (compact ? 3 : 6);
  const rows = [l.y + 12, l.y + l.h - 4];
  for (const d of c.drifts) drawDrift(out, l, d, x, label, rows);
  for (const k of c.cuts) {
    const x0 = x(k.from), x1 = k.to == null ? x0 + 1e5 : x(k.to);
    out.push(`<rect x="${x0}" y="${l.y + 3}" width="${Math.max(x1 - x0, 2)}" height="${l.h - 6}" class="node-cut" data-mark="cut-off" data-testid="client-cut"><title>${esc(c.name)} ${esc(k.with || 'is cut off')} from ${fmt(k.from)}${upTo(k.to)}</title></rect>`);
    label(x0, '⌁ cut off', rows, 'mark-label down-label-out label-strong', 2);
  }
  for (const p of c.pauses) {
    out.push(`<rect x="${x(p.from)}" y="${band}" width="${Math.max(x(p.to) - x(p.from), 2)}" height="${compact ? 8 : 14}" class="pause" fill="${fill('hatch')}" data-mark="pause"><title>${esc(c.name)} is frozen from ${fmt(p.from)} to ${fmt(p.to)}</title></rect>`);
    label(x(p.from), `❚❚ paused until ${fmt(p.to)}`, [l.y + l.h - 4], 'pause-label', 3);
  }
  for (const b of c.beliefs) {
    const lease = c.leases.find(s => s.token === b.token && s.from <= b.from + 1 && s.to >= b.from) || c.leases.find(s => s.token === b.token);
    let from = lease ? Math.max(lease.to, b.from) : b.from;
    // Off a lease it holds again (a forgotten grant that came back).
    for (const s of [...c.leases.filter(s => s.from >= from), { from: b.to, to: b.to }]) {
      const to = Math.min(b.to, s.from);
      if (to > from) {
        out.push(`<rect x="${x(from)}" y="${top}" width="${Math.max(x(to) - x(from), 2)}" height="${h}" class="belief" data-mark="belief"><title>${esc(c.name)} still believes it holds ${tok(b.token)}, but its lease has ended</title></rect>`);
        const bw = `believes it holds ${b.token || 'the lock'}`, tw = textWidth(bw, 600, 11), bx = lay.clear(x(from) + 5, top + 14, tw);
        if (!compact && x(to) - bx > tw + 4) out.push(`<text x="${bx}" y="${top + 14}" class="belief-label">${bw}</text>`);
      }
      from = Math.max(from, s.to);
    }
  }
  for (const s of c.leases) {
    const w = Math.max(x(s.to) - x(s.from), 2);
    const began = s.back ? `${s.forgot ? 'forgotten' : 'given back'}${s.released != null ? ' at ' + fmt(s.released) : ''}, came back at ${fmt(s.from)}`
      : `granted at ${fmt(s.from)}${s.heard != null ? `, its answer lost (${c.name} heard of it at ${fmt(s.heard)})` : s.unheard ? ', its answer lost' : ''}`;
    out.push(`<rect x="${x(s.from)}" y="${top}" width="${w}" height="${h}" rx="3" class="lease${s.open ? ' open' : ''}${s.back ? ' back' : ''}" data-testid="lease" data-mark="lease"><title>${tok(s.token)}: ${began}, lease until ${fmt(s.until)}${s.how ? ', ' + s.how : ''}${s.early ? ' early: ' + s.early : ''}</title></rect>`);
    // Under the bar, pointing at it: a tick inside would cut its words.
    for (const r of s.renewals) out.push(`<path d="M${x(r) - 4} ${top + h + 6}l4 -6l4 6z" class="renew-tick" data-mark="renewal"><title>renewed at ${fmt(r)}</title></path>`);
    const lx = lay.clear(x(s.from) + 5, top + 14), fits = t => !compact && x(s.from) + w - lx > textWidth(t, 600, 11) + 4;
    const whole = `${tok(s.token)} · until ${fmt(s.until)}`, inside = fits(whole) ? whole : s.token && fits(String(s.token)) ? s.token : '';
    if (inside) out.push(`<text x="${lx}" y="${top + 14}" class="lease-label">${inside}</text>`);
    else label(x(s.from), s.token ? tok(s.token) : whole, [rows[0]], 'lease-label-out', 4);
    if (s.back) {
      // The service forgot the release: the lease given back runs again.
      out.push(`<path d="M${x(s.from)} ${top - 4}v${h + 8}" class="back-start" data-mark="lease-back" data-testid="lease-back"><title>${tok(s.token)} came back at ${fmt(s.from)}, until ${fmt(s.until)}: ${esc(s.back)}</title></path>`);
      // Its words: how the release was lost, the reason's first clause
      // (the rest, who holds it until when, is the bar's own).
      label(x(s.from), `came back: ${s.back.split(': ')[0]}`, rows, 'mark-label early-label label-strong', 2);
    }
    if (s.early) {
      out.push(`<path d="M${x(s.to)} ${top - 4}v${h + 8}" class="early-end" data-mark="lease-early" data-testid="lease-early"><title>${tok(s.token)} ended at ${fmt(s.to)}, before ${fmt(s.until)}: ${esc(s.early)}</title></path>`);
      label(x(s.to), `ended early: ${s.early}`, rows, 'mark-label early-label label-strong', 2);
    }
  }
  for (const j of c.jumps) drawJump(out, l, j, x, label, rows);
  let shownLost = null;
  // Asks closer than 6 px (a client retrying every few ms) are one mark
  // with their count, not a bar of dots.
  const asks = [], flush = () => {
    const my = band + (compact ? 4 : 7), a = asks[0], z = asks.at(-1), all = asks.every(k => k.kind.endsWith('refused'));
    if (asks.length > 3) {
      const what = `${asks.length} ${all ? 'refused' : 'asks'}`;
      out.push(`<rect x="${x(a.t) - 3}" y="${my - 3}" width="${x(z.t) - x(a.t) + 6}" height="6" rx="3" class="m-ask" data-mark="ask" data-testid="asks"><title>${what} from ${fmt(a.t)} to ${fmt(z.t)}${a.reason ? ': ' + esc(a.reason) : ''}</title></rect>`);
      label(x(a.t), what, [rows[1]], 'mark-label', 3);
    } else for (const k of asks) out.push(`<circle cx="${x(k.t)}" cy="${my}" r="3" class="m-ask" data-mark="ask"><title>${esc(k.kind.replace(/_/g, ' '))}${k.message ? ' (' + esc(k.message) + ')' : ''} at ${fmt(k.t)}${k.reason ? ': ' + esc(k.reason) : ''}</title></circle>`);
    asks.length = 0;
  };
  for (const k of c.marks) {
    const mx = x(k.t), my = band + (compact ? 4 : 7);
    switch (k.kind) {
      case 'sent':
        out.push(`<path d="M${mx - 5} ${my - 5}L${mx + 5} ${my}L${mx - 5} ${my + 5}z" class="m-sent" data-mark="write-sent"><title>sends a write with ${tok(k.token)} at ${fmt(k.t)}</title></path>`);
        break;
      case 'check_ok': case 'check_failed':
        if (!k.stale && k.kind === 'check_failed') { out.push(`<circle cx="${mx}" cy="${my}" r="3" class="m-ask" data-mark="ask"><title>check failed at ${fmt(k.t)}: ${esc(k.reason || '')}</title></circle>`); break; }
        out.push(`<circle cx="${mx}" cy="${my}" r="4" class="m-check${k.stale ? ' m-stale-read' : ''}" data-mark="${k.stale ? 'stale-read' : 'check-ok'}"><title>check ${k.kind === 'check_ok' ? 'passed' : 'failed'} at ${fmt(k.t)}${k.node ? ', answered by ' + esc(k.node) : ''}${k.message ? ': ' + esc(k.message) : ''}</title></circle>`);
        if (k.stale) label(mx, `stale read (${k.node})`, [rows[1]], 'mark-label violation-label label-strong', 3);
        else if (k.message) label(mx, `${k.message.split(':')[0]} (${k.node})`, [rows[1]], 'mark-label', 4);
        break;
      case 'lock_lost': case 'gave_up': case 'crashed': {
        // One sign per moment: "learns it lost the lock" and "gives up"
        // often come together.
        if (shownLost === k.t) break;
        shownLost = k.t;
        const crashed = k.kind === 'crashed';
        const words = crashed ? 'crashed' : k.kind === 'lock_lost' ? 'learns it lost the lock' : 'gives up';
        const shape = crashed ? `<path d="M${mx - 4} ${my - 4}l8 8M${mx + 4} ${my - 4}l-8 8" class="m-lost-line"/>`
          : `<path d="M${mx} ${my - 6}v7" class="m-lost-line"/><circle cx="${mx}" cy="${my + 4}" r="1.6" class="m-lost-dot"/>`;
        out.push(`<g data-mark="${crashed ? 'crashed' : 'lost'}"><title>${esc(words)} at ${fmt(k.t)}${k.reason ? ': ' + esc(k.reason) : ''}</title>${shape}</g>`);
        // A client that dies with a message in flight: its label may need another row.
        label(mx + 4, words, crashed ? rows : [rows[1]], 'mark-label lost-label', 3);
        break;
      }
      case 'done': case 'delayed':
        break;
      default:
        if (k.d) { drawOwn(out, k, mx, my, [rows[1]], label); break; }
        if (asks.length && mx - x(asks.at(-1).t) > 6) flush();
        asks.push(k);
    }
  }
  flush();
}

function drawJump(out, l, j, x, label, rows) {
  const jx = x(j.t), y0 = l.y + 3, y1 = l.y + l.h - 3, mid = (y0 + y1) / 2;
  out.push(`<path d="M${jx} ${y0}V${mid - 5}l-4 5h8l-4 5V${y1}" class="clock-jump" data-mark="clock-jump" data-testid="clock-jump"><title>${esc(l.name)}'s clock jumps ${signed(j.by)} at ${fmt(j.t)}</title></path>`);
  label(jx, `clock ${signed(j.by)}`, rows, 'mark-label jump-label label-strong', 1);
}

function drawDrift(out, l, d, x, label, rows) {
  const x0 = x(d.from), x1 = d.to == null ? x0 + 1e5 : x(d.to);
  out.push(`<rect x="${x0}" y="${l.y + l.h - 9}" width="${Math.max(x1 - x0, 2)}" height="5" class="clock-drift" data-mark="clock-drift" data-testid="clock-drift"><title>${esc(l.name)}'s clock runs at ${d.rate ?? '?'} s per true second from ${fmt(d.from)}${upTo(d.to)}</title></rect>`);
  label(x0, `clock ×${d.rate ?? '?'}`, rows, 'mark-label jump-label', 2);
}

function drawNode(out, l, x, label, fill, compact, m, lay) {
  const n = l.data, mid = l.y + l.h / 2;
  const rows = [l.y + 11, l.y + l.h - 3];
  for (const d of n.drifts) drawDrift(out, l, d, x, label, rows);
  for (const k of n.marks) if (k.kind === 'answer_lost') lay.reserve(mid + 4, x(k.t) - 7, x(k.t) + 7);
  // A violation's badge ("2×" after its moment, "#" before): no word on it.
  for (const v of m.violations) if (v.node === n.name) lay.reserve(mid + 4, x(v.t) - 25, x(v.t) + 25);
  let was = null;
  for (const r of n.roles) {
    if (r.to <= r.from) continue; // nothing has happened yet
    const x0 = x(r.from), w = Math.max(x(r.to) - x0, 2);
    const down = r.role === 'down';
    if (was === 'down' && !down) label(x0, '↻ restarted', rows, 'mark-label label-strong', 2);
    was = r.role;
    if (down || r.role === 'cut off') {
      out.push(`<rect x="${x0}" y="${l.y + 3}" width="${w}" height="${l.h - 6}" class="node-${down ? 'down' : 'cut'}"${down ? ` fill="${fill('down')}"` : ''} data-mark="${down ? 'down' : 'cut-off'}" data-testid="node-${down ? 'down' : 'cut'}"><title>${esc(n.name)} is ${down ? 'down' : 'cut off from the others'} from ${fmt(r.from)}${r.to > r.from ? ' to ' + fmt(r.to) : ''}: it knows nothing of what happens meanwhile</title></rect>`);
      const word = down ? '✕ down' : '⌁ cut off';
      const dx = lay.clear(x0 + 4, mid + 4);
      if (!compact && x0 + w - dx > textWidth(word, 700, 11) + 4) out.push(`<text x="${dx}" y="${mid + 4}" class="down-label">${word}</text>`);
      else label(x0, word, rows, 'mark-label down-label-out label-strong', 2);
      continue;
    }
    if (m.holds) continue; // its holds say it all
    const cls = r.role === 'leader' ? 'leader' : 'follower';
    out.push(`<rect x="${x0}" y="${mid - 5}" width="${w}" height="10" class="role ${cls}" data-mark="${cls}"><title>${esc(n.name)}: ${r.role}${r.term ? ' (term ' + r.term + ')' : ''} from ${fmt(r.from)}</title></rect>`);
    if (r.role === 'leader') label(x0, `★ leader${r.term ? ' · term ' + r.term : ''}`, [rows[1]], 'role-label leader-label', 3);
  }
  const violAt = new Set(m.violations.filter(v => v.node === n.name).map(v => v.t));
  for (const h of n.holds || []) {
    const x0 = x(h.from), w = Math.max(x(h.to) - x0, 2);
    out.push(`<rect x="${x0}" y="${mid - 7}" width="${w}" height="14" rx="3" class="hold" data-mark="hold" data-testid="node-hold" data-client="${esc(h.client)}"><title>${esc(n.name)} holds the lock for ${esc(h.client)} from ${fmt(h.from)} to ${fmt(h.to)} (${esc(h.how || '')})</title></rect>`);
    // The words start after the grant's diamond, a violation's badge or
    // a ring.
    const hx = lay.clear(x0 + (violAt.has(h.from) ? 28 : 10), mid + 4);
    if (!compact && x0 + w - hx > textWidth(h.client, 600, 10.5) + 4) out.push(`<text x="${hx}" y="${mid + 4}" class="hold-label">${esc(h.client)}</text>`);
    if (h.how && h.how.startsWith('its clock')) label(x(h.to), `drops ${h.client}: ${h.how}`, rows, 'mark-label early-label label-strong', 2);
  }
  for (const j of n.jumps) drawJump(out, l, j, x, label, rows);
  const viol = m.violations.filter(v => v.node === n.name);
  for (const k of n.marks) {
    const mx = x(k.t), diamond = `M${mx} ${mid - 7}L${mx + 7} ${mid}L${mx} ${mid + 7}L${mx - 7} ${mid}z`;
    if (k.kind === 'grant') {
      out.push(`<path d="${diamond}" class="m-grant" data-mark="grant"><title>grants ${tok(k.token)} to ${esc(k.client)} at ${fmt(k.t)}</title></path>`);
      if (!m.holds) label(mx, `${k.token ? m.word + k.token + ' → ' : ''}${k.client}`, rows, 'mark-label', 4);
    } else if (k.d) {
      drawOwn(out, k, mx, mid, rows, label);
    } else if (k.kind === 'disk_lost') {
      out.push(`<path d="M${mx - 6} ${mid - 6}l12 12M${mx + 6} ${mid - 6}l-12 12" class="m-lost-line" data-mark="disk-lost"><title>${esc(k.message || 'its disk lost everything')} (${fmt(k.t)})</title></path>`);
      label(mx, 'disk lost: empty log, no vote', rows, 'mark-label violation-label label-strong', 1);
    } else if (k.kind === 'answer_lost') {
      out.push(`<circle cx="${mx}" cy="${mid}" r="6" class="m-answer-lost" data-mark="answer-lost"><title>applied ${esc(k.message || 'a command')} for ${esc(k.client || '')}, but the answer never reached it${k.reason ? ': ' + esc(k.reason) : ''} (${fmt(k.t)})</title></circle><text x="${mx}" y="${mid + 4}" text-anchor="middle" class="glyph-dark">?</text>`);
      label(mx, 'answer lost', rows, 'mark-label', 4);
    } else if (k.kind === 'lock_delay') {
      out.push(`<rect x="${mx}" y="${mid - 7}" width="${Math.max(x(k.until) - mx, 2)}" height="14" class="lock-delay" data-mark="lock-delay" data-testid="lock-delay"><title>lock-delay: the lease of ${esc(k.client)} ended without a release, so nobody gets the lock until ${fmt(k.until)}</title></rect>`);
      label(mx, `lock-delay until ${fmt(k.until)}`, rows, 'mark-label', 4);
    } else {
      out.push(`<path d="${diamond}" class="m-expired" data-mark="expired"><title>the lease of ${esc(k.client)} (${tok(k.token)}) runs out at ${fmt(k.t)}</title></path>`);
      label(mx, `lease ${k.token || k.client} ends`, rows, 'mark-label', 5);
    }
  }
  viol.forEach(v => drawViolation(out, v, x(v.t), mid, label, rows));
}

/** drawOwn draws a backend's own event k.e as its entry says (k.d). */
function drawOwn(out, { d, e }, mx, my, rows, label) {
  const r = d.client ? 5 : 7, id = e.kind.replace(/_/g, '-'), say = s => s.replace(/{(\w+)}/g, (_, f) => f === 'at' ? fmt(e.t) : f === 'until' ? fmt(e.lease_until) : e[f] ?? ''), dot = d.shape === 'dot' ? 'circle' : 'path';
  out.push(`<${dot} ${dot === 'path' ? `d="M${mx} ${my - r}l${r} ${r}l-${r} ${r}l-${r}-${r}z"` : `cx="${mx}" cy="${my}" r="${r / 2 + 0.5}"`} class="${d.class}" data-mark="${id}" data-testid="${id}" data-t="${e.t}"><title>${esc(say(d.title || '{reason} ({at})'))}</title></${dot}>`);
  if (d.label) label(mx, say(d.label), rows, 'mark-label', 4);
}

function drawViolation(out, v, vx, mid, label, rows) {
  const dbl = v.kind === 'double_grant';
  const text = dbl ? '2×' : '#';
  const kind = dbl ? 'double-grant' : 'duplicate-token';
  out.push(`<g class="m-violation" data-mark="${kind}" data-testid="${kind}" data-t="${v.t}"><title>${dbl ? `double grant: ${esc(v.client)} is granted the lock while ${esc(v.other)}'s grant has not run out` : `duplicate token: ${tok(v.token)} was handed out before`} (${fmt(v.t)})</title>`
    + `<rect x="${vx + (dbl ? 9 : -25)}" y="${mid - 6.5}" width="16" height="13" rx="3"/><text x="${vx + (dbl ? 17 : -17)}" y="${mid + 3.5}" class="glyph" text-anchor="middle">${text}</text></g>`);
  label(vx, dbl ? `double grant: ${v.client} and ${v.other}` : `token ${v.token} handed out twice`, rows, 'mark-label violation-label label-strong', 0);
}

// drawOther draws a lane for an outside service: an SMS provider's sends
// and drops, or any event the timeline has no special mark for.
function drawOther(out, l, x, label) {
  const mid = l.y + l.h / 2;
  for (const k of l.data.marks) {
    const mx = x(k.t);
    const sent = k.kind === 'sms_sent', dropped = k.kind === 'sms_dropped';
    const cls = sent ? 'm-accepted' : dropped ? 'm-refused' : 'm-other';
    const shape = sent ? `<rect x="${mx - 7}" y="${mid - 5}" width="14" height="10"/><path d="M${mx - 7} ${mid - 5}l7 6l7 -6" class="glyph-line"/>`
      : dropped ? cross(mx, mid)
      : `<circle cx="${mx}" cy="${mid}" r="4"/>`;
    const what = sent ? `sent "${k.message}" for ${k.client}` : dropped ? `dropped "${k.message}" from ${k.client}: ${k.reason}` : k.kind.replace(/_/g, ' ');
    out.push(`<g class="${cls}" data-testid="other-mark" data-mark="${sent || dropped ? 'sms' : 'other'}"><title>${esc(what)} (${fmt(k.t)})</title>${shape}</g>`);
    label(mx + 6, sent ? `SMS for ${k.client}` : dropped ? `dropped (${k.client})` : k.kind, [l.y + 12, l.y + l.h - 4], `mark-label ${cls}-label`, 4);
  }
}

/** cross is the mark of a refusal or a drop. */
const cross = (mx, my) => `<rect x="${mx - 7}" y="${my - 7}" width="14" height="14"/><path d="M${mx - 4} ${my - 4}l8 8M${mx + 4} ${my - 4}l-8 8" class="glyph-line"/>`;

/** storageMark describes one storage event: its shape, class, label, title. */
function storageMark(s, mx, my) {
  const tick = `<circle cx="${mx}" cy="${my}" r="7"/><path d="M${mx - 4} ${my}l3 3l5 -6" class="glyph-line"/>`;
  switch (s.kind) {
    case 'write_accepted':
      if (s.stale) {
        return { cls: 'm-stale', mark: 'stale', shape: `<path d="M${mx} ${my - 8}L${mx + 8} ${my + 6}L${mx - 8} ${my + 6}z"/><text x="${mx}" y="${my + 4}" class="glyph" text-anchor="middle">!</text>`,
          label: `${s.client}${s.token ? ' ' + s.token : ''} accepted: stale!`, title: `accepted ${s.client}'s write with ${tok(s.token)}, though its lease had ended: ${s.reason}` };
      }
      return { cls: 'm-accepted', mark: 'accepted', shape: tick, label: `${s.client}${s.token ? ' ' + s.token : ''} ✓ ${num(s.value)}`,
        title: `accepted ${s.client}'s write of ${num(s.value)}${s.token ? ' with token ' + s.token : ''}` };
    case 'write_refused':
      return { cls: 'm-refused', mark: 'refused', shape: cross(mx, my), label: `${s.client} refused: ${s.reason.replace(/, the highest.*$/, '')}`, title: `refused ${s.client}'s write: ${s.reason}` };
    case 'claim_won':
      return { cls: 'm-accepted', mark: 'accepted', shape: tick, label: `${s.client} claims it`, title: `${s.client}'s claim changed 1 row` };
    default:
      return { cls: 'm-refused', mark: 'refused', shape: cross(mx, my), label: `${s.client}: 0 rows`, title: `${s.client}'s claim changed 0 rows: ${s.reason}` };
  }
}

function drawStorage(out, l, marks, x, label, compact) {
  const rows = [l.y + 36, l.y + 52, l.y + 68];
  // Marks at the same moment (five claims at once) sit side by side under
  // one label that counts them.
  const groups = [];
  for (const s of marks) {
    const g = groups[groups.length - 1];
    if (g && g[0].t === s.t && s.kind.startsWith('claim') && g[0].kind.startsWith('claim')) g.push(s); else groups.push([s]);
  }
  for (const g of groups) {
    const gx = x(g[0].t);
    const labels = [];
    g.forEach((s, k) => {
      const mx = gx + k * 17, my = l.y + (compact ? 12 : 16);
      const m = storageMark(s, mx, my);
      out.push(`<g class="${m.cls}" data-testid="write-mark" data-mark="${m.mark}" data-kind="${s.kind}${s.stale ? '-stale' : ''}" data-t="${s.t}"><title>${esc(m.title)} (${fmt(s.t)})</title>${m.shape}</g>`);
      labels.push(m);
    });
    let text = labels[0].label, cls = labels[0].cls;
    if (g.length > 1) {
      const won = g.filter(s => s.kind === 'claim_won').map(s => s.client);
      text = `${won.length ? won.join(', ') + ' claims it; ' : ''}${g.length - won.length} change 0 rows`;
    }
    label(gx - 6, text, rows, `mark-label ${cls}-label${cls === 'm-stale' ? ' label-strong' : ''}`, cls === 'm-stale' ? 0 : 3);
  }
}
