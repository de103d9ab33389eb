// The same fold as web/state.go: what the lock service and the storage look
// like after a prefix of the events. TestE2EStateFoldMatchesGo runs both on
// every preset's events and compares them after each event.

const NODE = /^node-[0-9]+$/;

/** isNode reports whether an actor names a lock server. */
export const isNode = a => NODE.test(a);

function usesLock(sc) {
  return (sc.clients || []).some(c => (c.steps || []).some(s => ['acquire', 'check', 'release'].includes(s.do)));
}

/** newState is the state before the first event of a normalised scenario. */
export function newState(sc) {
  const lock = sc.lock || {}, storage = sc.storage || {};
  const s = { t: 0, backend: lock.backend || '', nodes: [], lock: { name: lock.name || storage.key || '' }, storage: { key: storage.key || '', value: storage.initial || 0, fence: 0 } };
  if (usesLock(sc)) {
    for (let i = 1; i <= (lock.nodes || 0); i++) s.nodes.push({ name: 'node-' + i, role: followerRole(s) });
  }
  return s;
}

/** followerRole is the role of a node that is up but does not lead. */
function followerRole(s) {
  return { raft: 'follower', 'async-replica': 'replica' }[s.backend] || 'server';
}

function node(s, name) {
  let n = s.nodes.find(n => n.name === name);
  if (!n) { n = { name, role: 'server' }; s.nodes.push(n); }
  return n;
}

/** apply folds one event into the state (in place). */
export function apply(s, e) {
  s.t = e.t;
  if (isNode(e.actor)) node(s, e.actor);
  const L = s.lock;
  switch (e.kind) {
    case 'leader':
      if (!isNode(e.actor)) break; // Redlock's servers have no leader
      for (const n of s.nodes) if (n.role === 'leader') n.role = followerRole(s);
      node(s, e.actor).role = 'leader';
      break;
    case 'node_crashed':
      node(s, e.actor).role = 'down';
      break;
    case 'partitioned':
      // A partition's side may hold clients too; they are not servers.
      if (isNode(e.actor)) node(s, e.actor).role = 'cut off';
      break;
    case 'node_restarted': case 'partition_healed':
      if (isNode(e.actor)) node(s, e.actor).role = followerRole(s);
      break;
    case 'rejoined':
      node(s, e.actor).role = 'replica';
      break;
    case 'grant_forgotten':
      if (L.holder === e.holder && L.token === e.token) s.lock = { name: L.name };
      break;
    case 'read': case 'read_refused':
      // With fencing a holder's read stores its token as the fence.
      if (e.sql) {
        const st = s.storage;
        if (e.kind === 'read') st.fence = e.token ?? 0;
        Object.assign(st, { sql: e.sql, rows: e.rows, client: e.actor, outcome: e.kind });
      }
      break;
    case 'granted':
      Object.assign(L, { holder: e.actor, token: e.token, lease_until: e.lease_until, node: e.node });
      break;
    case 'renewed':
      if (L.holder === e.actor && L.token === e.token) Object.assign(L, { lease_until: e.lease_until, node: e.node });
      break;
    case 'released':
      if (L.holder === e.actor && L.token === e.token) s.lock = { name: L.name };
      break;
    case 'lease_expired':
      if (L.holder === e.holder && L.token === e.token) s.lock = { name: L.name };
      break;
    case 'write_accepted': case 'write_refused': case 'claim_won': case 'claim_lost': {
      const st = s.storage;
      if (e.kind === 'write_accepted') { st.value = e.value ?? 0; st.fence = e.fence ?? 0; }
      if (e.kind === 'claim_won') st.owner = e.client;
      Object.assign(st, { sql: e.sql, rows: e.rows, client: e.client, outcome: e.kind });
      break;
    }
  }
  return s;
}

/** stateAt folds the events up to and including time t. */
export function stateAt(sc, events, t) {
  const s = newState(sc);
  for (const e of events) { if (e.t > t) break; apply(s, e); }
  return s;
}
