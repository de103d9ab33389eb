// Compare: the scenario as the settings have it (A) against the same with
// one setting changed (B): fencing, the backend, the lease or a client's
// renewal. Both run on the server as fast as possible and are drawn on
// one time axis, side by side on a laptop and stacked on a phone; what happened in only one of
// them is ringed, the summaries stand side by side with the differences
// marked, and each has its verdict. On a backend with no token to fence
// with, the backend is what is compared.

import './tools.js';
import { clone, esc, formatMS, num, parseDuration } from './format.js';

const LEASES = [2000, 5000, 10000, 15000, 30000, 60000, 600000];
const RENEWALS = [0, 1000, 3000, 5000, 10000];

/** options lists what can be changed, and to what, for scenario sc. */
function options(sc, ctx) {
  const b = ctx.backendOf(sc);
  const out = [];
  if (!ctx.usesLock(sc)) return out;
  if (b.fencing) out.push({ id: 'fencing', label: 'fencing', values: [{ v: !sc.fencing, label: sc.fencing ? 'off' : 'on' }] });
  out.push({ id: 'backend', label: 'the backend', values: ctx.catalog.backends.filter(x => x.name !== b.name).map(x => ({ v: x.name, label: x.label })) });
  const lease = parseDuration((sc.lock || {}).lease || '') || ctx.catalog.defaults.lease_ms;
  out.push({ id: 'lease', label: 'the lease', values: LEASES.filter(v => v !== lease).map(v => ({ v, label: formatMS(v) })) });
  for (const c of sc.clients || []) {
    const cur = parseDuration(c.renew_every || '') || 0;
    out.push({ id: 'renew:' + c.name, label: `${c.name}'s renewal`, values: RENEWALS.filter(v => v !== cur).map(v => ({ v, label: v ? 'every ' + formatMS(v) : 'none' })) });
  }
  return out;
}

/** apply returns sc with one setting changed, and what else had to change. */
function apply(sc, what, v, ctx) {
  const b = clone(sc);
  b.lock = b.lock || {};
  const notes = [];
  if (what === 'fencing') b.fencing = v;
  else if (what === 'backend') {
    b.lock.backend = v;
    const k = ctx.catalog.backends.find(x => x.name === v);
    if (!k.nodes.includes(b.lock.nodes)) { if (b.lock.nodes) notes.push(`${k.default_nodes} nodes`); b.lock.nodes = k.default_nodes; }
    if (!k.fencing && b.fencing) { b.fencing = false; notes.push('fencing off: it has no token'); }
    // Faults aimed at nodes it does not have, or at a leader it lacks, go.
    const names = new Set(Array.from({ length: b.lock.nodes }, (_, i) => 'node-' + (i + 1)));
    const before = (b.faults || []).length;
    b.faults = (b.faults || []).filter(f => !f.target || !/^node-/.test(f.target) || names.has(f.target)).filter(f => k.leader || f.target !== 'leader');
    if (b.faults.length < before) notes.push(`${before - b.faults.length} fault(s) it cannot take dropped`);
    if (!b.faults.length) delete b.faults;
  } else if (what === 'lease') b.lock.lease = formatMS(v);
  else if (what.startsWith('renew:')) {
    const c = b.clients.find(c => c.name === what.slice(6));
    if (v) c.renew_every = formatMS(v); else delete c.renew_every;
  }
  return { b, notes };
}

async function postRun(s) {
  const r = await fetch('/api/run', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(s) });
  const body = await r.json();
  if (!r.ok) throw new Error(body.error || r.statusText);
  return body;
}

/** signature names an event that matters for the story, without its time. */
function signatures(events) {
  const keep = new Set(['granted', 'write_accepted', 'write_refused', 'claim_won', 'claim_lost', 'lock_lost', 'gave_up', 'lease_expired', 'grant_forgotten', 'release_forgotten']);
  const seen = {};
  return events.filter(e => keep.has(e.kind)).map(e => {
    const stale = !!e.stale;
    const key = [e.kind + (stale ? '-stale' : ''), e.actor, e.client || '', e.holder || '', e.token || ''].join('|');
    seen[key] = (seen[key] || 0) + 1;
    return { key: key + '#' + seen[key], e };
  });
}

const FACTS = [
  ['safe', 'safe'], ['final_value', 'final value'], ['expected_value', 'expected value'], ['stale_writes_accepted', 'stale writes accepted'],
  ['writes_refused', 'writes refused'], ['double_grants', 'double grants'], ['duplicate_tokens', 'duplicate tokens'],
  ['overlap_ms', 'two holders believed at once'], ['unavailable_ms', 'no lock server answered'], ['grants', 'grants'], ['end_ms', 'ended at'],
];

export class Compare {
  constructor(view, ctx) {
    this.view = view;
    this.ctx = ctx;
    this.what = view.querySelector('#compare-what');
    this.to = view.querySelector('#compare-to');
    this.out = view.querySelector('#compare-out');
    this.note = view.querySelector('#compare-note');
    this.what.addEventListener('change', () => this.fillTo());
    view.querySelector('#compare-run').addEventListener('click', () => this.run());
    view.querySelector('#compare-close').addEventListener('click', () => { view.hidden = true; });
    new ResizeObserver(() => this.redraw()).observe(view);
  }

  /** open shows the form for the current scenario, with the most telling
   * change chosen, and runs it. */
  open() {
    const sc = this.ctx.getScenario();
    this.opts = options(sc, this.ctx);
    this.view.hidden = false;
    if (!this.opts.length) {
      this.what.innerHTML = '';
      this.to.innerHTML = '';
      this.note.textContent = 'This scenario takes no lock: there is no lock setting to compare.';
      this.out.innerHTML = '';
      return;
    }
    this.what.innerHTML = this.opts.map(o => `<option value="${esc(o.id)}">${esc(o.label)}</option>`).join('');
    this.what.value = this.opts[0].id; // fencing where it exists, else the backend
    this.fillTo();
    this.note.textContent = this.ctx.backendOf(sc).fencing ? '' : `${this.ctx.backendOf(sc).label} has no fencing token, so compare it with another backend.`;
    this.view.scrollIntoView({ block: 'nearest' });
    this.run();
  }

  fillTo() {
    const o = this.opts.find(o => o.id === this.what.value);
    this.to.innerHTML = o.values.map((x, i) => `<option value="${i}">${esc(x.label)}</option>`).join('');
    const d = o.values.findIndex(x => x.v === this.ctx.catalog.defaults.backend);
    if (d >= 0) this.to.value = d;
  }

  async run() {
    const sc = this.ctx.getScenario();
    const o = this.opts.find(o => o.id === this.what.value);
    if (!o) return;
    const val = o.values[+this.to.value];
    const { b, notes } = apply(sc, o.id, val.v, this.ctx);
    const nameA = describe(sc, o.id, this.ctx), nameB = `${o.label[0].toUpperCase() + o.label.slice(1)}: ${val.label}`;
    this.out.innerHTML = '<p class="status" data-testid="compare-status">Running both…</p>';
    try {
      const [ra, rb] = await Promise.all([postRun(sc), postRun(b)]);
      this.last = { sc, b, ra, rb, nameA, nameB, notes };
      this.draw();
      // The comparison comes to the top of the window, not below the fold.
      this.view.scrollIntoView({ block: 'start' });
    } catch (err) {
      this.out.innerHTML = `<p class="status error" data-testid="compare-error">Error: ${esc(err.message)}</p>`;
    }
  }

  redraw() { if (this.last && !this.view.hidden) this.draw(); }

  draw() {
    const { sc, b, ra, rb, nameA, nameB, notes } = this.last;
    const sa = signatures(ra.events), sb = signatures(rb.events);
    const ka = new Set(sa.map(x => x.key)), kb = new Set(sb.map(x => x.key));
    const onlyA = sa.filter(x => !kb.has(x.key)).map(x => mark(x.e));
    const onlyB = sb.filter(x => !ka.has(x.key)).map(x => mark(x.e));
    const end = this.ctx.niceEnd(Math.max(ra.summary.end_ms, rb.summary.end_ms));
    const rows = FACTS.map(([k, label]) => {
      const va = ra.summary[k], vb = rb.summary[k];
      const f = v => (typeof v === 'boolean' ? (v ? 'yes' : 'no') : k.endsWith('_ms') ? formatMS(v) : num(v));
      return `<tr class="${va !== vb ? 'diff' : ''}"><th scope="row">${label}</th><td>${f(va)}</td><td>${f(vb)}</td></tr>`;
    }).join('');
    this.out.innerHTML = `
<div class="cmp-run" data-side="a"><h4><span class="cmp-tag">A</span> ${esc(nameA)}</h4>
<p class="verdict ${headed(ra).cls}" data-testid="compare-a">${esc(headed(ra).text)}</p>
<svg class="cmp-svg" role="img" aria-label="Timeline A: ${esc(nameA)}" data-testid="compare-svg-a"></svg></div>
<div class="cmp-run" data-side="b"><h4><span class="cmp-tag">B</span> ${esc(nameB)}${notes.length ? ` <span class="hint">(${esc(notes.join('; '))})</span>` : ''}</h4>
<p class="verdict ${headed(rb).cls}" data-testid="compare-b">${esc(headed(rb).text)}</p>
<svg class="cmp-svg" role="img" aria-label="Timeline B: ${esc(nameB)}" data-testid="compare-svg-b"></svg></div>
<p class="hint">Ringed: what happened in one run and not in the other (${onlyA.length} only in A, ${onlyB.length} only in B).</p>
<table class="cmp-facts" data-testid="compare-facts"><caption class="visually-hidden">The two summaries</caption>
<thead><tr><th></th><th scope="col">A</th><th scope="col">B</th></tr></thead><tbody>${rows}</tbody></table>`;
    // Each at its own column's width: side by side on a laptop, stacked
    // on a phone (tools.css).
    const svgs = this.out.querySelectorAll('svg'), width = i => svgs[i].parentNode.clientWidth;
    this.ctx.render(svgs[0], ra.scenario, ra.events, { states: ra.states, domain: end, now: ra.summary.end_ms, playhead: null, width: width(0), highlight: onlyA });
    this.ctx.render(svgs[1], rb.scenario, rb.events, { states: rb.states, domain: end, now: rb.summary.end_ms, playhead: null, width: width(1), highlight: onlyB });
  }
}

/** headed is a run's verdict line: the server's heading, then what the
 * engine checked. */
function headed(r) {
  const h = r.heading;
  return { cls: h.kind === 'safe' || h.kind === 'unsafe' ? h.kind : 'warn', text: `${h.title}${h.detail ? ` (${h.detail})` : ''}: ${h.checks}` };
}

function describe(sc, what, ctx) {
  if (what === 'fencing') return `As set: fencing ${sc.fencing ? 'on' : 'off'}`;
  if (what === 'backend') return `As set: ${ctx.backendOf(sc).label}`;
  if (what === 'lease') return `As set: lease ${formatMS(parseDuration((sc.lock || {}).lease || '') || ctx.catalog.defaults.lease_ms)}`;
  const c = (sc.clients || []).find(c => c.name === what.slice(6));
  return `As set: ${c.name} renews ${c.renew_every ? 'every ' + c.renew_every : 'never'}`;
}

/** mark is where a differing event is ringed: a storage verdict on the
 * storage's lane, a grant on its node's, an end of a lease on its node's
 * (or, from a majority's nodes together, its holder's), the rest on its
 * client's. */
function mark(e) {
  const why = `only in this run: ${e.kind.replace(/_/g, ' ')}`;
  if (e.kind.startsWith('write') || e.kind.startsWith('claim')) return { t: e.t, kind: 'stale_write', why };
  if (e.kind === 'lease_expired' || e.kind === 'grant_forgotten' || e.kind === 'release_forgotten') return e.actor.startsWith('node-') ? { t: e.t, kind: 'diff', node: e.actor, why } : { t: e.t, kind: 'diff', client: e.holder, why };
  if (e.kind === 'granted' && e.node) return { t: e.t, kind: 'diff', node: e.node, why };
  return { t: e.t, kind: 'diff', client: e.actor, why };
}
