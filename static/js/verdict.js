// The verdict in words: a one-sentence story of the worst write, the
// engine's verdict, and the summary figures that matter for the run.

import { esc, formatMS, num } from './format.js';

/** headline tells the story of the worst write in one sentence. */
function headline(events, s) {
  const i = events.findIndex(e => e.stale);
  if (i >= 0) {
    const stale = events[i], earlier = events.slice(0, i);
    const before = earlier.filter(e => e.kind === 'write_accepted' && e.client !== stale.client).pop();
    const lost = Math.abs(s.expected_value - s.final_value);
    // The same token granted to another client: fencing cannot tell them apart.
    const twin = earlier.find(e => e.kind === 'granted' && e.actor !== stale.client && stale.token && e.token === stale.token);
    const why = twin ? `: ${twin.actor} held the same token, so fencing could not tell them apart` : '';
    if (!before) {
      return `${stale.client}'s write landed after a newer holder had begun (${stale.token ? 'token ' + stale.token : 'no token'})${why}.`;
    }
    return `${stale.client} overwrote ${before.client}'s write with a stale ${stale.token ? 'token (' + stale.token + ')' : 'lock (no token)'}${why}` + (lost ? `: ${num(lost)} lost.` : '.');
  }
  if (s.duplicate_side_effects) {
    return `${s.duplicate_side_effects === 1 ? 'A side effect' : s.duplicate_side_effects + ' side effects'} happened twice: an outside service such as an SMS provider cannot check fencing tokens.`;
  }
  const refused = events.filter(e => e.kind === 'write_refused');
  // A guarded transaction is refused by the lock service's node, not the storage.
  if (refused.length) return `${refused[0].actor === 'storage' ? 'The storage' : refused[0].actor} refused ${refused.map(e => `${e.client}'s write (${e.reason.replace(/, the highest.*$/, '')})`).join(' and ')}.`;
  return '';
}

/** facts lists the summary's numbers that matter for this kind of run. */
function facts(s) {
  const out = [];
  if (s.writes_accepted || s.writes_refused) {
    out.push(`final value <strong>${num(s.final_value)}</strong>, expected ${num(s.expected_value)}`);
    out.push(`writes accepted ${s.writes_accepted}, refused ${s.writes_refused}, stale accepted <strong>${s.stale_writes_accepted}</strong>`);
  }
  if (s.claims_won || s.claims_lost) out.push(`claims won ${s.claims_won}, changed 0 rows ${s.claims_lost}`);
  if (s.grants) out.push(`grants ${s.grants}` + (s.overlap_ms ? `; two holders believed at once for ${formatMS(s.overlap_ms)}` : ''));
  if (s.double_grants || s.duplicate_tokens) out.push(`double grants <strong>${s.double_grants}</strong>, duplicate tokens <strong>${s.duplicate_tokens}</strong>`);
  // cut_off_ms is the part of unavailable_ms that a partition, not the servers, caused.
  const down = (s.unavailable_ms || 0) - (s.cut_off_ms || 0);
  if (down > 0) out.push(`no lock server answered for ${formatMS(down)}`);
  if (s.cut_off_ms) out.push(`a partition cut every client off from the lock service for ${formatMS(s.cut_off_ms)}`);
  if (s.side_effects) out.push(`side effects ${s.side_effects}, duplicated <strong>${s.duplicate_side_effects}</strong>`);
  return out.map(f => `<li>${f}</li>`).join('');
}

// The heading's mark, by its kind: a tick only where the data came out
// right and the work got done.
const MARK = { safe: '✓', unsafe: '✗', lock_broken: '!', stopped: '■', unavailable: '–', incomplete: '–' };

/** verdictView is the verdict box of a finished run: its class and markup.
 * The server heads the run (run.heading: kind, title, detail). */
export function verdictView(run) {
  const s = run.summary, hd = run.heading || { kind: 'incomplete', title: 'No heading from the server' };
  const h = headline(run.events, s);
  return {
    // A heading that is neither safe nor unsafe is a warning, in amber.
    cls: hd.kind === 'safe' || hd.kind === 'unsafe' ? hd.kind : 'warn ' + hd.kind,
    html: `<p class="badge" data-testid="verdict-heading"><span aria-hidden="true">${MARK[hd.kind] || ''}</span> ${esc(hd.title)}${hd.detail ? `<span class="badge-detail">: ${esc(hd.detail)}</span>` : ''}</p>
${h ? `<p class="headline" data-testid="verdict-headline">${esc(h)}</p>` : ''}
<p data-testid="verdict-text">${esc(hd.kind === 'safe' || hd.kind === 'unsafe' ? run.verdict : hd.checks + '.')}</p>
<ul class="facts">${facts(s)}</ul>`,
  };
}
