// The playground page: settings and JSON in sync, a live run with its
// player, the timeline, the verdict, compare, find a failure and share.

import { clone, esc, formatMS, parseDuration } from './format.js';
import { render, setBackends } from './timeline.js';
import { renderPanels } from './panels.js';
import { Session } from './session.js';
import { Controls, usesLock } from './controls.js';
import { encodeShare } from './share.js';

const $ = id => document.getElementById(id);
const data = JSON.parse($('playground-data').textContent);
const catalog = data.catalog;
setBackends(catalog.backends);
const reduceMotion = matchMedia('(prefers-reduced-motion: reduce)');
const phone = matchMedia('(max-width: 700px)');

// A scenario's question and watch text are for people: kept beside the
// scenario, so that neither tells the outcome before a run.
let sc = clone(data.scenario); // the scenario the settings show
let notes = { question: $('question').textContent, watch: $('watch').textContent };
// A shared link's outcome is remembered by the link's scenario; from is
// the preset the scenario came from, which a share link names.
let notesKey = data.preset || 'shared:' + (new URLSearchParams(location.search).get('s') || '');
let from = data.preset || data.from || '';
let run = null;                // the run on screen (see start)
let pendingStart = false;
let highlight = [];            // violations to ring (a found failure)
let zoom = { factor: 1, center: 0 };
let geo = null;                // the timeline's last geometry

const ICON_PLAY = '<svg class="ico" viewBox="0 0 16 16" aria-hidden="true"><path d="M4 2v12l10-6z"/></svg>';
const ICON_PAUSE = '<svg class="ico" viewBox="0 0 16 16" aria-hidden="true"><path d="M4 2h3v12H4zM9 2h3v12H9z"/></svg>';

const el = {
  preset: $('preset'), question: $('question'), outcome: $('outcome'), outcomeSummary: $('outcome-summary'), watch: $('watch'),
  json: $('json'), jsonError: $('json-error'),
  speed: $('speed'), speedOut: $('speed-out'), startPaused: $('start-paused'), status: $('status'), verdict: $('verdict'),
  svg: $('timeline'), wrap: $('svg-wrap'), scrub: $('scrub'), scrubTime: $('scrub-time'), pan: $('pan'), panRow: $('pan-row'),
  log: $('event-log').tBodies[0], nodesView: $('nodes-view'), lockRow: $('lock-row'), storageView: $('storage-view'),
  actors: $('actors'), drawer: $('actors-drawer'), caption: $('now-caption'), notes: $('tl-notes'), box: $('watch-box'),
  run: $('run'), back: $('back'), play: $('play'), forward: $('forward'), stop: $('stop'),
};
/** SCRUB_STEP is the scrubber's step in ms: its value rounds to it. */
const SCRUB_STEP = +el.scrub.step || 1;

// ---- What to watch, and what happens ----

/** takeNotes removes a scenario's question and watch text and returns them. */
function takeNotes(s) {
  const n = { question: s.question || '', watch: s.watch || '' };
  delete s.question;
  delete s.watch;
  return n;
}

/** withNotes is the scenario with its question and watch text, for a share link. */
const withNotes = s => ({ ...s, ...(notes.question && { question: notes.question }), ...(notes.watch && { watch: notes.watch }) });

// Learners commit before they see: a scenario's outcome stays folded until
// a run of it has finished in this browser session (remembered per preset),
// or the learner opens it, told that it spoils the run.
const SEEN = 'playground.outcome-seen:';
function seen(key) {
  try { return sessionStorage.getItem(SEEN + key) === '1'; } catch { return false; }
}
function markSeen(key) {
  try { sessionStorage.setItem(SEEN + key, '1'); } catch { /* storage off: the page still shows it now */ }
}

function showNotes() {
  el.question.textContent = notes.question;
  $('question-row').hidden = !notes.question;
  el.watch.textContent = notes.watch;
  el.outcome.hidden = !notes.watch;
  $('watch-box').hidden = !notes.question && !notes.watch;
  el.outcome.open = seen(notesKey);
  labelOutcome();
}

/** labelOutcome says on the outcome's summary whether opening it spoils the run. */
function labelOutcome() {
  el.outcomeSummary.innerHTML = seen(notesKey) ? 'What happened, and what to change'
    : el.outcome.open ? 'What happens, and what to change'
      : 'Tell me what happens <span class="hint">(spoils the run: try it first)</span>';
}

/** revealOutcome opens the outcome once a run of the scenario has finished. */
function revealOutcome() {
  if (!notes.watch || seen(notesKey)) return;
  markSeen(notesKey);
  // On a phone the learner is looking at the timeline below: the outcome
  // opens above it without moving it (the verdict line links up to it).
  const bar = el.run.closest('.runbar'), was = bar.getBoundingClientRect().top;
  el.outcome.open = true;
  labelOutcome();
  if (phone.matches && scrollY > 0) scrollBy(0, bar.getBoundingClientRect().top - was);
}

// ---- Scenario <-> settings <-> JSON ----

const controls = new Controls($('controls'), catalog, focusSel => changed(focusSel));
const backendOf = s => controls.backendOf(s);

function nodeNames(s) {
  if (!usesLock(s)) return [];
  return Array.from({ length: controls.nodeCount(s) }, (_, i) => 'node-' + (i + 1));
}

function showSettings(focusSel) {
  controls.show(sc);
  faults?.show(sc, nodeNames(sc), null, backendOf(sc).leader);
  showActors();
  if (focusSel) document.querySelector(focusSel)?.focus({ preventScroll: true });
}

function showJSON() {
  if (document.activeElement !== el.json) el.json.value = JSON.stringify(sc, null, 2);
  el.jsonError.textContent = '';
}

/** changed is called after any control edits sc. */
function changed(focusSel) {
  showSettings(focusSel);
  showJSON();
  if (!run) draw();
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
    // A question or watch text typed here joins the notes, not the form.
    if ('question' in v || 'watch' in v) { notes = takeNotes(v); showNotes(); }
    sc = v;
    el.jsonError.textContent = '';
    showSettings();
    if (!run) draw();
  }, 300);
}

// The fault list's editor loads when the list nears the view.
let faults = null, faultsLoading = null;
function faultEditor() {
  faultsLoading ??= import('./faults.js').then(({ FaultEditor }) => {
    faults = new FaultEditor($('fault-list'), catalog, (list, focusSel) => {
      if (list.length) sc.faults = list; else delete sc.faults;
      changed(focusSel);
    });
    faults.show(sc, nodeNames(sc), null, backendOf(sc).leader);
    return faults;
  });
  return faultsLoading;
}
new IntersectionObserver((es, o) => {
  if (es.some(e => e.isIntersecting)) { o.disconnect(); faultEditor(); }
}, { rootMargin: '100% 0px' }).observe($('fault-list'));

let presets = null;   // /api/presets, fetched when first needed
let loading = null;   // a preset on its way: a Run waits for it

function pickPreset(name) {
  el.preset.dataset.loaded = '';
  if (!presets) presets = fetch('/api/presets').then(r => r.json());
  loading = presets.then(list => {
    const p = list.find(p => p.name === name);
    if (!p) return;
    if (run?.live) session.send({ type: 'stop' });
    sc = clone(p.scenario);
    notes = takeNotes(sc);
    notesKey = from = p.name;
    el.box.classList.remove('folded');
    $('changes')?.remove();
    showNotes();
    highlight = [];
    history.replaceState(null, '', '/playground?preset=' + encodeURIComponent(p.name));
    clearRun();
    changed();
    el.preset.dataset.loaded = p.name;
  }).catch(err => setStatus('Could not load the preset: ' + err.message, true)).finally(() => { loading = null; });
}

/** normalised fills in, before a run, what the timeline needs of the
 * engine's defaults (the catalog's); a run draws the scenario the server
 * normalised. */
function normalised(s) {
  const n = clone(s), d = catalog.defaults;
  n.lock = n.lock || {};
  n.lock.backend = n.lock.backend || d.backend;
  n.lock.nodes = controls.nodeCount(n);
  n.lock.lease = n.lock.lease || formatMS(d.lease_ms);
  n.storage = n.storage || {};
  n.storage.key = n.storage.key || d.key;
  n.storage.initial = n.storage.initial || 0;
  return n;
}

/** sketch is the state before a run, from the settings and the catalog:
 * a run's states are the server's fold. */
function sketch(s) {
  const n = normalised(s);
  return { nodes: nodeNames(s).map(name => ({ name, role: backendOf(s).role })), lock: { name: n.lock.name || n.storage.key },
    storage: { key: n.storage.key, value: n.storage.initial, fence: 0 } };
}

const untilOf = s => parseDuration(s.until || '') || catalog.defaults.until_ms;

// ---- Speed ----

const MAX_SLIDER = +el.speed.max;
/** speed reads the slider: simulated seconds per wall second, 0 for as fast as possible. */
function speed() {
  const v = +el.speed.value;
  if (v >= MAX_SLIDER - 0.001) return 0;
  const s = Math.pow(10, v);
  return +(s < 1 ? s.toFixed(2) : s < 10 ? s.toFixed(1) : s.toFixed(0));
}
function speedWords(s) { return s === 0 ? 'as fast as possible' : `${s} s per second`; }
function labelSpeed(s) {
  el.speedOut.textContent = speedWords(s);
  el.speed.setAttribute('aria-valuetext', speedWords(s));
}
function speedChanged() {
  const s = speed();
  labelSpeed(s);
  if (!run) return;
  run.anchor = { sim: head(), wall: performance.now() };
  run.speed = s;
  if (run.live) session.send({ type: 'speed', speed: s });
}
function nudgeSpeed(dir) {
  el.speed.value = Math.min(MAX_SLIDER, Math.max(+el.speed.min, +el.speed.value + dir * 0.25));
  speedChanged();
}

// ---- The run and its player ----

const session = new Session({
  event(m) {
    if (!run?.live) return;
    if (run.waiting) {
      run.waiting = 0;
      // Paused meanwhile: the playhead goes to the fault, which is where the run now stands
      // (back, if the page's estimate ran past the moment the fault was sent).
      if (run.serverPaused) run.cursor = m.event.t;
      setStatus(run.serverPaused ? `The fault struck at ${formatMS(m.event.t)}, and the run is paused: Space plays on.` : 'The fault struck.');
    }
    run.events.push(m.event);
    run.texts.push(m.text);
    run.anchor = run.follow ? { sim: m.event.t, wall: performance.now() } : run.anchor;
    if (run.stepWanted) { run.stepWanted = false; run.cursor = m.event.t; setStatus(atStatus()); }
    if (run.struck) struck(m.event);
    appendLog(m.event, m.text);
    draw();
  },
  message(m) { run?.live && run.msgs.push(m.record); },
  // The server has no free slot yet: the run waits its turn, and starts
  // by itself (its first state message) when the turn comes.
  queued(m) {
    if (!run?.live) return;
    const w = m.waiting;
    if (!w) run.queued = m.position;
    else if (w !== 'new speed') run.waiting = 1; // a fault or a stop holds the run still
    setStatus(`${w ? `The ${w} waits` : 'Waiting'} for a free slot on the server: place ${m.position} in line.${w ? '' : ' The run starts by itself.'}`);
  },
  state(m) {
    if (!run?.live) return;
    // The scenario as the engine normalised it: the run is drawn from it.
    if (m.scenario) run.sc = m.scenario;
    if (run.queued) {
      run.queued = 0;
      run.anchor = { sim: 0, wall: performance.now() };
      setStatus(run.serverPaused ? 'Started paused at 0s: press → for the first event, Space to play.'
        : run.speed ? `Running at ${run.speed} simulated s per second…` : 'Running as fast as possible…');
    }
    run.folds.push({ after: run.events.length - 1, state: m.state });
  },
  // The speed the run plays at: the one it had while a faster one waits
  // for a slot (queued, waiting "new speed"), then that one.
  speed(m) {
    if (!run?.live) return;
    run.anchor = { sim: head(), wall: performance.now() };
    run.speed = m.speed;
    setStatus(`The run goes ${m.speed ? `at ${m.speed} s per second` : 'as fast as possible'}.`);
  },
  // What the real Raft nodes report (term, commit index): kept beside the
  // events, shown beside the lanes and in the panel.
  observed(m) {
    if (!run?.live) return;
    run.obs.push({ after: run.events.length - 1, nodes: m.nodes });
    draw();
  },
  summary(m) {
    if (!run) return;
    run.live = false;
    run.summary = m.summary;
    run.end = Math.max(m.summary.end_ms, lastT());
    run.verdict = m.verdict;
    run.heading = m.heading;
    // The whole fold: states a slow connection skipped are filled in.
    run.folds = m.states;
    run.sc = m.scenario;
    run.stopped = m.stopped;
    if (run.follow) { run.cursor = run.end; run.follow = false; run.playing = false; }
    paintNow();
    const note = run.note || `${m.stopped ? 'The run was stopped' : 'Finished'} at ${formatMS(run.end)} of simulated time.`;
    setStatus(`${note} Step back (←), drag the playhead, or press Space to replay.`);
    if (run.cursor >= run.end) showVerdict();
    if (!m.stopped) revealOutcome();
    afterRun();
    setButtons();
    draw();
    if (pendingStart) { pendingStart = false; start(); }
  },
  error(m) {
    // A control that crossed the run's natural end on the wire: nothing to tell.
    if (m.code === 'no_run') return;
    if (m.code === 'too_long' && run) { run.note = m.message[0].toUpperCase() + m.message.slice(1) + '.'; return; }
    // A start the server refused leaves no run on screen; an error about a
    // live control (a fault, the speed) leaves the run going.
    const aboutLive = m.field === 'fault' || (m.field || '').startsWith('fault.') || m.field === 'speed';
    if (run?.live && !run.events.length && !aboutLive) {
      run = null;
      draw();
      setButtons();
    }
    if ((m.stopped || m.code === 'internal' || m.code === 'shutdown') && run?.live) {
      run.live = false;
      run.end = Math.max(1000, lastT());
      setButtons();
    }
    if ((m.code === 'invalid' || m.code === 'bad_message') && m.field && !aboutLive && m.field !== 'type') el.jsonError.textContent = m.message;
    // A speed refused: the slider goes back to the speed the run plays at.
    if (m.field === 'speed' && run?.live) {
      el.speed.value = run.speed ? Math.log10(run.speed) : MAX_SLIDER;
      labelSpeed(run.speed);
    }
    const field = m.field && !m.message.includes(m.field) ? ` (${m.field})` : '';
    setStatus((m.code === 'busy' ? 'Busy, try again in a minute: ' : 'Error: ') + m.message + field, true);
  },
  closed(e) {
    if (run?.live) {
      run.live = false;
      run.end = Math.max(1000, lastT());
      setStatus(e.code === 1009 ? `The connection was closed: ${e.reason || 'a message was too large'}.` : 'The connection to the server was lost; press Run to start again.', true);
      setButtons();
    }
  },
});

function lastT() { return run && run.events.length ? run.events[run.events.length - 1].t : 0; }

function clearRun() {
  run = null;
  el.verdict.innerHTML = '';
  el.verdict.className = 'verdict';
  el.log.innerHTML = '';
  el.scrub.disabled = true;
  $('compare-view').hidden = true;
  $('history-view').hidden = true;
  zoom = { factor: 1, center: 0 };
  showState(sketch(sc));
  draw();
  setButtons();
}

async function start() {
  if (loading) await loading;
  if (run?.live) {
    pendingStart = true;
    session.send({ type: 'stop' });
    return;
  }
  const s = speed(), paused = el.startPaused.checked;
  const norm = normalised(sc);
  run = { sc: norm, sent: clone(sc), events: [], msgs: [], texts: [], folds: [{ after: -1, state: sketch(sc) }], obs: [], summary: null, live: true, speed: s,
    anchor: { sim: 0, wall: performance.now() }, shown: 0, domain: untilOf(sc),
    cursor: 0, reach: 0, follow: !paused, playing: !paused, serverPaused: paused };
  el.log.innerHTML = '';
  el.verdict.innerHTML = '';
  el.verdict.className = 'verdict';
  $('history-view').hidden = true;
  el.box.classList.add('folded');
  // What to watch fills a phone's first screen; once Run is pressed, the
  // run controls and the timeline take it, as on any screen where the
  // timeline would end below the window.
  const bar = el.run.closest('.runbar');
  if ((phone.matches || el.svg.getBoundingClientRect().bottom > innerHeight) && bar.getBoundingClientRect().top > 8) bar.scrollIntoView({ block: 'start' });
  setStatus(paused ? 'Started paused at 0s: press → for the first event, Space to play.' : s ? `Running at ${s} simulated s per second…` : 'Running as fast as possible…');
  setButtons();
  draw();
  try { await session.open(); } catch (err) {
    run.live = false; setButtons(); setStatus(err.message, true); return;
  }
  // The speed as it is now: one changed while the socket opened went nowhere.
  session.send({ type: 'start', scenario: sc, speed: run.speed, messages: true, ...(paused ? { paused: true } : {}) });
  tick();
}

/** head is the playhead: the live edge while following, else the cursor. */
function head() {
  if (!run) return 0;
  if (run.follow) return liveNow();
  if (run.playing) {
    const t = run.anchor.sim + (performance.now() - run.anchor.wall) * (run.speed || Infinity);
    return Math.min(t, run.live ? lastT() : run.end);
  }
  return run.cursor;
}

/** liveNow estimates the simulated time a live run has reached. */
function liveNow() {
  const last = lastT();
  if (!run.live) return run.end ?? last;
  if (!run.speed || run.queued || reduceMotion.matches) return last;
  if (run.waiting) return run.shown;
  // Between events simulated time runs at the speed; the playhead never
  // steps back when an event arrives a little late.
  const est = run.anchor.sim + (performance.now() - run.anchor.wall) * run.speed;
  run.shown = Math.min(Math.max(run.shown, last, est), Math.max(run.domain, last));
  return run.shown;
}

/** freeze stops the playhead where it is and pauses a live run. */
function freeze() {
  if (!run) return;
  run.cursor = head();
  run.follow = false;
  run.playing = false;
  if (run.live && !run.serverPaused) { session.send({ type: 'pause' }); run.serverPaused = true; }
}

function togglePlay() {
  if (!run) { start(); return; }
  if (run.playing || run.follow) {
    freeze();
    setStatus(`Paused at ${formatMS(run.cursor)}. ← → step, Space plays on${run.live ? '' : ' (a replay)'}.`);
  } else play();
  setButtons();
  draw();
}

/** play moves the playhead on from where it stands: a replay of what is
 * recorded, then (for a live run) the live run itself. */
function play() {
  if (!run.live && run.cursor >= run.end) run.cursor = 0;
  run.anchor = { sim: run.cursor, wall: performance.now() };
  if (run.live && run.cursor >= lastT()) {
    run.follow = true;
    run.playing = true;
    run.shown = run.cursor;
    session.send({ type: 'resume' });
    run.serverPaused = false;
    setStatus('Running…');
  } else {
    run.playing = true;
    run.follow = false;
    setStatus(`Replaying from ${formatMS(run.cursor)}…`);
  }
  if (run.cursor < (run.end ?? Infinity)) el.verdict.innerHTML = '';
  tick();
}

function eventTimes() { return [...new Set(run.events.map(e => e.t))]; }

function stepForward() {
  if (!run) return;
  freeze();
  const next = eventTimes().find(t => t > run.cursor);
  if (next === undefined && run.live) {
    // The playhead moves when the event comes (see the session's event).
    run.stepWanted = true;
    session.send({ type: 'step' });
    setStatus('Asked the run for its next event…');
    setButtons();
    paintNow();
    return;
  }
  run.cursor = next ?? run.end;
  moved();
}

function stepBack() {
  if (!run) return;
  freeze();
  const prev = eventTimes().filter(t => t < run.cursor).pop();
  run.cursor = prev ?? 0;
  moved();
}

/** seek moves the playhead to t (pausing whatever plays). */
function seek(t) {
  if (!run) return;
  freeze();
  // A live run's slider reaches as far as its playhead has been shown
  // (past the last event, where the run had got to): a drag there stays.
  const max = run.live ? Math.max(lastT(), run.reach) : run.end;
  run.cursor = Math.min(Math.max(Math.round(t), 0), max);
  moved();
}

/** atStatus says where the stopped playhead stands and what Space does there. */
function atStatus() {
  if (!run.live) return `At ${formatMS(run.cursor)}. Space replays from here.`;
  return `At ${formatMS(run.cursor)} (the live run is paused). ${run.cursor >= lastT() ? 'Space plays on, → steps to the next event.' : 'Space replays from here, then plays on.'}`;
}

function moved() {
  setStatus(atStatus());
  if (!run.live && run.cursor >= run.end) showVerdict(); else if (!run.live) el.verdict.innerHTML = '';
  setButtons();
  paintNow();
}

/** paintNow redraws at once (a key or a click moved the playhead: the
 * slider, the panels and the log must agree before the next key). */
function paintNow() {
  if (frame) { cancelAnimationFrame(frame); frame = 0; }
  paint();
}

function stopRun() { if (run?.live) { session.send({ type: 'stop' }); setStatus('Stopping…'); } }

function setButtons() {
  const has = !!run;
  const live = !!run?.live;
  const moving = has && (run.playing || run.follow);
  el.back.disabled = !has;
  el.forward.disabled = !has;
  el.play.disabled = false;
  el.play.innerHTML = moving ? ICON_PAUSE : ICON_PLAY;
  el.play.setAttribute('aria-label', moving ? 'Pause' : (has ? 'Play from the playhead' : 'Run'));
  el.stop.disabled = !live;
  el.run.textContent = live ? 'Restart' : (has ? 'Run again' : 'Run');
  el.scrub.disabled = !has;
  for (const b of el.actors.querySelectorAll('button')) b.dataset.live = live ? '1' : '';
}

function setStatus(text, isError) {
  const badge = run?.live ? (run.follow || run.playing ? 'LIVE' : 'PAUSED') : (run?.playing ? 'REPLAY' : '');
  el.status.innerHTML = (badge ? `<span class="state-badge">${badge}</span>` : '') + esc(text);
  el.status.classList.toggle('error', !!isError);
}

// ---- Drawing ----

let frame = 0;
function draw() {
  if (frame) return;
  frame = requestAnimationFrame(() => { frame = 0; paint(); });
}

// niceEnd ends the axis just after t: on a whole second, or on 200 ms
// for a run over in an instant (five claims at 0 s need no 2 s axis).
function niceEnd(t) { const u = t < 1900 ? 200 : 1000; return Math.max(u, Math.ceil((t * 1.04) / u) * u); }

function viewOf(domain, h) {
  const w = domain / zoom.factor;
  if (zoom.factor <= 1) return { from: 0, to: domain };
  if (run && (run.follow || run.playing)) zoom.center = h;
  const from = Math.min(Math.max(zoom.center - w / 2, 0), domain - w);
  return { from, to: from + w };
}

function paint() {
  // The projector draws it smaller and stretches it: larger words.
  const width = el.wrap.clientWidth / (document.body.classList.contains('projector') ? 1.2 : 1);
  if (!run) {
    const domain = untilOf(sc);
    geo = render(el.svg, normalised(sc), [], { states: [{ after: -1, state: sketch(sc) }], domain, now: 0, playhead: null, view: viewOf(domain, 0), width, interactive: true });
    showZoom(domain);
    arrows();
    return;
  }
  const h = head();
  if (run.playing && !run.follow) {
    if (run.live && h >= lastT()) { run.cursor = h; play(); }
    else if (!run.live && h >= run.end) { run.cursor = run.end; run.playing = false; showVerdict(); setStatus(`Replayed to ${formatMS(run.end)}.`); setButtons(); }
  }
  const domain = run.live ? Math.max(run.domain, h, lastT()) : niceEnd(run.end);
  const fade = h < (run.live ? lastT() : run.end) || run.live;
  const observed = observedAt(h);
  geo = render(el.svg, run.sc, run.events, { states: run.folds, domain, now: run.live ? Math.max(h, lastT()) : run.end, playhead: h, fade, view: viewOf(domain, h), width, interactive: true, highlight, observed });
  // A live run's slider reaches, to a whole step, as far as the playhead
  // has been (past the last event), also while a drag goes back.
  if (run.live) run.reach = Math.max(run.reach, h);
  el.scrub.max = run.live ? Math.max(lastT(), Math.ceil(run.reach / SCRUB_STEP) * SCRUB_STEP, 1) : run.end;
  el.scrub.value = h;
  el.scrub.setAttribute('aria-valuetext', formatMS(h));
  el.scrubTime.textContent = formatMS(h);
  showZoom(domain);
  showAt(h);
  showUnplaced();
  arrows(h);
}

let msgView, msgPref; // messages.js once shown; the toggle, kept
try { msgPref = localStorage.msgs; } catch { /* for this page */ }
/** arrows draws the messages as toggled, or if few enough for the width. */
function arrows(h) {
  const b = $('msgs'), list = run?.msgs || [], on = (msgPref ?? (list.length * 7 <= geo.width ? 'on' : '')) == 'on';
  b.hidden = !list.length;
  b.setAttribute('aria-pressed', on);
  if (on && list.length) (msgView ??= import('./messages.js')).then(m => m.draw(el.svg, geo, list, h));
}

/** showUnplaced lists under the timeline the labels it had no room for. */
function showUnplaced() {
  const html = geo.unplaced.map(u => `<li><b>${formatMS(Math.round(u.t))}</b> ${esc(u.text)}</li>`).join('');
  if (el.notes.innerHTML !== html) el.notes.innerHTML = html;
}

let shownAt = -1, shownCount = -1;
/** showAt makes the panels and the log agree with the playhead. */
function showAt(t) {
  if (t === shownAt && run.events.length === shownCount) return;
  shownAt = t; shownCount = run.events.length;
  const s = stateAt(t), obs = observedAt(t);
  if (s) {
    if (obs) for (const n of s.nodes) if (obs[n.name]) Object.assign(n, obs[n.name]);
    showState(s);
  }
  let current = null;
  for (const tr of el.log.rows) {
    const future = +tr.dataset.t > t;
    tr.classList.toggle('future', future);
    if (!future) current = tr;
  }
  // The caption under the timeline: the playhead's event in the log's words.
  el.caption.textContent = current ? [...current.cells].map(c => c.textContent).join(' · ') : '';
  // Keep the moment shown in view inside the log, without moving the page.
  if (current && !(run.follow && run.live)) {
    const wrap = el.log.closest('.log-wrap');
    wrap.scrollTop = current.offsetTop - wrap.clientHeight / 2;
  }
}

/** latest is the last of a run's records (states, or what the Raft
 * nodes reported) made at or before time t. */
function latest(list, t) {
  let rec = null;
  for (const r of list) { if (r.after >= 0 && run.events[r.after].t > t) break; rec = r; }
  return rec;
}

/** stateAt is the server's fold of the run at time t (who leads, who
 * holds the lock, what the storage holds), a copy the panels may add to. */
const stateAt = t => clone(latest(run.folds, t)?.state ?? null);

/** observedAt is what the server last said about its Raft nodes at or
 * before time t (term, commit index): observed, not part of the
 * deterministic timeline. */
function observedAt(t) {
  const rec = run && latest(run.obs, t), out = {};
  for (const n of rec?.nodes || []) {
    const o = {};
    for (const k of ['term', 'commit_index', 'last_log_index']) if (n[k] !== undefined) o[k] = n[k];
    if (Object.keys(o).length) out[n.name] = o;
  }
  return Object.keys(out).length ? out : null;
}

function tick() {
  if (!run || !(run.playing || run.follow)) return;
  draw();
  if (!reduceMotion.matches || (run.playing && !run.follow)) requestAnimationFrame(tick);
}

function appendLog(e, text) {
  const tr = document.createElement('tr');
  tr.dataset.t = e.t;
  tr.className = 'k-' + e.kind + (e.stale ? ' stale' : '');
  tr.innerHTML = `<td><button type="button" class="t" data-t="${e.t}" title="Move the playhead here">${formatMS(e.t)}</button></td><td>${esc(e.actor)}</td><td>${esc(text)}</td>`;
  el.log.appendChild(tr);
}

function showState(s) { renderPanels(el, s); }

// ---- Zoom and pan ----

function showZoom(domain) {
  el.panRow.hidden = zoom.factor <= 1;
  if (zoom.factor > 1 && geo) {
    el.pan.max = Math.round(domain);
    el.pan.value = Math.round((geo.view.from + geo.view.to) / 2);
    el.pan.setAttribute('aria-valuetext', `${formatMS(geo.view.from)} to ${formatMS(geo.view.to)}`);
  }
  $('zoom-out').disabled = zoom.factor <= 1;
  $('zoom-fit').disabled = zoom.factor <= 1;
}
function setZoom(f) {
  zoom.factor = Math.min(Math.max(f, 1), 64);
  zoom.center = head();
  draw();
}
$('zoom-in').addEventListener('click', () => setZoom(zoom.factor * 2));
$('zoom-out').addEventListener('click', () => setZoom(zoom.factor / 2));
$('zoom-fit').addEventListener('click', () => setZoom(1));
el.pan.addEventListener('input', () => { zoom.center = +el.pan.value; if (run) { freeze(); setButtons(); } draw(); });
el.wrap.addEventListener('wheel', e => {
  if (zoom.factor <= 1 || !geo || Math.abs(e.deltaX) <= Math.abs(e.deltaY) && !e.shiftKey) return;
  e.preventDefault();
  const d = (e.deltaX || e.deltaY) / geo.width * (geo.view.to - geo.view.from);
  zoom.center = (geo.view.from + geo.view.to) / 2 + d;
  draw();
}, { passive: false });

// ---- Verdict ----

// The verdict's words load with the first finished run.
let verdict = null;
async function showVerdict() {
  if (!run || !run.summary) return;
  if (!verdict) verdict = await import('./verdict.js');
  if (!run || !run.summary || (run.cursor < run.end && !run.live)) return;
  const v = verdict.verdictView(run);
  // The verdict in one line beside the run controls, so that it is in
  // view with the timeline; the whole of it follows the timeline.
  const line = el.verdict.ownerDocument.createElement('div');
  line.innerHTML = v.html;
  const badge = line.querySelector('.badge')?.textContent.trim() || '';
  const head = line.querySelector('.headline')?.textContent || '';
  // On a phone the outcome, open above, is scrolled out of view.
  const above = phone.matches && el.outcome.open && !el.outcome.hidden ? ' · <a href="#outcome">What happened, above</a>' : '';
  el.status.innerHTML = `<span class="verdict-line ${v.cls}" data-testid="verdict-line">${esc(badge)}</span> ${esc(head)} <a href="#verdict">Details below</a>${above}`;
  el.status.classList.remove('error');
  el.verdict.className = 'verdict ' + v.cls;
  el.verdict.innerHTML = v.html + (usesLock(run.sc) && !backendOf(run.sc).holds
    ? '<p class="verdict-more"><button type="button" id="show-history" data-testid="show-history">Check the lock\'s history for linearizability</button></p>' : '');
}

el.verdict.addEventListener('click', async e => {
  if (!e.target.closest('#show-history')) return;
  const { showHistory } = await import('./historyview.js');
  showHistory($('history-view'), $('history-out'), run.sent);
});

// ---- Actors: menus on the lanes and in the drawer ----

// The menus load with the first one opened.
let actors = null, menu = null;
async function menus() {
  if (!actors) {
    actors = await import('./actors.js');
    menu = new actors.Menu($('actor-menu'), it => act(it.fault, it.label));
  }
  return actors;
}

function showActors() {
  const names = [...(sc.clients || []).map(c => ['client', c.name]), ...nodeNames(sc).map(n => ['node', n])];
  if (usesLock(sc) && backendOf(sc).leader) names.push(['leader', 'leader']);
  el.actors.innerHTML = names.map(([kind, name]) =>
    `<button type="button" class="actor actor-${kind}" data-actor="${esc(name)}" data-kind="${kind}" aria-haspopup="menu" aria-expanded="false" data-testid="actor">${esc(name === 'leader' ? 'the leader' : name)} ▾</button>`).join('');
}

function roleOf(name) {
  if (!run) return null;
  const n = stateAt(run.live ? lastT() : head())?.nodes.find(n => n.name === name);
  return n ? n.role : null;
}
function leaderName() {
  if (!run) return null;
  const n = stateAt(lastT())?.nodes.find(n => n.role === 'leader');
  return n ? n.name : null;
}

async function openMenu(name, kind, where, opener, message) {
  const { entries } = await menus();
  const items = entries(catalog, backendOf(sc), name, kind, { role: roleOf(name), leader: leaderName() || (nodeNames(sc)[0] ?? null), message });
  const live = !!run?.live;
  const when = live ? 'strikes at once, where the live run stands' : `added to the faults at ${formatMS(run ? head() : 0)}`;
  menu.open(name === 'leader' ? 'The leader' : name, items, where, opener, when);
}

/** act makes a fault happen: now in a live run (and kept in the fault
 * list at the time it struck, so Share and the next Run include it), or
 * scheduled at the playhead. */
function act(fault, label) {
  const live = !!run?.live;
  const at = live ? Math.max(lastT(), Math.round(head())) : (run ? Math.round(head()) : 0);
  const f = { at: formatMS(at), ...fault };
  if (live) {
    const { at: _, ...now } = f;
    session.send({ type: 'inject', fault: now });
    // The fault's own event says when it struck: the list takes that time.
    run.struck = { fault: f, kind: STRUCK[f.do], actor: f.target || (f.side || [])[0] };
  }
  sc.faults = [...(sc.faults || []), f].sort(byAt);
  changed();
  setStatus(live ? `${label}: done. It is now in the fault list at the time it struck, so Share and the next Run include it.`
    : `${label}: added to the faults at ${formatMS(at)}. Press Run to see it.`);
}

/** byAt orders faults by their time. */
const byAt = (a, b) => (parseDuration(a.at) || 0) - (parseDuration(b.at) || 0);

// STRUCK is the event each fault makes when it strikes.
const STRUCK = { crash: 'node_crashed', restart: 'node_restarted', partition: 'partitioned', clock_jump: 'clock_jump', clock_drift: 'clock_drift', pause: 'pause_start' };

/** struck moves a live fault in the list to the time its event says. */
function struck(e) {
  const k = run.struck;
  if (!k || e.kind !== k.kind || (k.actor !== 'leader' && e.actor !== k.actor)) return;
  run.struck = null;
  if (formatMS(e.t) !== k.fault.at) {
    k.fault.at = formatMS(e.t);
    sc.faults.sort(byAt);
    changed();
  }
}

el.actors.addEventListener('click', e => {
  const b = e.target.closest('button[data-actor]');
  if (!b) return;
  const r = b.getBoundingClientRect(), box = el.wrap.getBoundingClientRect();
  openMenu(b.dataset.actor, b.dataset.kind, { x: r.left - box.left, y: r.bottom - box.top + 4 }, b);
});

// Pointer on the timeline: a drag moves the playhead; a click on a lane
// (or a message) opens that actor's menu, on a mark with a time (data-t)
// puts the playhead there.
let press = null;
el.svg.addEventListener('pointerdown', e => {
  if (e.button !== 0) return;
  press = { x: e.clientX, y: e.clientY, id: e.pointerId, dragging: false, target: e.target };
});
el.svg.addEventListener('pointermove', e => {
  if (!press || !run || !geo) return;
  if (!press.dragging && Math.abs(e.clientX - press.x) < 5) return;
  if (!press.dragging) { press.dragging = true; el.svg.setPointerCapture(press.id); }
  const r = el.svg.getBoundingClientRect();
  const px = (e.clientX - r.left) * (geo.width / r.width);
  seek(Math.round(geo.t(Math.max(px, geo.left)) / 10) * 10);
});
el.svg.addEventListener('pointerup', e => {
  const p = press;
  press = null;
  if (!p || p.dragging) return;
  const arrow = p.target.closest('[data-arrow]');
  const lane = p.target.closest('[data-lane]'), at = p.target.closest('[data-t]');
  const box = el.wrap.getBoundingClientRect();
  const where = { x: e.clientX - box.left + 4, y: e.clientY - box.top + 4 };
  if (arrow) openMenu(arrow.dataset.client, 'client', where, null, arrow.dataset.arrow);
  else if (lane && (lane.dataset.laneKind === 'client' || lane.dataset.laneKind === 'node')) openMenu(lane.dataset.lane, lane.dataset.laneKind, where, lane.closest('.lane-name'));
  else if (at) seek(+at.dataset.t);
});
el.svg.addEventListener('keydown', e => {
  const g = e.target.closest('.lane-name[data-lane]');
  if (!g || (e.key !== 'Enter' && e.key !== ' ')) return;
  e.preventDefault();
  const r = g.getBoundingClientRect(), box = el.wrap.getBoundingClientRect();
  openMenu(g.dataset.lane, g.dataset.laneKind, { x: r.right - box.left, y: r.top - box.top }, g);
});

// ---- After a run: compare, find a failure, share ----

function afterRun() {
  if (highlight.pending && geo) {
    // A found failure: ring its violation and put the playhead on it.
    const v = geo.model.violations;
    highlight = v.length ? v.map(x => ({ ...x, why: highlight.why })) : [];
    if (highlight.length) {
      run.cursor = highlight[0].t;
      setStatus(`The failure found: ${highlight.why || highlight[0].kind.replace(/_/g, ' ')}. Its violation is ringed on the timeline at ${formatMS(highlight[0].t)}.`);
      el.verdict.innerHTML = '';
      draw();
      el.svg.scrollIntoView({ block: 'nearest', behavior: reduceMotion.matches ? 'auto' : 'smooth' });
    }
  }
}

// Compare and Find a failure load when first used: most visits never
// open them, and the page stays light.
let compare = null, chaos = null;
async function openCompare() {
  if (!compare) {
    const { Compare } = await import('./compare.js');
    compare = new Compare($('compare-view'), { catalog, render, niceEnd, backendOf, usesLock, getScenario: () => sc });
  }
  compare.open();
}
async function openChaos() {
  if (!chaos) {
    const { Chaos } = await import('./chaos.js');
    chaos = new Chaos($('chaos-view'), {
      getScenario: () => sc, backendOf, nodeCount: s => controls.nodeCount(s),
      open(example) {
        if (run?.live) session.send({ type: 'stop' });
        sc = clone(example.scenario);
        takeNotes(sc);
        if (!el.preset.querySelector('option[value=""]')) el.preset.insertAdjacentHTML('afterbegin', '<option value="">Shared scenario</option>');
        el.preset.value = '';
        notes = {
          question: `A failure the search found (seed ${example.seed}). Its violation is ringed on the timeline: what went wrong there?`,
          watch: `A failure the search found (seed ${example.seed}): ${example.why}`,
        };
        notesKey = 'found:' + example.seed;
        from = '';
        $('changes')?.remove();
        showNotes();
        highlight = []; highlight.pending = true; highlight.why = example.why;
        // The address bar holds the example when a link can (a reload
        // then reopens it); a scenario too large for one leaves it be.
        const s = encodeShare(sc);
        if (s.length <= data.max_share) history.replaceState(null, '', '/playground?s=' + s);
        clearRun();
        changed();
        el.speed.value = MAX_SLIDER; speedChanged();
        el.startPaused.checked = false;
        start();
      },
    });
  }
  chaos.show();
}

function shareURL(s) {
  return `${location.origin}/playground?s=${s}&speed=${speed()}${from ? '&from=' + encodeURIComponent(from) : ''}`;
}

// share shows the scenario's link, or, for a scenario too large for one
// (the server refuses an s longer than data.max_share), says so instead
// of giving a link that cannot open.
function share() {
  const box = $('share-box'), link = $('share-link'), tooLong = $('share-too-long');
  const s = encodeShare(withNotes(sc));
  const fits = s.length <= data.max_share;
  box.hidden = false;
  link.hidden = $('copy-share').hidden = $('share-label').hidden = !fits;
  tooLong.hidden = fits;
  if (!fits) {
    link.value = '';
    tooLong.textContent = `This scenario is too large for a link: it takes ${s.length.toLocaleString()} characters, and a link holds ${data.max_share.toLocaleString()} (a scenario of 64 KiB). Make it smaller to share it, or copy its JSON from "Advanced" below.`;
    return;
  }
  link.value = shareURL(s);
  link.focus();
  link.select();
}

$('copy-share').addEventListener('click', async () => {
  const link = $('share-link');
  try { await navigator.clipboard.writeText(link.value); setStatus('Link copied.'); } catch { link.select(); setStatus('Select the link and copy it (Ctrl+C).'); }
});

// ---- Keys ----

const TEXT = 'textarea, [contenteditable], input:not([type]), input[type=text], input[type=number], input[type=url], input[type=search], input[type=email]';

function toggleKeys(show) {
  const help = $('keys-help');
  help.hidden = show === undefined ? !help.hidden : !show;
  $('keys').setAttribute('aria-expanded', String(!help.hidden));
}

document.addEventListener('keydown', e => {
  if (e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented) return;
  const t = e.target;
  if (t.closest?.(TEXT + ', #actor-menu')) return;
  // Arrows keep their own meaning on sliders and lists. Space plays and
  // pauses wherever the focus is (a button keeps Enter); only a switch or
  // a list reached by the keyboard keeps Space, its one key to change it.
  const native = t.closest?.('input[type=range], select');
  const k = e.key;
  let act = null;
  if (k === 'ArrowLeft' || k === 'ArrowRight') {
    if (native) return;
    const dir = k === 'ArrowLeft' ? -1 : 1;
    act = e.shiftKey ? () => seek(head() + dir * 1000) : (dir < 0 ? stepBack : stepForward);
  } else if (k === 'PageUp' || k === 'PageDown') act = () => seek(head() + (k === 'PageUp' ? -1000 : 1000));
  else if (k === 'Home' || k === 'End') { if (native) return; act = () => seek(k === 'Home' ? 0 : Infinity); }
  else if (k === ' ') { if (t.matches?.('input[type=checkbox]:focus-visible, select:focus-visible')) return; act = togglePlay; }
  else {
    act = {
      r: start, k: togglePlay, p: togglePlay, s: stepForward, x: stopRun, c: openCompare, f: openChaos, v: projector,
      '+': () => nudgeSpeed(1), '=': () => nudgeSpeed(1), '-': () => nudgeSpeed(-1), '?': () => toggleKeys(),
      z: () => setZoom(zoom.factor * 2), Z: () => setZoom(zoom.factor / 2), Escape: () => { toggleKeys(false); menu?.close(); },
    }[k.length === 1 && k !== 'Z' ? k.toLowerCase() : k];
  }
  if (act) { e.preventDefault(); act(); }
});

// ---- Wiring ----

el.preset.addEventListener('change', () => pickPreset(el.preset.value));
el.outcome.addEventListener('toggle', labelOutcome);
$('preset-form').addEventListener('submit', e => e.preventDefault());
el.json.addEventListener('input', jsonEdited);
el.json.addEventListener('blur', () => { if (!el.jsonError.textContent) showJSON(); });
$('add-fault').addEventListener('click', async () => (await faultEditor()).add());
el.run.addEventListener('click', start);
el.play.addEventListener('click', togglePlay);
el.back.addEventListener('click', stepBack);
el.forward.addEventListener('click', stepForward);
el.stop.addEventListener('click', stopRun);
el.speed.addEventListener('input', speedChanged);
el.scrub.addEventListener('input', () => seek(+el.scrub.value));
el.scrub.addEventListener('change', () => seek(+el.scrub.value));
el.log.addEventListener('click', e => {
  const b = e.target.closest('button[data-t]');
  if (b && run) seek(+b.dataset.t);
});
$('compare').addEventListener('click', openCompare);
$('chaos').addEventListener('click', openChaos);
$('share').addEventListener('click', share);
$('keys').addEventListener('click', () => toggleKeys());
$('projector').addEventListener('click', projector);
$('msgs').addEventListener('click', e => {
  msgPref = e.currentTarget.ariaPressed == 'true' ? 'off' : 'on';
  try { localStorage.msgs = msgPref; } catch { /* for this page */ }
  draw();
});
// A folded question or outcome unfolds at a click (or Enter on its summary).
el.box.addEventListener('click', e => {
  if (!el.box.classList.contains('folded')) return;
  el.box.classList.remove('folded');
  e.preventDefault();
});

/** projector shows the run for a room (projector.js, loaded when first used). */
async function projector() {
  (await import('./projector.js')).toggle();
  draw();
}
new ResizeObserver(() => draw()).observe(el.wrap);

// On a phone the actors live in a drawer below the timeline, closed; on
// a wider screen it stands open. What to watch stays in view: it is the
// point of the run.
function fold() {
  el.drawer.open = !phone.matches;
}
phone.addEventListener('change', fold);
fold();
showNotes();
el.preset.dataset.loaded = data.preset;
el.speed.value = el.speed.value; // keep the server's value
speedChanged();
changed();
clearRun();
if (data.autorun) start();
else if (!data.preset) setStatus('Shared with you, waiting at 0 s: read what to watch, then press Run.');
