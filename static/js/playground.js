// The playground page: controls kept in sync with the scenario and its JSON,
// a live run over the websocket, the timeline, panels that follow the
// playhead, the verdict, compare and share.

import { clone, esc, formatMS, parseDuration, seconds } from './format.js';
import { newState, stateAt } from './state.js';
import { render } from './timeline.js';
import { FaultEditor } from './faults.js';
import { verdictView } from './verdict.js';
import { renderPanels } from './panels.js';
import { Session } from './session.js';

const $ = id => document.getElementById(id);
const data = JSON.parse($('playground-data').textContent);
const catalog = data.catalog;
const reduceMotion = matchMedia('(prefers-reduced-motion: reduce)');

let sc = clone(data.scenario);        // the scenario the controls show
let run = null;                       // the run on screen: {sc, events, texts, summary, state, live, paused, ...}
let pendingStart = false;

const el = {
  preset: $('preset'), watch: $('watch'), fencing: $('fencing'), backend: $('backend'), nodes: $('nodes'),
  lease: $('lease'), renew: $('renew'), renewEvery: $('renew-every'), latency: $('latency'),
  json: $('json'), jsonError: $('json-error'), speed: $('speed'), status: $('status'), verdict: $('verdict'),
  svg: $('timeline'), scrub: $('scrub'), scrubTime: $('scrub-time'), log: $('event-log').tBodies[0],
  nodesView: $('nodes-view'), lockRow: $('lock-row'), storageView: $('storage-view'), live: $('live-faults'),
  run: $('run'), pause: $('pause'), step: $('step'), resume: $('resume'), stop: $('stop'),
};

// ---- Scenario <-> controls <-> JSON ----

const backendOf = name => catalog.backends.find(b => b.name === name);

/** defaultNodes mirrors the engine's default node count for a backend. */
function nodeCount(s) {
  const b = backendOf(s.lock?.backend || 'raft');
  return s.lock?.nodes || (b ? (b.name === 'raft' ? 3 : b.nodes[b.nodes.length - 1]) : 1);
}

function nodeNames(s) {
  const uses = (s.clients || []).some(c => (c.steps || []).some(x => ['acquire', 'check', 'release'].includes(x.do)));
  if (!uses) return [];
  return Array.from({ length: nodeCount(s) }, (_, i) => 'node-' + (i + 1));
}

function showControls(focusSel) {
  sc.lock = sc.lock || {};
  el.fencing.checked = !!sc.fencing;
  const backend = sc.lock.backend || 'raft';
  el.backend.value = backend;
  const b = backendOf(backend);
  const n = nodeCount(sc);
  el.nodes.innerHTML = (b ? b.nodes : [n]).map(v => `<option${v === n ? ' selected' : ''}>${v}</option>`).join('');
  el.lease.value = seconds(parseDuration(sc.lock.lease || '10s'));
  const renew = (sc.clients || []).map(c => c.renew_every).find(Boolean);
  el.renew.value = renew ? 'every' : '';
  el.renewEvery.value = renew ? seconds(parseDuration(renew)) : '';
  el.renewEvery.hidden = !renew;
  el.latency.value = sc.lock.latency ? parseDuration(sc.lock.latency) : 0;
  faults.show(sc, nodeNames(sc), focusSel);
  showLiveFaults();
}

function showJSON() {
  if (document.activeElement !== el.json) el.json.value = JSON.stringify(sc, null, 2);
  el.jsonError.textContent = '';
}

/** changed is called after any control edits sc. */
function changed(focusSel) {
  showControls(focusSel);
  showJSON();
}

function controlEdited(e) {
  const t = e.target;
  sc.lock = sc.lock || {};
  switch (t) {
    case el.preset: {
      const p = data.presets.find(p => p.name === t.value);
      if (!p) return;
      if (run?.live) session.send({ type: 'stop' });
      sc = clone(p.scenario);
      el.watch.textContent = p.watch;
      history.replaceState(null, '', '/playground?preset=' + encodeURIComponent(p.name));
      clearRun();
      break;
    }
    case el.fencing: sc.fencing = t.checked; break;
    case el.backend: {
      sc.lock.backend = t.value;
      const b = backendOf(t.value);
      sc.lock.nodes = b.name === 'raft' ? 3 : b.nodes[b.nodes.length - 1];
      break;
    }
    case el.nodes: sc.lock.nodes = +t.value; break;
    case el.lease: {
      const v = parseFloat(t.value);
      if (v > 0) sc.lock.lease = formatMS(Math.round(v * 1000));
      break;
    }
    case el.renew: case el.renewEvery: {
      let every = parseFloat(el.renewEvery.value);
      if (el.renew.value === 'every' && !(every > 0)) every = 3;
      for (const c of sc.clients || []) {
        if (el.renew.value === 'every') c.renew_every = formatMS(Math.round(every * 1000));
        else delete c.renew_every;
      }
      break;
    }
    case el.latency: {
      const v = Math.round(parseFloat(t.value));
      if (v > 0) sc.lock.latency = formatMS(v); else delete sc.lock.latency;
      break;
    }
    case el.speed:
      if (run?.live) {
        run.anchor = { sim: simNow(), wall: performance.now() };
        run.speed = +el.speed.value;
        session.send({ type: 'speed', speed: run.speed });
      }
      return;
    default: return;
  }
  changed();
}

let jsonTimer = 0;
function jsonEdited() {
  clearTimeout(jsonTimer);
  jsonTimer = setTimeout(() => {
    let v;
    try { v = JSON.parse(el.json.value); } catch (err) {
      el.jsonError.textContent = 'Not valid JSON yet: ' + err.message;
      return;
    }
    if (!v || typeof v !== 'object' || Array.isArray(v)) {
      el.jsonError.textContent = 'The scenario must be a JSON object.';
      return;
    }
    sc = v;
    el.jsonError.textContent = '';
    showControls();
  }, 300);
}

const faults = new FaultEditor($('fault-list'), catalog, (list, focusSel) => {
  if (list.length) sc.faults = list; else delete sc.faults;
  changed(focusSel);
});

// ---- Live faults ----

function showLiveFaults() {
  const names = { client: (sc.clients || []).map(c => c.name), node: ['leader', ...nodeNames(sc)] };
  const buttons = [];
  for (const k of catalog.faults) {
    const who = k.targets === 'any' ? [...names.node.slice(1), ...names.client] : names[k.targets] || [];
    for (const target of who) {
      const label = k.live.replace('{target}', target);
      buttons.push(`<button type="button" data-do="${k.do}" data-target="${esc(target)}" data-testid="live-fault" disabled>${esc(label)}</button>`);
    }
  }
  el.live.innerHTML = buttons.length ? '<span class="live-label">Now:</span>' + buttons.join('') : '';
  setButtons();
}

el.live.addEventListener('click', e => {
  const b = e.target.closest('button[data-do]');
  if (!b || !run?.live) return;
  const k = catalog.faults.find(k => k.do === b.dataset.do);
  session.send({ type: 'inject', fault: { do: k.do, target: b.dataset.target, ...(k.defaults || {}) } });
  setStatus(`Injected: ${b.textContent}.`);
});

// ---- Running ----

const session = new Session({
  event(m) {
    if (!run?.live) return;
    run.events.push(m.event);
    run.texts.push(m.text);
    run.anchor = { sim: m.event.t, wall: performance.now() };
    appendLog(m.event, m.text);
    draw();
  },
  // The server has no free slot yet: the run waits its turn, and starts
  // by itself (its first state message) when the turn comes.
  queued(m) {
    if (!run?.live) return;
    run.queued = m.position;
    setStatus(`Waiting for a free slot on the server: place ${m.position} in line. The run starts by itself.`);
  },
  state(m) {
    if (!run?.live) return;
    if (run.queued) {
      run.queued = 0;
      run.anchor = { sim: 0, wall: performance.now() };
      setStatus(run.speed ? `Running at ${run.speed} simulated s per second…` : 'Running as fast as possible…');
    }
    run.state = m.state;
    showState(m.state);
  },
  summary(m) {
    if (!run) return;
    run.live = false;
    run.summary = m.summary;
    run.end = Math.max(m.summary.end_ms, ...run.events.map(e => e.t), 1000);
    run.verdict = m.verdict;
    run.stopped = m.stopped;
    showVerdict();
    setStatus(run.note ? run.note : m.stopped ? `Stopped at ${formatMS(run.end)}. Drag the playhead to see any moment.` : `Finished at ${formatMS(run.end)} of simulated time. Drag the playhead (or use the arrow keys on it) to see any moment.`);
    finishScrub();
    setButtons();
    if (pendingStart) { pendingStart = false; start(); }
  },
  error(m) {
    // A control that crossed the run's natural end on the wire: nothing to tell.
    if (m.code === 'no_run') return;
    if (m.code === 'too_long' && run) { run.note = m.message[0].toUpperCase() + m.message.slice(1) + '.'; return; }
    // A start the server refused leaves no run on screen; an error about a
    // live control (a fault, the speed) leaves the run going.
    const aboutLive = m.field === 'fault' || (m.field || '').startsWith('fault.') || m.field === 'speed';
    if (run?.live && !run.events.length && !aboutLive && m.code !== 'no_run') {
      run = null;
      draw();
      setButtons();
    }
    if ((m.code === 'internal' || m.code === 'shutdown') && run?.live) {
      run.live = false;
      run.end = Math.max(1000, ...run.events.map(e => e.t));
      setButtons();
    }
    if ((m.code === 'invalid' || m.code === 'bad_message') && m.field && !aboutLive && m.field !== 'type') el.jsonError.textContent = m.message;
    const field = m.field && !m.message.includes(m.field) ? ` (${m.field})` : '';
    setStatus((m.code === 'busy' ? 'Busy, try again in a minute: ' : 'Error: ') + m.message + field, true);
  },
  closed(e) {
    if (run?.live) {
      run.live = false;
      setStatus(e.code === 1009 ? 'The connection was closed: a message was too large.' : 'The connection to the server was lost; press Run to start again.', true);
      setButtons();
    }
  },
});

function clearRun() {
  run = null;
  el.verdict.innerHTML = '';
  el.verdict.className = 'verdict';
  el.log.innerHTML = '';
  el.scrub.disabled = true;
  $('compare-view').hidden = true;
  showState(newState(normalised(sc)));
  draw();
  setButtons();
}

/** normalised fills in what the timeline needs of the engine's defaults. */
function normalised(s) {
  const n = clone(s);
  n.lock = n.lock || {};
  n.lock.backend = n.lock.backend || 'raft';
  n.lock.nodes = nodeCount(n);
  n.storage = n.storage || {};
  n.storage.key = n.storage.key || 'account-42';
  n.storage.initial = n.storage.initial || 0;
  return n;
}

async function start() {
  if (run?.live) {
    pendingStart = true;
    session.send({ type: 'stop' });
    return;
  }
  const speed = +el.speed.value;
  run = { sc: normalised(sc), events: [], texts: [], summary: null, state: null, live: true, paused: false,
    speed, anchor: { sim: 0, wall: performance.now() }, shown: 0, domain: parseDuration(sc.until || '60s') || 60000 };
  el.log.innerHTML = '';
  el.verdict.innerHTML = '';
  el.verdict.className = 'verdict';
  el.scrub.disabled = true;
  setStatus(speed ? `Running at ${speed} simulated s per second…` : 'Running as fast as possible…');
  setButtons();
  draw();
  try { await session.open(); } catch (err) {
    run.live = false; setButtons(); setStatus(err.message, true); return;
  }
  session.send({ type: 'start', scenario: sc, speed });
  tick();
}

function control(type) {
  if (!run?.live) return;
  session.send({ type });
  if (type === 'pause' || type === 'step') { run.anchor = { sim: simNow(), wall: performance.now() }; run.paused = true; }
  if (type === 'resume') { run.paused = false; run.anchor.wall = performance.now(); }
  setStatus({ pause: 'Paused. Step runs to the next event; Resume continues.', step: 'Stepped to the next event.', resume: 'Running…', stop: 'Stopping…' }[type]);
  setButtons();
}

function setButtons() {
  const live = !!run?.live;
  el.pause.disabled = !live || run.paused;
  el.step.disabled = !live;
  el.resume.disabled = !live || !run.paused;
  el.stop.disabled = !live;
  el.run.textContent = live ? 'Restart' : 'Run';
  for (const b of el.live.querySelectorAll('button')) b.disabled = !live;
}

function setStatus(text, isError) {
  const badge = run?.live ? (run.paused ? 'PAUSED' : 'LIVE') : '';
  el.status.innerHTML = (badge ? `<span class="state-badge">${badge}</span>` : '') + esc(text);
  el.status.classList.toggle('error', !!isError);
}

// ---- Drawing ----

/** simNow estimates the simulated time a live run has reached. */
function simNow() {
  if (!run) return 0;
  const last = run.events.length ? run.events[run.events.length - 1].t : 0;
  if (!run.live) return run.end ?? last;
  if (run.paused || run.queued || !run.speed || reduceMotion.matches) return Math.max(last, run.paused ? run.anchor.sim : 0);
  // Between events simulated time runs at the speed; the playhead never
  // steps back when an event arrives a little late.
  const est = run.anchor.sim + (performance.now() - run.anchor.wall) * run.speed;
  run.shown = Math.min(Math.max(run.shown, last, est), run.domain);
  return run.shown;
}

let frame = 0;
function draw() {
  if (frame) return;
  frame = requestAnimationFrame(() => {
    frame = 0;
    if (!run) {
      render(el.svg, normalised(sc), [], { domain: parseDuration(sc.until || '60s') || 60000, now: 0, playhead: null });
      return;
    }
    const now = simNow();
    const domain = run.live ? Math.max(run.domain, now) : niceEnd(run.end);
    const playhead = run.live ? now : +el.scrub.value;
    // At the end of a finished run nothing lies in the future: labels
    // that reach past the last moment stay readable.
    const fade = run.live || playhead < run.end;
    render(el.svg, run.sc, run.events, { domain, now: run.live ? now : run.end, playhead, fade });
    el.scrubTime.textContent = formatMS(playhead);
  });
}

function niceEnd(t) { return Math.max(1000, Math.ceil((t * 1.04) / 1000) * 1000); }

function tick() {
  if (!run?.live) return;
  draw();
  if (!reduceMotion.matches) requestAnimationFrame(tick);
}

function appendLog(e, text) {
  const tr = document.createElement('tr');
  tr.dataset.t = e.t;
  tr.className = 'k-' + e.kind + (e.kind === 'write_accepted' && /^stale/.test(e.reason || '') ? ' stale' : '');
  tr.innerHTML = `<td><button type="button" class="t" data-t="${e.t}" title="Move the playhead here">${formatMS(e.t)}</button></td><td>${esc(e.actor)}</td><td>${esc(text)}</td>`;
  el.log.appendChild(tr);
}

function showState(s) { renderPanels(el, s); }

// ---- Verdict ----

function showVerdict() {
  const v = verdictView(run);
  el.verdict.className = 'verdict ' + v.cls;
  el.verdict.innerHTML = v.html;
}

// ---- Scrubbing ----

function finishScrub() {
  el.scrub.max = run.end;
  el.scrub.step = run.end > 20000 ? 100 : 50;
  el.scrub.value = run.end;
  el.scrub.disabled = false;
  el.scrub.setAttribute('aria-valuetext', formatMS(run.end));
  scrubTo(run.end);
}

function scrubTo(t) {
  if (!run || run.live) return;
  el.scrub.value = t;
  el.scrub.setAttribute('aria-valuetext', formatMS(t));
  showState(stateAt(run.sc, run.events, t));
  let current = null;
  for (const tr of el.log.rows) {
    const future = +tr.dataset.t > t;
    tr.classList.toggle('future', future);
    if (!future) current = tr;
  }
  // Keep the moment shown in view inside the log, without moving the page.
  if (current) {
    const wrap = el.log.closest('.log-wrap');
    wrap.scrollTop = current.offsetTop - wrap.clientHeight / 2;
  }
  draw();
}

el.scrub.addEventListener('input', () => scrubTo(+el.scrub.value));
el.log.addEventListener('click', e => {
  const b = e.target.closest('button[data-t]');
  if (b && run && !run.live) scrubTo(+b.dataset.t);
});
el.svg.addEventListener('pointerdown', e => {
  if (!run || run.live) return;
  const move = ev => {
    const r = el.svg.getBoundingClientRect();
    const vb = el.svg.viewBox.baseVal;
    const vx = ((ev.clientX - r.left) / r.width) * vb.width;
    const t = ((vx - 118) / (vb.width - 118 - 16)) * niceEnd(run.end);
    scrubTo(Math.round(Math.min(Math.max(t, 0), run.end) / 50) * 50);
  };
  move(e);
  el.svg.setPointerCapture(e.pointerId);
  el.svg.onpointermove = move;
  el.svg.onpointerup = () => { el.svg.onpointermove = null; };
});

// ---- Compare and share ----

async function postRun(s) {
  const r = await fetch('/api/run', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(s) });
  const body = await r.json();
  if (!r.ok) throw new Error(body.error || r.statusText);
  return body;
}

async function compare() {
  const view = $('compare-view');
  view.hidden = false;
  const on = view.querySelector('[data-testid="compare-on"]'), off = view.querySelector('[data-testid="compare-off"]');
  on.textContent = off.textContent = 'Running…';
  const svgs = view.querySelectorAll('svg');
  try {
    const base = normalised(sc);
    const [a, b] = await Promise.all([postRun({ ...sc, fencing: true }), postRun({ ...sc, fencing: false })]);
    const end = niceEnd(Math.max(a.summary.end_ms, b.summary.end_ms));
    [[a, on, svgs[0]], [b, off, svgs[1]]].forEach(([res, p, svg]) => {
      p.textContent = res.verdict;
      p.className = 'verdict ' + (res.summary.safe ? 'safe' : 'unsafe');
      render(svg, base, res.events, { domain: end, now: res.summary.end_ms, playhead: null, compact: true });
    });
    view.scrollIntoView({ behavior: reduceMotion.matches ? 'auto' : 'smooth', block: 'nearest' });
  } catch (err) {
    on.textContent = off.textContent = 'Error: ' + err.message;
  }
}

function shareURL() {
  const bytes = new TextEncoder().encode(JSON.stringify(sc));
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  const s = btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  return `${location.origin}/playground?s=${s}&speed=${el.speed.value}&run=1`;
}

function share() {
  const box = $('share-box'), link = $('share-link');
  box.hidden = false;
  link.value = shareURL();
  link.focus();
  link.select();
}

$('copy-share').addEventListener('click', async () => {
  const link = $('share-link');
  try { await navigator.clipboard.writeText(link.value); setStatus('Link copied.'); } catch { link.select(); setStatus('Select the link and copy it (Ctrl+C).'); }
});

// ---- Wiring ----

$('controls').addEventListener('change', controlEdited);
$('controls').addEventListener('submit', e => e.preventDefault());
el.json.addEventListener('input', jsonEdited);
el.json.addEventListener('blur', () => { if (!el.jsonError.textContent) showJSON(); });
$('add-fault').addEventListener('click', () => faults.add());
el.run.addEventListener('click', start);
el.pause.addEventListener('click', () => control('pause'));
el.step.addEventListener('click', () => control('step'));
el.resume.addEventListener('click', () => control('resume'));
el.stop.addEventListener('click', () => control('stop'));
el.speed.addEventListener('change', controlEdited);
$('compare').addEventListener('click', compare);
$('share').addEventListener('click', share);

document.addEventListener('keydown', e => {
  if (e.ctrlKey || e.metaKey || e.altKey || e.target.closest('input, select, textarea, [contenteditable]')) return;
  const act = { r: start, p: () => control(run?.paused ? 'resume' : 'pause'), s: () => control('step'), x: () => control('stop') }[e.key.toLowerCase()];
  if (act) { e.preventDefault(); act(); }
});

changed();
clearRun();
if (data.autorun) start();
