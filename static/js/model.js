// model turns a timeline (events) into what the SVG draws: lanes, lease
// bars, beliefs, pauses, marks and the spans where two clients believed
// they held the lock. It is pure data, so the picture and the words agree.

import { apply, isNode, newState } from './state.js';

const CLIENT_END = new Set(['lock_lost', 'gave_up', 'done', 'crashed', 'released']);

/** buildModel reads the events of a run of scenario sc up to time now. */
export function buildModel(sc, events, now) {
  const clientNames = (sc.clients || []).map(c => c.name);
  const initial = newState(sc).nodes;
  const nodeNames = initial.map(n => n.name);
  for (const e of events) {
    if (isNode(e.actor) && !nodeNames.includes(e.actor)) nodeNames.push(e.actor);
    if (e.node && isNode(e.node) && !nodeNames.includes(e.node)) nodeNames.push(e.node);
  }
  // Actors that are neither clients, lock servers nor the storage (the SMS
  // provider, and whatever the engine adds) get a lane of their own.
  const otherNames = [];
  for (const e of events) {
    if (!isNode(e.actor) && e.actor !== 'storage' && e.actor !== 'engine' && !clientNames.includes(e.actor) && !otherNames.includes(e.actor)) otherNames.push(e.actor);
  }
  const O = Object.fromEntries(otherNames.map(n => [n, []]));
  nodeNames.sort((a, b) => parseInt(a.slice(5), 10) - parseInt(b.slice(5), 10));
  const C = Object.fromEntries(clientNames.map(n => [n, { leases: [], beliefs: [], pauses: [], marks: [], lease: null, belief: null }]));
  const N = Object.fromEntries(nodeNames.map(n => [n, { roles: [], marks: [], role: null }]));
  for (const n of initial) N[n.name].role = { role: n.role, from: 0, to: null };
  const storage = [];
  const delays = [];
  const lastSent = {};

  const closeLease = (c, t, how) => {
    if (!c.lease) return;
    c.lease.to = Math.min(c.lease.until, t);
    c.lease.how = how;
    c.leases.push(c.lease);
    c.lease = null;
  };
  const closeBelief = (c, t) => {
    if (!c.belief) return;
    c.belief.to = t;
    c.beliefs.push(c.belief);
    c.belief = null;
  };
  const setRole = (name, role, t) => {
    const n = N[name];
    if (!n) return;
    if (n.role && t > n.role.from) { n.role.to = t; n.roles.push(n.role); }
    n.role = role ? { role, from: t, to: null } : null;
  };

  // Node roles come from the same fold as the panels, so lanes and panels
  // agree on who leads, who is down and who is cut off.
  const folded = newState(sc);
  for (const e of events) {
    apply(folded, e);
    for (const n of folded.nodes) {
      const cur = N[n.name] && N[n.name].role;
      if (N[n.name] && (!cur || cur.role !== n.role)) setRole(n.name, n.role, e.t);
    }
    if (O[e.actor]) O[e.actor].push({ t: e.t, kind: e.kind, client: e.client, message: e.message, reason: e.reason });
    const c = C[e.actor];
    switch (e.kind) {
      case 'granted':
        if (!c) break;
        closeLease(c, e.t, 'replaced');
        c.lease = { token: e.token, from: e.t, until: e.lease_until, node: e.node, renewals: [] };
        if (!c.belief) c.belief = { from: e.t, token: e.token };
        c.belief.token = e.token;
        if (N[e.node]) N[e.node].marks.push({ t: e.t, kind: 'grant', token: e.token, client: e.actor });
        break;
      case 'renewed':
        if (c && c.lease && c.lease.token === e.token) { c.lease.until = e.lease_until; c.lease.renewals.push(e.t); }
        break;
      case 'grant_forgotten': {
        // The service lost the grant: as far as it knows, the lease is over.
        const h = C[e.holder];
        if (h && h.lease && h.lease.token === e.token) closeLease(h, e.t, 'forgotten by the lock service');
        break;
      }
      case 'lease_expired': {
        const h = C[e.holder];
        if (h && h.lease && h.lease.token === e.token) closeLease(h, e.t, 'expired');
        if (N[e.actor]) N[e.actor].marks.push({ t: e.t, kind: 'expired', token: e.token, client: e.holder });
        break;
      }
      case 'pause_start':
        if (c) c.pauses.push({ from: e.t, to: e.until });
        break;
      case 'write_sent':
        if (c) { const m = { t: e.t, kind: 'sent', token: e.token }; c.marks.push(m); lastSent[e.actor] = m; }
        break;
      case 'message_delayed':
        if (c) {
          c.marks.push({ t: e.t, kind: 'delayed', message: e.message, until: e.until });
          delays.push({ client: e.actor, from: e.t, to: e.until, message: e.message });
        }
        break;
      case 'acquire_refused': case 'check_ok': case 'check_failed': case 'unavailable': case 'renew_refused': case 'release_refused':
        if (c) c.marks.push({ t: e.t, kind: e.kind, token: e.token });
        break;
      case 'write_accepted': case 'write_refused': case 'claim_won': case 'claim_lost':
        storage.push({ t: e.t, kind: e.kind, client: e.client, token: e.token, value: e.value, fence: e.fence, reason: e.reason || '',
          stale: e.kind === 'write_accepted' && /^stale/.test(e.reason || '') });
        break;
    }
    // A belief ends when the client learns or stops; the lease itself
    // ends only when it is given back or runs out (a crashed holder's
    // lease outlives it).
    if (c && CLIENT_END.has(e.kind)) {
      closeBelief(c, e.t);
      if (e.kind === 'released') closeLease(c, e.t, 'released');
      else c.marks.push({ t: e.t, kind: e.kind, token: e.token });
    }
  }
  for (const c of Object.values(C)) {
    if (c.lease) { c.lease.to = c.lease.until; c.lease.open = true; c.leases.push(c.lease); }
    if (c.belief) { c.belief.to = Math.max(now, c.belief.from); c.belief.open = true; c.beliefs.push(c.belief); }
  }
  for (const n of Object.values(N)) if (n.role) { n.role.to = Math.max(now, n.role.from); n.roles.push(n.role); }

  return {
    clients: clientNames.map(name => ({ name, ...C[name] })),
    nodes: nodeNames.map(name => ({ name, ...N[name] })),
    others: otherNames.map(name => ({ name, marks: O[name] })),
    storage, delays,
    overlaps: overlaps(clientNames.map(n => C[n].beliefs)),
  };
}

/** overlaps returns the spans covered by the beliefs of two or more clients. */
export function overlaps(owners) {
  const edges = [];
  owners.forEach(spans => spans.forEach(s => { if (s.to > s.from) edges.push([s.from, 1], [s.to, -1]); }));
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out = [];
  let depth = 0, start = 0;
  for (const [t, d] of edges) {
    if (depth < 2 && depth + d >= 2) start = t;
    if (depth >= 2 && depth + d < 2 && t > start) out.push({ from: start, to: t, count: depth });
    depth += d;
  }
  return out;
}
