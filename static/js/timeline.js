// The SVG timeline: a lane per client, per lock server and for the
// storage. Colours come from site.css (an Okabe-Ito palette) and every
// meaning also has a shape or a word, so nothing depends on colour alone.

import { buildModel } from './model.js';
import { esc, formatMS, num } from './format.js';

/** tok names a token, or says there is none (Redlock). */
const tok = t => (t ? `token ${t}` : 'no token');

const W = 1000, LEFT = 118, RIGHT = 16, TOP = 34;
const LANE = { client: 66, node: 44, storage: 70 };

/** niceStep picks a tick step (1, 2 or 5 times a power of ten) for ~8 ticks. */
function niceStep(span) {
  const raw = span / 8, p = Math.pow(10, Math.floor(Math.log10(raw)));
  return [1, 2, 5, 10].map(m => m * p).find(s => s >= raw);
}

/** render draws the timeline of sc's events into svg.
 * opts: domain (ms shown), now (ms reached), playhead (ms or null), compact,
 * and fade (dim what lies after the playhead). */
export function render(svg, sc, events, opts) {
  const { domain, now, playhead = null, compact = false, fade = true } = opts;
  const m = buildModel(sc, events, now);
  const x = t => LEFT + (Math.min(t, domain) / domain) * (W - LEFT - RIGHT);
  const lanes = [];
  let y = TOP;
  for (const c of m.clients) { lanes.push({ kind: 'client', name: c.name, y, h: LANE.client, data: c }); y += LANE.client; }
  for (const n of m.nodes) { lanes.push({ kind: 'node', name: n.name, y, h: LANE.node, data: n }); y += LANE.node; }
  lanes.push({ kind: 'storage', name: 'storage', y, h: LANE.storage }); y += LANE.storage;
  for (const o of m.others) { lanes.push({ kind: 'other', name: o.name, y, h: LANE.node, data: o }); y += LANE.node; }
  const H = y + 8;
  const laneOf = name => lanes.find(l => l.name === name);
  const out = [];
  out.push(`<defs>
<pattern id="hatch" width="7" height="7" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="7" height="7" class="hatch-bg"/><line x1="0" y1="0" x2="0" y2="7" class="hatch-line"/></pattern>
<pattern id="overlap-hatch" width="10" height="10" patternUnits="userSpaceOnUse" patternTransform="rotate(-45)"><rect width="10" height="10" class="ov-bg"/><line x1="0" y1="0" x2="0" y2="10" class="ov-line"/></pattern>
<marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0L10 5L0 10z" class="arrow-head"/></marker>
</defs>`);

  // Lanes and the time axis.
  lanes.forEach((l, i) => {
    out.push(`<rect x="0" y="${l.y}" width="${W}" height="${l.h}" class="lane ${i % 2 ? 'odd' : ''}"/>`);
    out.push(`<text x="8" y="${l.y + l.h / 2 + 4}" class="lane-label ${l.kind}">${esc(l.name)}</text>`);
  });
  const step = niceStep(domain);
  for (let t = 0; t <= domain + 1; t += step) {
    out.push(`<line x1="${x(t)}" y1="${TOP - 6}" x2="${x(t)}" y2="${H - 8}" class="grid"/>`);
    out.push(`<text x="${x(t)}" y="${TOP - 12}" class="tick" text-anchor="middle">${formatMS(t)}</text>`);
  }

  // Where two clients believed they held the lock: behind everything.
  for (const o of m.overlaps) {
    const w = Math.max(x(o.to) - x(o.from), 3);
    out.push(`<rect x="${x(o.from)}" y="${TOP}" width="${w}" height="${H - TOP - 8}" class="overlap" data-testid="overlap"><title>${o.count} clients believed they held the lock from ${formatMS(o.from)} to ${formatMS(o.to)}</title></rect>`);
    if (!compact) out.push(`<text x="${x(o.from) + w / 2}" y="${H - 12}" class="overlap-label" text-anchor="middle">⚠ ${o.count} holders · ${formatMS(o.to - o.from)}</text>`);
  }

  // The playhead line goes under the marks, so that it never hides a word.
  if (playhead !== null) out.push(`<line x1="${x(playhead)}" y1="${TOP - 4}" x2="${x(playhead)}" y2="${H - 8}" class="playhead" data-testid="playhead"/>`);

  for (const l of lanes) {
    if (l.kind === 'client') drawClient(out, l, x, compact);
    else if (l.kind === 'node') drawNode(out, l, x, compact);
    else if (l.kind === 'other') drawOther(out, l, x, compact);
  }
  const st = laneOf('storage');
  for (const d of m.delays) {
    const from = laneOf(d.client);
    if (!from) continue;
    out.push(`<line x1="${x(d.from)}" y1="${from.y + from.h - 10}" x2="${x(d.to)}" y2="${st.y + 16}" class="delay" marker-end="url(#arrow)"><title>${esc(d.client)}'s ${esc(d.message)} is held by the network until ${formatMS(d.to)}</title></line>`);
  }
  drawStorage(out, st, m.storage, x, compact);

  if (playhead !== null) {
    const px = x(playhead);
    if (fade) out.push(`<rect x="${px}" y="${TOP}" width="${Math.max(W - RIGHT - px, 0)}" height="${H - TOP - 8}" class="future"/>`);
    out.push(`<text x="${Math.min(px + 4, W - 60)}" y="${TOP + 10}" class="playhead-label">${formatMS(playhead)}</text>`);
  }
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  svg.innerHTML = out.join('');
}

function drawClient(out, l, x, compact) {
  const c = l.data, top = l.y + 8, h = 22, band = top + h + 4;
  for (const p of c.pauses) {
    out.push(`<rect x="${x(p.from)}" y="${band}" width="${Math.max(x(p.to) - x(p.from), 2)}" height="16" class="pause"><title>${esc(c.name)} is frozen from ${formatMS(p.from)} to ${formatMS(p.to)}</title></rect>`);
    out.push(`<text x="${x(p.from) + 4}" y="${band + 12}" class="pause-label">❚❚ paused until ${formatMS(p.to)}</text>`);
  }
  for (const b of c.beliefs) {
    const lease = c.leases.find(s => s.token === b.token);
    const from = lease ? Math.max(lease.to, b.from) : b.from;
    if (b.to > from) {
      out.push(`<rect x="${x(from)}" y="${top}" width="${Math.max(x(b.to) - x(from), 2)}" height="${h}" class="belief"><title>${esc(c.name)} still believes it holds ${tok(b.token)}, but its lease has ended</title></rect>`);
      if (!compact && x(b.to) - x(from) > 90) out.push(`<text x="${x(from) + 5}" y="${top + 15}" class="belief-label">believes it holds ${b.token || 'the lock'}</text>`);
    }
  }
  for (const s of c.leases) {
    const w = Math.max(x(s.to) - x(s.from), 2);
    out.push(`<rect x="${x(s.from)}" y="${top}" width="${w}" height="${h}" rx="3" class="lease${s.open ? ' open' : ''}" data-testid="lease"><title>${tok(s.token)}: granted at ${formatMS(s.from)}, lease until ${formatMS(s.until)}${s.how ? ', ' + s.how : ''}</title></rect>`);
    for (const r of s.renewals) out.push(`<path d="M${x(r) - 4} ${top + h}l4 -6l4 6z" class="renew-tick"><title>renewed at ${formatMS(r)}</title></path>`);
    const label = `${tok(s.token)} · until ${formatMS(s.until)}`;
    if (!compact && w > label.length * 6.3) out.push(`<text x="${x(s.from) + 5}" y="${top + 15}" class="lease-label">${label}</text>`);
    else if (!compact) out.push(`<text x="${x(s.from) + 2}" y="${top - 1}" class="lease-label-out">${s.token || ''}</text>`);
  }
  for (const k of c.marks) {
    const mx = x(k.t), my = band + 8;
    switch (k.kind) {
      case 'sent':
        out.push(`<path d="M${mx - 5} ${my - 5}L${mx + 5} ${my}L${mx - 5} ${my + 5}z" class="m-sent"><title>sends a write with ${tok(k.token)} at ${formatMS(k.t)}</title></path>`);
        break;
      case 'acquire_refused': case 'renew_refused': case 'release_refused': case 'check_failed': case 'unavailable':
        out.push(`<circle cx="${mx}" cy="${my}" r="3" class="m-refused-ask"><title>${k.kind.replace('_', ' ')} at ${formatMS(k.t)}</title></circle>`);
        break;
      case 'check_ok':
        out.push(`<circle cx="${mx}" cy="${my}" r="4" class="m-check"><title>check passed at ${formatMS(k.t)}</title></circle>`);
        break;
      case 'lock_lost':
        out.push(`<text x="${mx + 3}" y="${my + 4}" class="m-lost">! learns it lost the lock</text>`);
        break;
      case 'crashed':
        out.push(`<text x="${mx}" y="${my + 4}" class="m-lost" text-anchor="middle">✕ crashed</text>`);
        break;
    }
  }
}

function drawNode(out, l, x, compact) {
  const n = l.data, mid = l.y + l.h / 2;
  for (const r of n.roles) {
    out.push(`<rect x="${x(r.from)}" y="${mid - 5}" width="${Math.max(x(r.to) - x(r.from), 2)}" height="10" class="role ${r.role}"><title>${esc(n.name)}: ${r.role} from ${formatMS(r.from)}</title></rect>`);
    if (!compact) out.push(`<text x="${x(r.from) + 3}" y="${mid + 16}" class="role-label">${r.role === 'leader' ? '★ leader' : r.role}</text>`);
  }
  for (const k of n.marks) {
    const mx = x(k.t);
    if (k.kind === 'grant') {
      out.push(`<path d="M${mx} ${mid - 7}L${mx + 7} ${mid}L${mx} ${mid + 7}L${mx - 7} ${mid}z" class="m-grant"><title>grants token ${k.token} to ${esc(k.client)} at ${formatMS(k.t)}</title></path>`);
      if (!compact) out.push(`<text x="${mx - 4}" y="${mid - 9}" class="mark-label">${k.token} → ${esc(k.client)}</text>`);
    } else {
      out.push(`<path d="M${mx} ${mid - 7}L${mx + 7} ${mid}L${mx} ${mid + 7}L${mx - 7} ${mid}z" class="m-expired"><title>the lease of ${esc(k.client)} (token ${k.token}) runs out at ${formatMS(k.t)}</title></path>`);
      if (!compact) out.push(`<text x="${mx + 9}" y="${mid + 15}" class="mark-label">lease ${k.token} ends</text>`);
    }
  }
}

// drawOther draws a lane for an outside service: an SMS provider's sends
// and drops, or any event the timeline has no special mark for.
function drawOther(out, l, x, compact) {
  const mid = l.y + l.h / 2;
  let lastEnd = -Infinity;
  for (const k of l.data.marks) {
    const mx = x(k.t);
    const sent = k.kind === 'sms_sent', dropped = k.kind === 'sms_dropped';
    const cls = sent ? 'm-accepted' : dropped ? 'm-refused' : 'm-other';
    const shape = sent ? `<rect x="${mx - 7}" y="${mid - 5}" width="14" height="10"/><path d="M${mx - 7} ${mid - 5}l7 6l7 -6" class="glyph-line"/>`
      : dropped ? `<rect x="${mx - 7}" y="${mid - 7}" width="14" height="14"/><path d="M${mx - 4} ${mid - 4}l8 8M${mx + 4} ${mid - 4}l-8 8" class="glyph-line"/>`
      : `<circle cx="${mx}" cy="${mid}" r="4"/>`;
    const what = sent ? `sent "${k.message}" for ${k.client}` : dropped ? `dropped "${k.message}" from ${k.client}: ${k.reason}` : k.kind.replace(/_/g, ' ');
    out.push(`<g class="${cls}" data-testid="other-mark"><title>${esc(what)} (${formatMS(k.t)})</title>${shape}</g>`);
    const label = sent ? `SMS for ${k.client}` : dropped ? `dropped (${k.client})` : k.kind;
    if (!compact && mx > lastEnd) {
      out.push(`<text x="${mx + 10}" y="${mid + 4}" class="mark-label ${cls}-label">${esc(label)}</text>`);
      lastEnd = mx + 10 + label.length * 6.1;
    }
  }
}

/** storageMark describes one storage event: its shape, class, label, title. */
function storageMark(s, mx, my) {
  const tick = `<circle cx="${mx}" cy="${my}" r="7"/><path d="M${mx - 4} ${my}l3 3l5 -6" class="glyph-line"/>`;
  const cross = `<rect x="${mx - 7}" y="${my - 7}" width="14" height="14"/><path d="M${mx - 4} ${my - 4}l8 8M${mx + 4} ${my - 4}l-8 8" class="glyph-line"/>`;
  switch (s.kind) {
    case 'write_accepted':
      if (s.stale) {
        return { cls: 'm-stale', shape: `<path d="M${mx} ${my - 8}L${mx + 8} ${my + 6}L${mx - 8} ${my + 6}z"/><text x="${mx}" y="${my + 4}" class="glyph" text-anchor="middle">!</text>`,
          label: `${s.client}${s.token ? ' ' + s.token : ''} accepted: stale!`, title: `accepted ${s.client}'s write with ${tok(s.token)}, though its lease had ended: ${s.reason}` };
      }
      return { cls: 'm-accepted', shape: tick, label: `${s.client}${s.token ? ' ' + s.token : ''} ✓ ${num(s.value)}`,
        title: `accepted ${s.client}'s write of ${num(s.value)}${s.token ? ' with token ' + s.token : ''}` };
    case 'write_refused':
      return { cls: 'm-refused', shape: cross, label: `${s.client} refused: ${s.reason.replace(/, the highest.*$/, '')}`, title: `refused ${s.client}'s write: ${s.reason}` };
    case 'claim_won':
      return { cls: 'm-accepted', shape: tick, label: `${s.client} claims it`, title: `${s.client}'s claim changed 1 row` };
    default:
      return { cls: 'm-refused', shape: cross, label: `${s.client}: 0 rows`, title: `${s.client}'s claim changed 0 rows: ${s.reason}` };
  }
}

function drawStorage(out, l, marks, x, compact) {
  const rows = [l.y + 22, l.y + 40, l.y + 58];
  const ends = rows.map(() => -Infinity);
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
      const mx = gx + k * 17, my = l.y + 14;
      const m = storageMark(s, mx, my);
      out.push(`<g class="${m.cls}" data-testid="write-mark" data-kind="${s.kind}${s.stale ? '-stale' : ''}"><title>${esc(m.title)} (${formatMS(s.t)})</title>${m.shape}</g>`);
      labels.push(m);
    });
    if (compact) continue;
    let label = labels[0].label, cls = labels[0].cls;
    if (g.length > 1) {
      const won = g.filter(s => s.kind === 'claim_won').map(s => s.client);
      label = `${won.length ? won.join(', ') + ' claims it; ' : ''}${g.length - won.length} change 0 rows`;
    }
    const wLabel = label.length * 6.7;
    const lx = Math.min(gx - 6, 1000 - 16 - wLabel);
    let r = ends.findIndex(e => e < lx);
    if (r < 0) r = ends.indexOf(Math.min(...ends));
    ends[r] = lx + wLabel;
    out.push(`<text x="${lx}" y="${rows[r] + 10}" class="mark-label ${cls}-label">${esc(label)}</text>`);
  }
}
