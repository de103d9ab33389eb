// Find a failure: the server's failure search (POST /api/chaos) on this
// scenario's lock service, in batches so that the page can show how far
// it got and stop at the first violation, bounded in runs and in time.
// The shrunk example opens in the playground with its violation ringed.

import './tools.js';
import { esc, num } from './format.js';
import { usesLock } from './controls.js';

const BATCH = 25;
const MAX_WALL_MS = 90000;

export class Chaos {
  constructor(view, ctx) {
    this.view = view;
    this.ctx = ctx;
    this.$ = id => view.querySelector('#' + id);
    this.hint = view.querySelector('.hint');
    this.lockHint = this.hint.textContent;
    this.$('chaos-start').addEventListener('click', () => this.search());
    this.$('chaos-cancel').addEventListener('click', () => { this.cancelled = true; });
    this.$('chaos-close').addEventListener('click', () => { this.cancelled = true; view.hidden = true; });
    view.addEventListener('click', e => {
      const b = e.target.closest('button[data-example]');
      if (b && this.examples) this.ctx.open(this.examples[+b.dataset.example]);
    });
  }

  show() {
    this.view.hidden = false;
    const sc = this.ctx.getScenario();
    const b = this.ctx.backendOf(sc);
    // A scenario whose clients take no lock is searched as its own kind:
    // clients racing with a conditional claim, faults striking them.
    this.hint.textContent = usesLock(sc) ? this.lockHint
      : 'The server generates races for one row with faults striking the racers, and stops at the first race with two winners, shrunk to its smallest form.';
    this.$('chaos-status').textContent = usesLock(sc) ? `On ${b.label}, ${this.ctx.nodeCount(sc)} node(s), fencing ${sc.fencing ? 'on' : 'off'}.`
      : 'On races of two to six clients that take no lock and claim the row with one conditional UPDATE each, with pauses, held claims and clock jumps striking them.';
    this.view.scrollIntoView({ block: 'nearest' });
    this.$('chaos-start').focus({ preventScroll: true });
  }

  async search() {
    const sc = this.ctx.getScenario();
    const b = this.ctx.backendOf(sc);
    const total = +this.$('chaos-runs').value;
    const status = this.$('chaos-status'), bar = this.$('chaos-progress');
    this.cancelled = false;
    this.examples = null;
    this.$('chaos-start').disabled = true;
    this.$('chaos-cancel').disabled = false;
    bar.max = total;
    bar.value = 0;
    const began = performance.now();
    // Seeds follow from the scenario's seed, so a search can be repeated;
    // searching again goes on where the last one stopped.
    let done = 0, violations = 0, seed = this.nextSeed ?? (sc.seed || 1) * 100000;
    try {
      while (done < total) {
        if (this.cancelled) { status.textContent = `Cancelled after ${num(done)} runs: no violation found.`; return; }
        if (performance.now() - began > MAX_WALL_MS) { status.textContent = `Stopped after ${num(done)} runs (${MAX_WALL_MS / 1000} s): no violation found.`; return; }
        const runs = Math.min(BATCH, total - done);
        status.textContent = `Searching: ${num(done)} of ${num(total)} runs, no violation yet…`;
        const r = await fetch('/api/chaos', {
          method: 'POST', headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(usesLock(sc) ? { backend: b.name, fencing: !!sc.fencing, nodes: this.ctx.nodeCount(sc), runs, seed } : { kind: 'claims', runs, seed }),
        });
        const body = await r.json().catch(() => ({}));
        if (!r.ok) {
          status.innerHTML = `<span class="error">${r.status === 503 ? 'Busy' : 'Error'}: ${esc(body.error || r.statusText)}</span>`;
          return;
        }
        done += body.runs || runs;
        seed += runs;
        this.nextSeed = seed;
        violations += body.violations || 0;
        bar.value = done;
        if (body.examples && body.examples.length) {
          this.examples = body.examples;
          const ex = body.examples[0];
          status.innerHTML = `Found after ${num(done)} runs: ${esc(ex.why)} <button type="button" data-example="0" data-testid="chaos-open">Open it</button>`;
          this.ctx.open(ex);
          return;
        }
      }
      status.textContent = `No violation in ${num(done)} runs${!usesLock(sc) ? ': no race had two winners' : sc.fencing ? ': fencing held' : ''}.`;
    } catch (err) {
      status.textContent = 'Error: ' + err.message;
    } finally {
      this.$('chaos-start').disabled = false;
      this.$('chaos-cancel').disabled = true;
    }
  }
}
