// The settings form: every control shows the scenario's own value (a
// default is shown as the engine's default, never as another client's
// value), writes straight into the scenario, and is hidden or disabled,
// with the reason, where it cannot apply to the chosen backend.

import { esc, formatMS, parseDuration, seconds } from './format.js';

const STEP_DURATIONS = new Set(['work', 'pause']);

/** usesLock says whether any client asks the lock service. */
export function usesLock(sc) {
  return (sc.clients || []).some(c => (c.steps || []).some(s => ['acquire', 'check', 'release'].includes(s.do)));
}

/** Controls keeps the form and the scenario in step. */
export class Controls {
  constructor(form, catalog, onChange) {
    this.form = form;
    this.catalog = catalog;
    this.onChange = onChange;
    this.$ = id => form.querySelector('#' + id);
    this.clientsBox = this.$('clients');
    form.addEventListener('change', e => this.edited(e));
    form.addEventListener('submit', e => e.preventDefault());
  }

  backendOf(s) {
    const name = (s.lock && s.lock.backend) || this.catalog.defaults.backend;
    return this.catalog.backends.find(b => b.name === name) || this.catalog.backends[0];
  }

  /** nodeCount is the engine's node count for a scenario. */
  nodeCount(s) {
    return (s.lock && s.lock.nodes) || this.backendOf(s).default_nodes;
  }

  /** show puts scenario sc into the form. */
  show(sc) {
    this.sc = sc;
    const $ = this.$, b = this.backendOf(sc), lock = sc.lock || {};
    const lockUsed = usesLock(sc);
    // Fencing: only where a token exists to check.
    const fencing = $('fencing'), why = $('fencing-why');
    fencing.checked = !!sc.fencing;
    let fencingWhy = '';
    if (!lockUsed) fencingWhy = 'No client takes a lock here, so there is no token to fence with: the database\'s conditional update decides.';
    else if (!b.fencing) fencingWhy = b.fencing_why;
    fencing.disabled = !!fencingWhy && !sc.fencing;
    why.textContent = fencingWhy;
    why.hidden = !fencingWhy;
    $('until').value = seconds(parseDuration(sc.until || '') || this.catalog.defaults.until_ms);

    // The lock service: all of it is moot without a lock.
    const fs = $('fs-lock');
    fs.disabled = !lockUsed;
    $('lock-why').textContent = lockUsed ? '' : 'This scenario takes no lock: its clients race with one conditional UPDATE, and the database settles it.';
    $('lock-why').hidden = lockUsed;
    $('backend').value = b.name;
    const n = this.nodeCount(sc);
    $('nodes').innerHTML = b.nodes.map(v => `<option${v === n ? ' selected' : ''}>${v}</option>`).join('');
    $('nodes').disabled = b.nodes.length < 2;
    $('lease').value = seconds(parseDuration(lock.lease || '') || this.catalog.defaults.lease_ms);
    $('row-lag').hidden = !b.settings.includes('replication_lag');
    $('lag').value = lock.replication_lag ? parseDuration(lock.replication_lag) : 0;
    $('row-persist').hidden = !b.settings.includes('persist_every');
    $('persist').value = lock.persist_every ? seconds(parseDuration(lock.persist_every)) : '';
    $('row-delay').hidden = !b.settings.includes('lock_delay');
    $('delay').value = lock.lock_delay ? seconds(parseDuration(lock.lock_delay)) : '';
    $('backend-desc').textContent = b.description || '';
    $('latency').value = lock.latency ? parseDuration(lock.latency) : 0;
    this.showClients(sc, lockUsed);
  }

  showClients(sc, lockUsed) {
    const SECS = 'type="number" min="0.01" max="3600" step="0.1"';
    const open = new Set([...this.clientsBox.querySelectorAll('details[open]')].map(d => d.dataset.client));
    const has = f => this.catalog.client_fields.includes(f);
    const dur = (c, f) => (c[f] ? seconds(parseDuration(c[f])) : '');
    this.clientsBox.innerHTML = (sc.clients || []).map((c, i) => {
      const id = `c${i}`;
      const renews = !!c.renew_every;
      const summary = [c.start ? `starts ${c.start}` : 'starts at once', lockUsed ? (renews ? `renews every ${c.renew_every}` : 'no renewal') : '', lockUsed && c.retry_every ? `retries every ${c.retry_every}` : ''].filter(Boolean).join(' · ');
      const steps = (c.steps || []).map((s, j) => {
        const what = esc(s.do) + (s.do === 'write' ? (s.set !== undefined ? ` = ${s.set}` : ` +${s.add ?? 0}`) : '') + (s.message ? ` “${esc(s.message)}”` : '');
        if (s.do === 'send') {
          return `<li>${what} <label for="${id}-s${j}-key">idempotency key</label> <input id="${id}-s${j}-key" type="text" maxlength="64" placeholder="none" value="${esc(s.idempotency_key || '')}" data-ci="${i}" data-step="${j}" data-field="idempotency_key"></li>`;
        }
        if (!STEP_DURATIONS.has(s.do)) return `<li>${what}</li>`;
        return `<li><label for="${id}-s${j}">${what} for (s)</label> <input id="${id}-s${j}" ${SECS} value="${esc(dur(s, 'for'))}" data-ci="${i}" data-step="${j}" data-field="for"></li>`;
      }).join('');
      const lockRows = !lockUsed ? '' : `
<div class="row"><label for="${id}-renew">Renews every (s)</label>
<select id="${id}-renew" data-ci="${i}" data-field="renew">
<option value=""${renews ? '' : ' selected'}>never</option><option value="every"${renews ? ' selected' : ''}>every</option></select>
<input id="${id}-renew_every" ${SECS} aria-label="${esc(c.name)} renews every (seconds)" value="${esc(dur(c, 'renew_every'))}" data-ci="${i}" data-field="renew_every"${renews ? '' : ' hidden'}></div>
${has('renew_timeout') ? `<div class="row"${renews ? '' : ' hidden'}><label for="${id}-renew_timeout">Renew timeout (s)</label><input id="${id}-renew_timeout" ${SECS} placeholder="${esc(dur(c, 'renew_every') || '')}" value="${esc(dur(c, 'renew_timeout'))}" data-ci="${i}" data-field="renew_timeout"></div>` : ''}
<div class="row"><label for="${id}-retry_every">Retry every (s)</label><input id="${id}-retry_every" ${SECS} value="${esc(dur(c, 'retry_every') || seconds(this.catalog.defaults.retry_every_ms))}" data-ci="${i}" data-field="retry_every"></div>
<div class="row"><label for="${id}-on_refused">When refused</label><select id="${id}-on_refused" data-ci="${i}" data-field="on_refused">
<option value="stop"${c.on_refused === 'retry' ? '' : ' selected'}>stop the job</option><option value="retry"${c.on_refused === 'retry' ? ' selected' : ''}>retry the job</option></select></div>
${has('watch_lease') ? `<div class="switch small"><input type="checkbox" id="${id}-watch_lease" data-ci="${i}" data-field="watch_lease"${c.watch_lease ? ' checked' : ''}><label for="${id}-watch_lease">Watches its lease <span class="hint">before each step it checks its own clock and gives up if the lease ran out</span></label></div>` : ''}`;
      return `<details class="client-card" data-client="${esc(c.name)}" data-testid="client-card"${open.has(c.name) ? ' open' : ''}>
<summary><strong>${esc(c.name)}</strong> <span class="hint">${esc(summary)}</span></summary>
<div class="row"><label for="${id}-start">Starts at (s)</label><input id="${id}-start" type="number" min="0" max="3600" step="0.1" value="${esc(dur(c, 'start') || '0')}" data-ci="${i}" data-field="start"></div>
${lockRows}
<p class="steps-h">Steps</p><ol class="steps">${steps}</ol>
</details>`;
    }).join('');
  }

  edited(e) {
    const t = e.target, sc = this.sc, $ = this.$;
    sc.lock = sc.lock || {};
    const ms = v => formatMS(Math.round(parseFloat(v) * 1000));
    if (t.dataset.ci !== undefined) {
      const c = sc.clients[+t.dataset.ci];
      const f = t.dataset.field;
      if (t.dataset.step !== undefined) {
        const s = c.steps[+t.dataset.step];
        if (f === 'idempotency_key') { if (t.value.trim()) s.idempotency_key = t.value.trim(); else delete s.idempotency_key; }
        else if (parseFloat(t.value) > 0) s.for = ms(t.value);
      } else if (f === 'renew') {
        if (t.value === 'every') c.renew_every = c.renew_every || formatMS(Math.max(100, Math.round((parseDuration(sc.lock.lease || '') || this.catalog.defaults.lease_ms) / 3)));
        else { delete c.renew_every; delete c.renew_timeout; }
      } else if (f === 'watch_lease') {
        if (t.checked) c.watch_lease = true; else delete c.watch_lease;
      } else if (f === 'on_refused') {
        if (t.value === 'retry') c.on_refused = 'retry'; else delete c.on_refused;
      } else if (f === 'start') {
        if (parseFloat(t.value) > 0) c.start = ms(t.value); else delete c.start;
      } else if (parseFloat(t.value) > 0) c[f] = ms(t.value);
      else delete c[f];
      this.onChange(`#${t.id}`);
      return;
    }
    switch (t.id) {
      case 'fencing': sc.fencing = t.checked; break;
      case 'until': if (parseFloat(t.value) > 0) sc.until = ms(t.value); break;
      case 'backend': {
        sc.lock.backend = t.value;
        const b = this.backendOf(sc);
        if (!b.nodes.includes(sc.lock.nodes)) sc.lock.nodes = b.default_nodes;
        if (!b.fencing) sc.fencing = false;
        if (!b.settings.includes('replication_lag')) delete sc.lock.replication_lag;
        if (!b.settings.includes('persist_every')) delete sc.lock.persist_every;
        break;
      }
      case 'nodes': sc.lock.nodes = +t.value; break;
      case 'lease': if (parseFloat(t.value) > 0) sc.lock.lease = ms(t.value); break;
      case 'lag': { const v = Math.round(parseFloat(t.value)); if (v > 0) sc.lock.replication_lag = formatMS(v); else delete sc.lock.replication_lag; break; }
      case 'persist': if (parseFloat(t.value) > 0) sc.lock.persist_every = ms(t.value); else delete sc.lock.persist_every; break;
      case 'delay': if (parseFloat(t.value) > 0) sc.lock.lock_delay = ms(t.value); else delete sc.lock.lock_delay; break;
      case 'latency': { const v = Math.round(parseFloat(t.value)); if (v > 0) sc.lock.latency = formatMS(v); else delete sc.lock.latency; break; }
      default: return;
    }
    this.onChange(`#${t.id}`);
  }
}
