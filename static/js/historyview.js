// The lock's history, checked for linearizability: every operation the
// lock service answered, as a bar from its call to its return on one lane
// per client, with what it asked and what it was told, and the checker's
// verdict. The server re-runs the scenario (the same scenario gives the
// same history) and checks it with porcupine; where it is not
// linearizable, the server names the two operations that conflict, and
// its history page draws them on a time axis.

import './tools.js';
import { esc } from './format.js';
import { encodeShare } from './share.js';

/** showHistory fetches and draws the history of scenario sc into out. */
export async function showHistory(view, out, sc) {
  view.hidden = false;
  out.innerHTML = '<p class="status">Checking the history…</p>';
  view.scrollIntoView({ block: 'nearest' });
  const s = encodeShare(sc);
  let h;
  try {
    const r = await fetch('/api/history?s=' + s);
    h = await r.json();
    if (!r.ok) throw new Error(h.error || r.statusText);
  } catch (err) {
    out.innerHTML = `<p class="status error">Error: ${esc(err.message)}</p>`;
    return;
  }
  const ops = h.operations || [];
  const clients = [...new Set(ops.map(o => o.input.client))];
  const maxT = Math.max(1, ...ops.map(o => (Number.isFinite(o.return) && o.return < 1e15 ? o.return : o.call)));
  const W = Math.max(out.clientWidth, 320), LEFT = 76, ROW = 30;
  const x = t => LEFT + (t / (maxT + 1)) * (W - LEFT - 8);
  const svg = [];
  clients.forEach((c, i) => {
    const y = 8 + i * ROW;
    svg.push(`<text x="4" y="${y + 15}" class="lane-label client">${esc(c)}</text>`);
    for (const o of ops.filter(o => o.input.client === c)) {
      const pending = !Number.isFinite(o.return) || o.return >= 1e15;
      const x1 = x(o.call), x2 = pending ? W - 8 : Math.max(x(o.return), x1 + 6);
      const ok = o.output && o.output.ok;
      const what = `${o.input.op}${o.input.token ? ' ' + o.input.token : ''}${!pending && ok && o.output.token && o.input.op === 'acquire' ? ' → ' + o.output.token : ''}${!pending && !ok ? ' ✗' : ''}`;
      const told = pending ? 'answer lost: outcome unknown' : ok ? `ok${o.output.token ? ', token ' + o.output.token : ''}` : `refused${o.output.holder ? ': held by ' + o.output.holder : ''}`;
      svg.push(`<g class="op ${pending ? 'pending' : ok ? 'ok' : 'no'}" data-testid="history-op"><title>${esc(c)}: ${esc(what)} → ${esc(told)} (service clock ${o.output ? o.output.now : '?'} ms)</title>`
        + `<rect x="${x1}" y="${y + 2}" width="${x2 - x1}" height="18" rx="3"/>`
        + (x2 - x1 > what.length * 6.5 + 6 ? `<text x="${x1 + 4}" y="${y + 15}">${esc(what)}</text>` : '') + '</g>');
    }
  });
  const H = 12 + clients.length * ROW;
  out.innerHTML = `<p class="lin ${h.linearizable ? 'safe' : 'unsafe'}" data-testid="history-verdict"><strong>${h.linearizable ? '✓ Linearizable' : '✗ Not linearizable'}</strong>: ${h.linearizable
    ? 'every answer the lock service gave fits one order of the operations in which each sees the lock as the one before left it.'
    : 'no single order of the operations explains every answer the lock service gave: two clients were told things that cannot both be true of one lock.'}</p>
${h.conflict ? `<p data-testid="history-conflict">${esc(h.conflict.why)}</p>` : ''}
<p class="hint">${ops.length} operation(s) the lock service answered, on one lane per client, from call to return in the order the simulation ran them. A bar is green when the service said yes, orange when it refused, grey dashed when the answer was lost.</p>
<svg class="history-svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="The lock operations of each client">${svg.join('')}</svg>
<p><a href="/playground/history?s=${s}" target="_blank" rel="noopener" data-testid="history-link">Open the history page</a>${h.conflict ? ': the two operations that conflict, on a time axis' : ''}.</p>`;
}
