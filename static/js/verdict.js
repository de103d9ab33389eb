// The verdict in words: a one-sentence story of the worst write, the
// engine's verdict, and the summary figures that matter for the run.

import { esc, formatMS, num } from './format.js';

/** headline tells the story of the worst write in one sentence. */
function headline(events, s) {
  const i = events.findIndex(e => e.kind === 'write_accepted' && (e.stale === true || /^stale/.test(e.reason || '')));
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
  if (s.grants) out.push(`grants ${s.grants}; two holders believed at once for ${formatMS(s.overlap_ms)}`);
  if (s.double_grants || s.duplicate_tokens) out.push(`double grants <strong>${s.double_grants}</strong>, duplicate tokens <strong>${s.duplicate_tokens}</strong>`);
  if (s.unavailable_ms) out.push(`no lock server answered for ${formatMS(s.unavailable_ms)}`);
  if (s.side_effects) out.push(`side effects ${s.side_effects}, duplicated <strong>${s.duplicate_side_effects}</strong>`);
  return out.map(f => `<li>${f}</li>`).join('');
}

/** verdictView is the verdict box of a finished run: its class and markup. */
export function verdictView(run) {
  const s = run.summary;
  if (run.stopped) {
    return { cls: 'stopped', html: `<p><strong>Stopped.</strong> The run was stopped before its end; the summary covers what happened so far.</p><p>${esc(run.verdict)}</p>` };
  }
  const h = headline(run.events, s);
  return {
    cls: s.safe ? 'safe' : 'unsafe',
    html: `<p class="badge"><span aria-hidden="true">${s.safe ? '✓' : '✗'}</span> ${s.safe ? 'Safe' : 'Unsafe'}</p>
${h ? `<p class="headline" data-testid="verdict-headline">${esc(h)}</p>` : ''}
<p data-testid="verdict-text">${esc(run.verdict)}</p>
<ul class="facts">${facts(s)}</ul>`,
  };
}
