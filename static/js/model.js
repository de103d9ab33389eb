// model turns a timeline (events) into what the SVG draws: lanes, lease
// bars and why they ended, beliefs, pauses, clock jumps and drift, node
// roles, each node's holds (a backend whose entry has them), marks, the
// spans where two clients believed they held the lock, and the violations
// (double grants, duplicate tokens, stale writes) where they happened. It
// is pure data, so the picture, the words and the tests agree.


const NODE = /^node-[0-9]+$/;

/** isNode reports whether an actor names a lock server. */
export const isNode = a => NODE.test(a);
import { formatMS, parseDuration } from './format.js';

const CLIENT_END = new Set(['lock_lost', 'gave_up', 'done', 'crashed', 'released']);
const ASKS = new Set(['acquire_refused', 'check_ok', 'check_failed', 'unavailable', 'renew_refused', 'release_refused',
  'renew_timeout', 'renew_stopped']);

// The catalog's backends: each one's token word and own kinds' marks.
let BK = [];
/** setBackends takes the catalog's backends. */
export const setBackends = b => { BK = b || []; };

/** signed writes a clock offset with its sign: "+9s", "-2s". */
export const signed = ms => (ms >= 0 ? '+' : '') + formatMS(ms);

/** granters reads which nodes granted an acquire of a majority, from the
 * event's nodes or its message ("granted by 3 of 5 servers (node-1, …)"). */
function granters(e) {
  if (Array.isArray(e.nodes)) return e.nodes;
  const m = /\(([^)]*)\)\s*$/.exec(e.message || '');
  return m ? m[1].split(/,\s*/).filter(isNode) : [];
}

/** buildModel reads the events of a run of scenario sc (normalised by the
 * server: lock defaults filled in) up to time now. states are the
 * server's fold of the run ([{after, state}], web/state_fold.go): the
 * node roles come from them, never from folding the events here. cast is
 * the events whose actors get a lane (all of events by default): a replay
 * of a known run passes the whole run, so that no lane appears, and
 * nothing below the drawing moves, while it plays. */
export function buildModel(sc, events, now, states = [], cast = events) {
  const lease = leaseMS(sc);
  const bk = BK.find(b => b.name === (sc.lock || {}).backend) || {}, holds = !!bk.holds;
  const own = Object.fromEntries((bk.marks || []).map(k => [k.kind, k]));
  const clientNames = (sc.clients || []).map(c => c.name);
  const initial = states.length ? states[0].state.nodes : [];
  const nodeNames = initial.map(n => n.name);
  for (const e of cast) {
    for (const a of [e.actor, e.node]) if (isNode(a) && !nodeNames.includes(a)) nodeNames.push(a);
  }
  // Actors that are neither clients, lock servers nor the storage (the SMS
  // provider, and whatever the engine adds) get a lane of their own. The
  // SMS provider has it before its first message when a client's steps
  // send one: a live run does not grow a lane midway.
  const otherNames = (sc.clients || []).some(c => (c.steps || []).some(s => s.do === 'send')) ? ['sms'] : [];
  for (const e of cast) {
    if (!isNode(e.actor) && !['storage', 'engine', bk.actor].includes(e.actor) && !clientNames.includes(e.actor) && !otherNames.includes(e.actor)) otherNames.push(e.actor);
  }
  const O = Object.fromEntries(otherNames.map(n => [n, []]));
  nodeNames.sort((a, b) => parseInt(a.slice(5), 10) - parseInt(b.slice(5), 10));
  const actor = () => ({ marks: [], jumps: [], drifts: [] });
  const C = Object.fromEntries(clientNames.map(n => [n, { ...actor(), leases: [], beliefs: [], pauses: [], cuts: [], lease: null, belief: null }]));
  const N = Object.fromEntries(nodeNames.map(n => [n, { ...actor(), roles: [], role: null, holds: [], open: {}, term: 0 }]));
  for (const n of initial) N[n.name].role = { role: n.role, from: 0, to: null };
  const storage = [], delays = [], writes = [], violations = [], sent = {};

  // The service's record in true time, for double grants: who was
  // granted until when, by the lease's length and not by any clock.
  const grants = {};
  const tokens = new Set();

  const closeLease = (c, t, how, early) => {
    if (!c.lease) return;
    c.lease.to = Math.min(c.lease.until, t);
    c.lease.how = how;
    if (early && c.lease.to < c.lease.until) c.lease.early = early;
    c.leases.push(c.lease);
    c.lease = null;
  };
  const closeBelief = (c, t) => {
    if (!c.belief) return;
    c.belief.to = t;
    c.beliefs.push(c.belief);
    c.belief = null;
  };
  const setRole = (name, role, t, e) => {
    const n = N[name];
    if (!n) return;
    if (n.role && t > n.role.from) { n.role.to = t; n.roles.push(n.role); }
    n.role = role ? { role, from: t, to: null } : null;
    if (n.role && role === 'leader') n.role.term = (e?.kind === 'leader' && e.actor === name && e.term) || n.term || undefined;
  };
  // A node's own record of who holds the lock on it.
  const closeHold = (name, client, t, how) => {
    const n = N[name];
    const h = n && n.open[client];
    if (!h) return;
    h.to = Math.min(h.until, t);
    h.how = how;
    n.holds.push(h);
    delete n.open[client];
  };
  // Why a grant ended before its lease said: the node's clock jumped, or
  // the service forgot it.
  const jumpBefore = (node, t) => {
    const n = N[node];
    if (!n) return null;
    const j = [...n.jumps].reverse().find(j => j.t <= t && j.by > 0);
    return j ? `${node}'s clock jumped ${signed(j.by)}` : null;
  };

  let k = 0, folded = states[0]?.state || { nodes: [] };
  for (const [i, e] of events.entries()) {
    while (k + 1 < states.length && states[k + 1].after <= i) folded = states[++k].state;
    if (e.kind === 'leader' && N[e.actor] && e.term) N[e.actor].term = e.term;
    for (const n of folded.nodes) {
      const cur = N[n.name] && N[n.name].role;
      if (N[n.name] && (!cur || cur.role !== n.role || (e.kind === 'leader' && e.actor === n.name && e.term && cur.term !== e.term))) setRole(n.name, n.role, e.t, e);
    }
    if (O[e.actor]) O[e.actor].push({ t: e.t, kind: e.kind, client: e.client, message: e.message, reason: e.reason });
    const c = C[e.actor];
    const who = C[e.actor] || N[e.actor];
    // A lease kept beside a grant that came back ends by its own events.
    const x = C[e.holder] || c, sw = x?.kept && x.kept.token === e.token && /^(grant_fo|lease_ex|rene|released)/.test(e.kind);
    if (sw) [x.lease, x.kept] = [x.kept, x.lease];
    switch (e.kind) {
      case 'granted': {
        if (!c) break;
        if (c.lease && c.lease.unheard && c.lease.token === e.token) {
          // The grant whose answer was lost, given back to its client.
          c.lease.unheard = false;
          c.lease.heard = e.t;
          c.lease.until = e.lease_until;
          c.lease.node = e.node;
        } else {
          closeLease(c, e.t, 'replaced');
          c.lease = { token: e.token, from: e.t, until: e.lease_until, node: e.node, renewals: [] };
        }
        if (!c.belief) c.belief = { from: e.t, token: e.token };
        c.belief.token = e.token;
        const servers = holds ? granters(e) : [];
        c.lease.servers = servers;
        c.servers = servers;
        for (const s of servers) {
          if (!N[s]) continue;
          closeHold(s, e.actor, e.t, 'replaced');
          N[s].open[e.actor] = { client: e.actor, from: e.t, until: e.t + lease };
          N[s].marks.push({ t: e.t, kind: 'grant', token: e.token, client: e.actor });
        }
        if (N[e.node]) N[e.node].marks.push({ t: e.t, kind: 'grant', token: e.token, client: e.actor });
        // Violations, where they happen.
        const other = Object.entries(grants).find(([who, until]) => who !== e.actor && until > e.t);
        const where = e.node || servers[0] || null;
        if (other) violations.push({ t: e.t, kind: 'double_grant', client: e.actor, other: other[0], node: where, token: e.token });
        if (e.token && tokens.has(e.token)) violations.push({ t: e.t, kind: 'duplicate_token', client: e.actor, node: where, token: e.token });
        if (e.token) tokens.add(e.token);
        grants[e.actor] = e.t + lease;
        break;
      }
      case 'renewed':
        if (c && c.lease && c.lease.token === e.token) { c.lease.until = e.lease_until; c.lease.renewals.push(e.t); }
        if (c && grants[e.actor] !== undefined) grants[e.actor] = e.t + lease;
        if (c && holds) for (const s of c.servers || []) if (N[s] && N[s].open[e.actor]) N[s].open[e.actor].until = e.t + lease;
        break;
      case 'grant_forgotten': {
        // The service lost the grant: its lease is over (ended: it had run out).
        const h = C[e.holder];
        if (h && h.lease && h.lease.token === e.token) closeLease(h, e.t, e.ended ? 'expired' : 'forgotten by the lock service', e.ended ? null : e.reason || 'the lock service forgot it');
        break;
      }
      case 'release_forgotten': {
        // The service lost a release: by its record the released lease
        // runs again, to its lease_until, until it expires or is replaced.
        const h = C[e.holder];
        if (!h || (h.lease && h.lease.token === e.token)) break;
        closeLease(h, e.t, 'replaced');
        const gave = [...h.leases].reverse().find(s => s.how === 'released' && s.token === e.token);
        h.lease = { token: e.token, from: e.t, until: e.lease_until, node: e.node, renewals: [], servers: h.servers || [],
          back: e.reason || 'the lock service forgot its release', released: gave ? gave.to : null };
        break;
      }
      case 'lease_expired': {
        const h = C[e.holder];
        if (h && h.lease && (h.lease.token === e.token || holds)) {
          const early = h.lease.until > e.t ? (jumpBefore(e.node || e.actor, e.t) || (holds && majorityJump(N, h.lease.servers, e.t)) || 'the lock service ended it early') : null;
          closeLease(h, e.t, 'expired', early);
        }
        if (N[e.actor]) N[e.actor].marks.push({ t: e.t, kind: 'expired', token: e.token, client: e.holder });
        break;
      }
      case 'lock_delay':
        if (N[e.actor]) N[e.actor].marks.push({ t: e.t, kind: 'lock_delay', token: e.token, client: e.holder, until: e.until });
        break;
      case 'clock_jump':
        if (who) who.jumps.push({ t: e.t, by: e.by || 0 });
        // A node whose clock jumps past a hold drops it.
        if (holds && N[e.actor]) {
          for (const h of Object.values(N[e.actor].open)) if (h.until - e.t <= (e.by || 0)) closeHold(e.actor, h.client, e.t, `its clock jumped ${signed(e.by || 0)}`);
        }
        break;
      case 'clock_drift': {
        if (!who) break;
        // A drift ends at its own until, when another takes over, or with
        // an event back at the true rate.
        const open = who.drifts.find(d => d.to === null || d.to > e.t);
        if (open) open.to = e.t;
        if (e.rate && e.rate !== 1) who.drifts.push({ from: e.t, to: e.until || null, rate: e.rate });
        break;
      }
      case 'partitioned':
        if (c) c.cuts.push({ from: e.t, to: e.until || null, with: e.message || '' });
        break;
      case 'partition_healed':
        if (c) for (const k of c.cuts) if (k.to === null || k.to > e.t) k.to = e.t;
        break;
      case 'pause_start':
        if (c) c.pauses.push({ from: e.t, to: e.until });
        break;
      case 'write_sent':
        if (c) { const m = { t: e.t, kind: 'sent', token: e.token }; c.marks.push(m); sent[e.actor] = m; }
        break;
      case 'message_delayed':
        if (c) {
          c.marks.push({ t: e.t, kind: 'delayed', message: e.message, until: e.until });
          delays.push({ client: e.actor, from: e.t, to: e.until, message: e.message });
        }
        break;
      case 'disk_lost':
        if (N[e.actor]) N[e.actor].marks.push({ t: e.t, kind: e.kind, message: e.message });
        break;
      case 'answer_lost': {
        if (N[e.actor]) N[e.actor].marks.push({ t: e.t, kind: 'answer_lost', client: e.client, token: e.token, message: e.message, reason: e.reason });
        // An acquire or renew applied and never answered (it says the
        // lease): the service holds the grant, or the lease the renewal
        // extended, from now, unknown to the client until it asks again.
        const h = C[e.client], l = h?.lease, same = l?.token === e.token;
        if (!h || !e.token || !e.lease_until) break;
        if (e.message === 'renew' && same) l.until = e.lease_until;
        if (e.message === 'acquire' && !same) {
          closeLease(h, e.t, 'replaced');
          h.lease = { token: e.token, from: e.t, until: e.lease_until, node: e.node || e.actor, renewals: [], unheard: true };
        }
        break;
      }
      case 'write_accepted': case 'write_refused': case 'claim_won': case 'claim_lost': {
        const stale = !!e.stale;
        storage.push({ t: e.t, kind: e.kind, client: e.client, token: e.token, value: e.value, fence: e.fence, reason: e.reason || '', stale });
        if (sent[e.client] && e.kind.startsWith('write')) { writes.push({ client: e.client, from: sent[e.client].t, to: e.t, kind: e.kind, stale }); delete sent[e.client]; }
        if (stale) violations.push({ t: e.t, kind: 'stale_write', client: e.client, token: e.token });
        break;
      }
      case 'released':
        if (c) delete grants[e.actor];
        if (c && holds) for (const s of c.servers || []) closeHold(s, e.actor, e.t, 'released');
        break;
      default: {
        // A backend's own kind (k): its mark, a lease it moves, a
        // forgotten grant it gives back.
        const k = own[e.kind], h = C[e.holder], on = k && (k.client ? c : N[e.actor]);
        if (k?.back && h && h.lease?.token !== e.token) {
          h.kept = h.lease;
          h.lease = { token: e.token, from: e.t, until: e.lease_until, node: e.node, renewals: [], back: e.actor + ' still held it', forgot: 1 };
        }
        if (k?.lease && h?.lease?.token === e.token) h.lease.until = e.lease_until;
        if (on && k.shape) on.marks.push({ t: e.t, kind: e.kind, d: k, e });
        else if (c && ASKS.has(e.kind)) c.marks.push({ t: e.t, kind: e.kind, token: e.token, message: e.message, reason: e.reason, node: e.node, stale: e.stale === true });
      }
    }
    // A belief ends when the client learns or stops; the lease itself
    // ends only when it is given back or runs out (a crashed holder's
    // lease outlives it).
    if (c && CLIENT_END.has(e.kind)) {
      closeBelief(c, e.t);
      if (e.kind === 'released') closeLease(c, e.t, 'released');
      else c.marks.push({ t: e.t, kind: e.kind, token: e.token, reason: e.reason });
    }
    if (sw) [x.lease, x.kept] = [x.kept, x.lease];
  }
  for (const c of Object.values(C)) {
    for (const l of [c.lease, c.kept]) if (l) { l.to = l.until; l.open = true; c.leases.push(l); }
    c.leases.sort((a, b) => a.from - b.from);
    if (c.belief) { c.belief.to = Math.max(now, c.belief.from); c.belief.open = true; c.beliefs.push(c.belief); }
  }
  for (const [name, n] of Object.entries(N)) {
    if (n.role) { n.role.to = Math.max(now, n.role.from); n.roles.push(n.role); }
    for (const client of Object.keys(n.open)) { n.open[client].open = true; closeHold(name, client, n.open[client].until, 'expired'); }
  }

  return {
    holds,
    word: bk.token ? bk.token + ' ' : '',
    clients: clientNames.map(name => ({ name, ...C[name] })),
    nodes: nodeNames.map(name => ({ name, ...N[name] })),
    others: otherNames.map(name => ({ name, marks: O[name] })),
    storage, delays, writes, violations,
    overlaps: overlaps(clientNames.map(n => C[n].beliefs)),
  };
}

function majorityJump(N, servers, t) {
  for (const s of servers || []) {
    const j = N[s] && [...N[s].jumps].reverse().find(j => j.t <= t && j.by > 0);
    if (j) return `${s}'s clock jumped ${signed(j.by)}, so it no longer counts toward a majority`;
  }
  return null;
}

/** leaseMS is the lease of a normalised scenario, in ms. */
function leaseMS(sc) {
  return parseDuration(sc.lock.lease);
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
