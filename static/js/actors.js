// Actor menus: one compact menu per client and lock server (and "the
// leader"), opened from its button in the actors drawer, by clicking (or
// Enter on) its lane in the timeline, or by clicking a message arrow.
// During a run an entry strikes at once; otherwise it adds the fault to
// the scenario at the playhead's time.

import { esc } from './format.js';

/** entries lists what can be done to an actor: [{label, fault, why}],
 * where why (if set) says why an entry cannot apply. */
export function entries(catalog, backend, actor, kind, opts = {}) {
  const out = [];
  for (const k of catalog.faults) {
    const forClient = k.targets === 'client' || k.targets === 'any';
    const forNode = k.targets === 'node' || k.targets === 'any';
    if (kind === 'client' && !forClient) continue;
    if (kind === 'node' && !forNode) continue;
    if (kind === 'leader' && !(forNode && k.leader)) continue;
    const fault = { do: k.do, ...(k.defaults || {}) };
    if (k.fields.includes('side')) {
      if (!opts.leader) continue;
      fault.side = [opts.leader, actor];
    } else fault.target = actor;
    let label = k.menu.replace('{target}', actor === 'leader' ? 'the leader' : actor);
    if (k.do === 'delay' && opts.message) { fault.kind = opts.message; label = `Hold ${actor}'s next ${opts.message} 10s`; }
    let why = '';
    if (kind === 'leader' && !backend.leader) why = `${backend.label} has no leader`;
    if (k.do === 'restart' && opts.role && opts.role !== 'down') why = `${actor} is not down`;
    if (k.do === 'crash' && opts.role === 'down') why = `${actor} is already down`;
    out.push({ label, fault, why });
  }
  // A message arrow's own entries first.
  if (opts.message) out.sort((a, b) => (b.fault.do === 'delay') - (a.fault.do === 'delay'));
  return out;
}

/** Menu is the one popup menu of the page. */
export class Menu {
  constructor(el, onPick) {
    this.el = el;
    this.onPick = onPick;
    this.items = [];
    el.addEventListener('click', e => {
      const b = e.target.closest('button[data-i]');
      if (!b || b.disabled) return;
      const it = this.items[+b.dataset.i];
      this.close();
      this.onPick(it);
    });
    el.addEventListener('keydown', e => {
      const bs = [...el.querySelectorAll('button:not([disabled])')];
      const i = bs.indexOf(document.activeElement);
      if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); this.close(true); }
      else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault(); e.stopPropagation();
        bs[(i + (e.key === 'ArrowDown' ? 1 : bs.length - 1)) % bs.length]?.focus();
      } else if (e.key === 'Tab') this.close();
    });
    document.addEventListener('pointerdown', e => {
      if (!el.hidden && !el.contains(e.target) && !(this.opener && this.opener.contains(e.target))) this.close();
    });
  }

  /** open shows items for actor at (x, y) inside the menu's container. */
  open(title, items, where, opener, note) {
    this.items = items;
    this.opener = opener;
    this.el.innerHTML = `<p class="menu-title">${esc(title)}</p>${note ? `<p class="menu-note">${esc(note)}</p>` : ''}`
      + items.map((it, i) => `<button type="button" role="menuitem" data-i="${i}" data-testid="menu-item" data-do="${esc(it.fault.do)}"${it.why ? ` disabled title="${esc(it.why)}"` : ''}>${esc(it.label)}${it.why ? ` <span class="hint">(${esc(it.why)})</span>` : ''}</button>`).join('')
      + (items.length ? '' : '<p class="hint">Nothing can be done to it here.</p>');
    this.el.hidden = false;
    const box = this.el.parentNode.getBoundingClientRect();
    const w = this.el.offsetWidth, h = this.el.offsetHeight;
    const left = Math.max(4, Math.min(where.x, box.width - w - 4));
    const top = Math.max(4, where.y + h > box.height && where.y > h ? where.y - h : where.y);
    this.el.style.left = left + 'px';
    this.el.style.top = top + 'px';
    if (opener) opener.setAttribute('aria-expanded', 'true');
    this.el.querySelector('button:not([disabled])')?.focus({ preventScroll: true });
  }

  close(refocus) {
    if (this.el.hidden) return;
    this.el.hidden = true;
    // A lane's name is drawn anew with each frame of a live run: focus
    // goes back to the one drawn now.
    if (this.opener && !this.opener.isConnected && this.opener.dataset.lane) {
      this.opener = document.querySelector(`.lane-name[data-lane="${CSS.escape(this.opener.dataset.lane)}"]`);
    }
    if (this.opener) {
      this.opener.setAttribute('aria-expanded', 'false');
      if (refocus) this.opener.focus({ preventScroll: true });
    }
  }
}
