// The lock service and storage panels: the server's folded state (a State,
// web/state.go) in words, at the playhead.

import { esc, formatMS, num } from './format.js';

/** observed is what the live Raft node reports (term, commit index): read
 * from the real group, not part of the deterministic timeline. */
function observed(n) {
  const bits = [n.term !== undefined ? `term ${n.term}` : '', n.commit_index !== undefined ? `commit ${n.commit_index}` : ''].filter(Boolean);
  return bits.length ? ` <span class="obs" title="observed from the live Raft node">${bits.join(' · ')}</span>` : '';
}

/** renderPanels shows state s in el.nodesView, el.lockRow and el.storageView. */
export function renderPanels(el, s) {
  el.nodesView.innerHTML = s.nodes.length ? s.nodes.map(n =>
    `<li class="node ${n.role}"><span class="role-icon" aria-hidden="true">${{ leader: '★', follower: '●', down: '✕', server: '■', replica: '○', 'cut off': '⌁' }[n.role] || '●'}</span>${esc(n.name)}: ${esc(n.role)}${observed(n)}</li>`).join('')
    : '<li class="muted">no lock service in this scenario</li>';
  const L = s.lock;
  el.lockRow.closest('table').hidden = !s.nodes.length;
  el.lockRow.innerHTML = `<td>${esc(L.name || '-')}</td><td>${L.holder ? esc(L.holder) : '<em>free</em>'}</td><td>${L.token || '-'}</td><td>${L.holder ? formatMS(L.lease_until) : '-'}</td>`;
  const st = s.storage;
  const outcome = { write_accepted: 'write accepted', write_refused: 'write refused', claim_won: 'claim won', claim_lost: 'claim lost' }[st.outcome] || '';
  el.storageView.innerHTML = `<dt>Row</dt><dd><code>${esc(st.key)}</code></dd>
<dt>Value</dt><dd data-testid="storage-value">${num(st.value)}</dd>
<dt>Fence</dt><dd>${st.fence}</dd>${st.owner ? `<dt>Owner</dt><dd>${esc(st.owner)}</dd>` : ''}
<dt>Last SQL</dt><dd><code class="sql">${st.sql ? esc(st.sql) : '-'}</code></dd>
<dt>Rows changed</dt><dd>${st.rows ?? '-'}${outcome ? ` <span class="outcome ${st.outcome}">(${esc(st.client)}: ${outcome})</span>` : ''}</dd>`;
}
