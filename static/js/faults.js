// The fault list editor: add, move and remove faults at chosen times. Every
// change calls onChange with the new list; the editor never keeps its own
// copy of the scenario.

import { esc, formatMS, parseDuration, seconds } from './format.js';

/** targetsFor lists who a fault of this kind may strike in scenario sc;
 * "leader" only where the fault may aim at it and the backend has one. */
export function targetsFor(kind, sc, nodeNames, hasLeader = true) {
  const clients = (sc.clients || []).map(c => c.name);
  const nodes = kind && kind.leader && hasLeader ? ['leader', ...nodeNames] : nodeNames;
  if (!kind) return clients;
  if (kind.targets === 'node') return nodes;
  if (kind.targets === 'any') return [...nodeNames, ...clients];
  return clients;
}

/** FaultEditor draws sc.faults into list (an <ol>) and edits them. */
export class FaultEditor {
  constructor(list, catalog, onChange) {
    this.list = list;
    this.catalog = catalog;
    this.onChange = onChange;
    this.kinds = Object.fromEntries(catalog.faults.map(k => [k.id, k]));
    list.addEventListener('change', e => this.edited(e));
    list.addEventListener('click', e => this.clicked(e));
  }

  /** show redraws the list for scenario sc; focusSel re-focuses a control. */
  show(sc, nodeNames, focusSel, hasLeader = true) {
    this.sc = sc;
    this.nodeNames = nodeNames;
    this.hasLeader = hasLeader;
    const faults = sc.faults || [];
    if (!faults.length) {
      this.list.innerHTML = '<li class="empty">No scheduled faults. Add one, or inject them live during a run.</li>';
      return;
    }
    this.list.innerHTML = faults.map((f, i) => this.row(f, i, faults.length)).join('');
    if (focusSel) this.list.querySelector(focusSel)?.focus();
  }

  /** kindOf is the catalog's kind of a fault: a partition with a side
   * is not the one-node partition. */
  kindOf(f) {
    if (f.side && this.kinds['partition-side']) return this.kinds['partition-side'];
    return this.kinds[f.do];
  }

  row(f, i, n) {
    const k = this.kindOf(f);
    const id = `f${i}`;
    const kid = k ? k.id : f.do;
    const known = this.catalog.faults.some(x => x.id === kid);
    const opts = (known ? '' : `<option value="${esc(f.do)}" selected>${esc(f.do)}</option>`)
      + this.catalog.faults.map(x => `<option value="${x.id}"${x.id === kid ? ' selected' : ''}>${esc(x.label)}</option>`).join('');
    const targets = targetsFor(k, this.sc, this.nodeNames, this.hasLeader);
    if (f.target && !targets.includes(f.target)) targets.unshift(f.target);
    const tOpts = targets.map(t => `<option${t === f.target ? ' selected' : ''}>${esc(t)}</option>`).join('');
    let params = '';
    const fields = k ? k.fields : ['target'];
    if (fields.includes('side')) params += `<span class="side">with ${esc((f.side || []).join(', '))}</span>`;
    if (fields.includes('rate')) params += `<label for="${id}-rate">rate</label><input id="${id}-rate" type="number" min="0.1" max="10" step="0.1" value="${esc(f.rate ?? '')}" data-i="${i}" data-field="rate">`;
    if (fields.includes('for')) params += this.num(id, i, 'for', 'for (s)', f.for);
    if (fields.includes('by')) params += this.num(id, i, 'by', 'by (s)', f.by, true);
    if (fields.includes('kind')) {
      params += `<label for="${id}-kind">message</label><select id="${id}-kind" data-i="${i}" data-field="kind">` +
        this.catalog.delay_kinds.map(d => `<option${d === f.kind ? ' selected' : ''}>${d}</option>`).join('') + '</select>';
    }
    return `<li class="fault" data-testid="fault-row">
<span class="fault-n" aria-hidden="true">${i + 1}</span>
<label for="${id}-at">at (s)</label><input id="${id}-at" type="number" min="0" step="0.1" value="${esc(seconds(parseDuration(f.at) || 0))}" data-i="${i}" data-field="at">
<label for="${id}-do" class="visually-hidden">fault ${i + 1} kind</label><select id="${id}-do" data-i="${i}" data-field="do">${opts}</select>
${fields.includes('target') ? `<label for="${id}-target">who</label><select id="${id}-target" data-i="${i}" data-field="target">${tOpts}</select>` : ''}
${params}
<span class="fault-buttons">
<button type="button" data-i="${i}" data-act="up" aria-label="Move fault ${i + 1} earlier: it takes the time of the one above"${i === 0 ? ' disabled' : ''}>↑</button>
<button type="button" data-i="${i}" data-act="down" aria-label="Move fault ${i + 1} later: it takes the time of the one below"${i === n - 1 ? ' disabled' : ''}>↓</button>
<button type="button" data-i="${i}" data-act="remove" aria-label="Remove fault ${i + 1}">✕</button>
</span></li>`;
  }

  num(id, i, field, label, value, signed) {
    const v = value ? seconds(parseDuration(value)) : '';
    return `<label for="${id}-${field}">${label}</label><input id="${id}-${field}" type="number" step="0.1"${signed ? '' : ' min="0.01"'} value="${esc(v)}" data-i="${i}" data-field="${field}">`;
  }

  faults() { return (this.sc.faults || []).map(f => ({ ...f })); }

  edited(e) {
    const el = e.target, i = +el.dataset.i, field = el.dataset.field;
    if (!field) return;
    const faults = this.faults();
    const f = faults[i];
    if (field === 'do') {
      const k = this.kinds[el.value];
      const ts = targetsFor(k, this.sc, this.nodeNames, this.hasLeader);
      const target = ts.includes(f.target) ? f.target : ts[0];
      const nf = { at: f.at, do: k.do };
      if (k.fields.includes('side')) nf.side = [this.nodeNames[0], target].filter(Boolean);
      else nf.target = target;
      for (const [key, v] of Object.entries(k.defaults || {})) nf[key] = v;
      faults[i] = nf;
      this.onChange(faults, `#f${i}-do`);
      return;
    }
    if (field === 'rate') {
      const r = parseFloat(el.value);
      if (Number.isNaN(r)) delete f.rate; else f.rate = r;
    } else if (field === 'at' || field === 'for' || field === 'by') {
      const s = parseFloat(el.value);
      if (Number.isNaN(s)) { delete f[field]; } else f[field] = formatMS(Math.round(s * 1000));
    } else f[field] = el.value;
    this.onChange(faults, null);
  }

  clicked(e) {
    const b = e.target.closest('button[data-act]');
    if (!b) return;
    const i = +b.dataset.i, faults = this.faults();
    const act = b.dataset.act;
    if (act === 'remove') {
      faults.splice(i, 1);
      const next = Math.min(i, faults.length - 1);
      this.onChange(faults, next >= 0 ? `[data-i="${next}"][data-act="remove"]` : null, act);
      return;
    }
    // Moving a fault moves it in time: it takes its neighbour's time and
    // its neighbour takes its own, so the list stays in the order the
    // faults strike.
    const j = act === 'up' ? i - 1 : i + 1;
    [faults[i].at, faults[j].at] = [faults[j].at, faults[i].at];
    [faults[i], faults[j]] = [faults[j], faults[i]];
    this.onChange(faults, `[data-i="${j}"][data-act="${act}"]:not([disabled]), [data-i="${j}"][data-act="remove"]`);
  }

  /** add appends a fault of the first kind, after the last one. */
  add() {
    const faults = this.faults();
    const k = this.catalog.faults[0];
    const lastAt = faults.length ? parseDuration(faults[faults.length - 1].at) || 0 : 3000;
    const f = { at: formatMS(lastAt + 1000), do: k.do, target: targetsFor(k, this.sc, this.nodeNames, this.hasLeader)[0] };
    if (k.fields.includes('side')) { delete f.target; f.side = [this.nodeNames[0], targetsFor(k, this.sc, this.nodeNames, this.hasLeader)[0]]; }
    Object.assign(f, k.defaults || {});
    faults.push(f);
    this.onChange(faults, `#f${faults.length - 1}-at`);
  }
}
