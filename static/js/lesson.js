// A lesson page: each embedded playground becomes a compact live one (the
// controls the lesson names, Run, a timeline and the verdict), and each
// exercise form is sent to the checker, its answer shown with feedback and
// hints. Nothing in the page answers an exercise: the worked solution, the
// expected answer and a prediction's run come from the server once earned
// (a right answer, three tries, or "show me"). A playground that waits for
// a prediction runs only then, and every playground shows its caption and
// verdict only after it ran.

import { clone, esc, formatMS, parseDuration } from './format.js';
import { render, setBackends } from './timeline.js';
import { verdictView } from './verdict.js';
import * as progress from './lessonprogress.js';

const data = JSON.parse(document.getElementById('lesson-data').textContent);
setBackends(data.backends);
const reduceMotion = matchMedia('(prefers-reduced-motion: reduce)');

// ---- Scenario helpers ----

/** splitPath turns "clients[client-1].steps[2].for" into its steps, as the engine does. */
function splitPath(p) {
  const out = [];
  for (const seg of p.split('.')) {
    const m = seg.match(/^([^[]*)((?:\[[^\]]*\])*)$/);
    if (!m) return null;
    if (m[1]) out.push(m[1]);
    for (const ix of m[2].match(/\[[^\]]*\]/g) || []) out.push(ix.slice(1, -1));
  }
  return out;
}

/** child finds a key in an object, or a list item by index or by name. */
function child(v, k) {
  if (Array.isArray(v)) return /^\d+$/.test(k) ? v[+k] : v.find(x => x && x.name === k);
  return v?.[k];
}

function getPath(sc, path) {
  let v = sc;
  for (const k of splitPath(path) || []) v = child(v, k);
  return v;
}

/** setPath sets a value; an empty value removes the field (its default). */
function setPath(sc, path, value) {
  const parts = splitPath(path);
  let v = sc;
  for (const k of parts.slice(0, -1)) {
    let next = child(v, k);
    if (next === undefined && !Array.isArray(v)) next = v[k] = {};
    if (next === undefined) throw new Error(`${path}: there is no ${k}`);
    v = next;
  }
  const last = parts[parts.length - 1];
  const key = Array.isArray(v) ? +last : last;
  if (value === '' || value === undefined) delete v[key]; else v[key] = value;
}

function shareLink(sc) {
  const bytes = new TextEncoder().encode(JSON.stringify(sc));
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return '/playground?s=' + btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '') + '&run=1';
}

async function postJSON(url, body) {
  const r = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  let out;
  try { out = await r.json(); } catch { out = {}; }
  if (!r.ok) {
    const err = new Error(out.error || r.statusText);
    err.status = r.status;
    throw err;
  }
  return out;
}

function niceEnd(t) { return Math.max(1000, Math.ceil((t * 1.04) / 1000) * 1000); }

// A drawn timeline is drawn again at its box's width when the box
// changes (a phone turned, a window resized): it always fits, no lane
// scrolls out of sight.
const drawn = new WeakMap(); // svg -> its last full drawing
const replaying = new WeakMap(); // svg -> the replay that has it now
const refit = new ResizeObserver(es => { for (const e of es) drawn.get(e.target.querySelector('svg'))?.(); });

/** drawRun draws a finished run into a compact timeline as wide as its
 * box, replaying it quickly unless motion is reduced; atEnd runs once the
 * timeline has reached the end (the verdict waits for it). A replay still
 * under way in svg stops where it is: its end, and its verdict, never come. */
function drawRun(svg, sc, states, events, endMS, atEnd = () => {}) {
  const replay = {};
  replaying.set(svg, replay);
  const domain = niceEnd(endMS), box = svg.parentNode;
  const width = () => box.clientWidth || undefined;
  svg.dataset.drawn = '';
  drawn.delete(svg);
  const again = () => render(svg, sc, events, { states, domain, now: endMS, playhead: null, compact: true, width: width() });
  const full = () => { again(); drawn.set(svg, again); refit.observe(box); svg.dataset.drawn = '1'; atEnd(); };
  if (reduceMotion.matches || !events.length) { full(); return; }
  const t0 = performance.now(), span = 900;
  const step = now => {
    if (replaying.get(svg) !== replay) return; // a later run's replay has the drawing
    const f = Math.min(1, (now - t0) / span), at = f * endMS;
    if (f >= 1) { full(); return; }
    render(svg, sc, events.filter(e => e.t <= at), { states, domain, now: at, playhead: at, compact: true, width: width(), cast: events });
    requestAnimationFrame(step);
  };
  step(t0); // the first frame now: a shown drawing is never a frame at the browser's default size
}

// ---- Embedded playgrounds ----

const LABELS = {
  fencing: 'Fencing tokens', 'lock.lease': 'Lease', 'lock.nodes': 'Lock servers', 'lock.backend': 'Backend',
  'lock.replication_lag': 'Replication lag', 'lock.latency': 'Network latency', until: 'Run for',
};
const DURATION = /(^|\.)(lease|renew_every|retry_every|by|for|at|until|replication_lag|latency|ttl|drift|jump)$/;

/** label names a control in words. */
function label(sc, path) {
  if (LABELS[path]) return LABELS[path];
  let m = path.match(/^clients\[([^\]]+)\]\.renew_every$/);
  if (m) return `${m[1]} renews every`;
  m = path.match(/^clients\[([^\]]+)\]\.steps\[(\d+)\]\.(.+)$/);
  if (m) return `${m[1]}, step ${+m[2] + 1} (${getPath(sc, `clients[${m[1]}].steps[${m[2]}].do`) || 'step'}): ${m[3].replace(/_/g, ' ')}`;
  m = path.match(/^faults\[(\d+)\]\.(.+)$/);
  if (m) {
    const f = (sc.faults || [])[+m[1]] || {};
    const what = { by: 'held up by', for: 'lasting', at: 'at' }[m[2]] || m[2].replace(/_/g, ' ');
    return `Fault ${+m[1] + 1} (${[f.do, f.target, f.kind].filter(Boolean).join(' ')}): ${what}`;
  }
  return path;
}

function controlHTML(sc, path, id) {
  const v = getPath(sc, path), name = label(sc, path);
  if (typeof v === 'boolean' || path === 'fencing') {
    return `<div class="lp-control lp-switch"><input type="checkbox" role="switch" id="${id}" data-path="${esc(path)}" data-type="bool"${v ? ' checked' : ''} data-testid="lp-control"><label for="${id}">${esc(name)}</label></div>`;
  }
  if (typeof v === 'number' || path === 'lock.nodes') {
    return `<div class="lp-control"><label for="${id}">${esc(name)}</label><input type="number" id="${id}" data-path="${esc(path)}" data-type="number" value="${v ?? ''}" min="0" step="1" inputmode="numeric" data-testid="lp-control"></div>`;
  }
  const dur = DURATION.test(path);
  const hint = dur ? `<span class="hint" id="${id}-hint">a duration, like 3s or 1m30s${/renew_every/.test(path) ? '; empty: never' : ''}</span>` : '';
  return `<div class="lp-control"><label for="${id}">${esc(name)}</label><input type="text" id="${id}" data-path="${esc(path)}" data-type="${dur ? 'duration' : 'text'}" value="${esc(v ?? '')}" size="${dur ? 9 : 20}" spellcheck="false" autocomplete="off"${dur ? ` aria-describedby="${id}-hint"` : ''} data-testid="lp-control">${hint}</div>`;
}

/** showLog lists the run's events in words: the timeline for whoever does not see it. */
function showLog(box, res) {
  let log = box.querySelector('.lp-log');
  if (!log) {
    log = document.createElement('details');
    log.className = 'lp-log';
    log.innerHTML = '<summary>Every event in words</summary><ol data-testid="lp-log"></ol>';
    box.querySelector('.lp-timeline').append(log);
  }
  log.querySelector('ol').innerHTML = res.events.map((e, i) =>
    `<li class="k-${esc(e.kind)}"><span class="t">${formatMS(e.t)}</span> <strong>${esc(e.actor)}</strong> ${esc(res.texts[i] || e.kind)}</li>`).join('');
}

function livePlayground(fig) {
  const pg = data.playgrounds[fig.id];
  if (!pg) return;
  fig.classList.add('live');
  const base = pg.scenario;
  const controls = pg.controls.map((p, i) => controlHTML(base, p, `${fig.id}-c${i}`)).join('');
  const box = document.createElement('div');
  box.className = 'lp';
  box.innerHTML = `<form class="lp-form" data-testid="lp-form" novalidate>
  ${controls ? `<fieldset class="lp-controls"><legend>Try changing</legend>${controls}</fieldset>` : ''}
  <div class="lp-bar">
    <button type="submit" class="primary" data-testid="lp-run">Run</button>
    <a class="lp-open" href="${esc(pg.share)}" data-testid="lp-open">Open in the playground</a>
    <span class="lp-preset muted">${esc(pg.title)}</span>
  </div>
</form>
<p class="lp-status" role="status" data-testid="lp-status">Press Run to run it for real: a Raft lock group, the clients and the storage, in simulated time.</p>
<div class="verdict" aria-live="polite" aria-atomic="true" data-testid="lp-verdict"></div>
<div class="lp-timeline" hidden><div class="svg-wrap"><svg class="mini" role="img" aria-label="Timeline of the run: one lane per client, per lock server and for the storage" data-testid="lp-timeline" xmlns="http://www.w3.org/2000/svg"></svg></div></div>`;
  const caption = fig.querySelector('figcaption');
  caption.after(box);
  const legend = document.getElementById('lp-legend');
  if (legend) box.querySelector('.lp-timeline').append(legend.content.cloneNode(true));
  const form = box.querySelector('form'), status = box.querySelector('.lp-status'), verdict = box.querySelector('.verdict');
  const svg = box.querySelector('svg'), open = box.querySelector('.lp-open'), button = box.querySelector('button[type=submit]');

  /** scenario reads the controls into a scenario, or throws naming the bad field. */
  const scenario = () => {
    const sc = clone(base);
    for (const input of form.querySelectorAll('[data-path]')) {
      const path = input.dataset.path;
      let v;
      switch (input.dataset.type) {
        case 'bool': v = input.checked; break;
        case 'number': v = input.value === '' ? '' : Number(input.value); break;
        case 'duration':
          v = input.value.trim();
          if (v !== '' && Number.isNaN(parseDuration(v))) throw Object.assign(new Error(`${label(base, path)}: "${v}" is not a duration; write it like 3s, 500ms or 1m30s`), { input });
          break;
        default: v = input.value.trim();
      }
      setPath(sc, path, v);
    }
    return sc;
  };
  const say = (text, isError) => { status.textContent = text; status.classList.toggle('error', !!isError); };

  form.addEventListener('input', () => {
    try { open.href = shareLink(scenario()); } catch { /* shown on Run */ }
  });

  // The caption tells what the run shows: it waits for the run. A
  // playground that waits for a prediction is locked until it is earned,
  // and gets its caption from the server then.
  let captionText = pg.predict ? '' : caption.textContent;
  if (!pg.predict) caption.hidden = true;
  const showCaption = () => {
    if (!captionText) return;
    caption.textContent = captionText;
    caption.classList.remove('lp-gated');
    caption.hidden = false;
  };
  if (pg.predict) {
    button.disabled = true;
    open.hidden = true;
    say('Answer the prediction above first: the Run button works once you have committed to an answer.');
    const unlock = sol => {
      if (sol?.caption) captionText = sol.caption;
      if (!button.disabled) return;
      button.disabled = false;
      open.hidden = false;
      caption.textContent = 'Now run it and see whether it happens as you predicted.';
      say('Press Run to see it happen for real: a Raft lock group, the clients and the storage, in simulated time.');
    };
    document.addEventListener('exercise:earned', e => { if (e.detail.id === pg.predict) unlock(e.detail.solution); });
    fig.dataset.locked = '1';
    box.dataset.predict = pg.predict;
  }
  form.addEventListener('submit', async e => {
    e.preventDefault();
    if (fig.dataset.locked && pg.predict && button.disabled) return;
    if (form.hasAttribute('aria-busy')) return; // a run is being asked for
    let sc;
    try { sc = scenario(); } catch (err) { say(err.message, true); err.input?.focus(); return; }
    open.href = shareLink(sc);
    // aria-disabled, not disabled: a disabled button loses the focus, and
    // a learner who ran it from the keyboard could not press it again.
    button.setAttribute('aria-disabled', 'true');
    form.setAttribute('aria-busy', 'true');
    // "Running…" keeps the lines the last words took, so that the verdict
    // and the drawing below do not jump up while the run is asked for.
    status.style.minHeight = status.getBoundingClientRect().height + 'px';
    say('Running…');
    try {
      const res = await postJSON('/api/run', sc);
      const run = { summary: res.summary, events: res.events, verdict: res.verdict, heading: res.heading };
      const v = verdictView(run);
      box.querySelector('.lp-timeline').hidden = false;
      showLog(box, res);
      showCaption();
      delete fig.dataset.locked;
      holdPlace(verdict, v.html);
      drawRun(svg, res.scenario, res.states, res.events, Math.max(res.summary.end_ms, ...res.events.map(e => e.t), 1000), () => {
        verdict.style.minHeight = '';
        verdict.className = 'verdict ' + v.cls;
        verdict.innerHTML = v.html;
      });
      say(`Finished: ${res.events.length} events in ${formatMS(res.summary.end_ms)} of simulated time. Change a setting and run it again, or open it in the playground to step through it.`);
    } catch (err) {
      say((err.status === 503 ? 'Busy: ' : 'Error: ') + err.message, true);
    } finally {
      status.style.minHeight = '';
      button.removeAttribute('aria-disabled');
      form.removeAttribute('aria-busy');
    }
  });
}

/** holdPlace keeps the verdict's room while the replay plays, above the
 * timeline: the box takes the height the verdict will have, measured unseen
 * in the same task (so never painted), and says what is coming. The
 * timeline then stays where it is when the verdict arrives at the end. */
function holdPlace(el, html) {
  el.className = 'verdict';
  el.style.minHeight = '';
  el.style.visibility = 'hidden';
  el.innerHTML = html;
  const height = el.getBoundingClientRect().height; // not offsetHeight, which rounds to a whole pixel
  el.style.visibility = '';
  el.innerHTML = '<p class="muted" data-testid="lp-verdict-waits">The verdict comes when the replay ends.</p>';
  el.style.minHeight = height + 'px';
}

// ---- Exercises ----

/** answerOf reads a form's answer the way the checker takes it. */
function answerOf(form) {
  const options = form.querySelectorAll('input[name=answer][type=radio], input[name=answer][type=checkbox]');
  if (options.length) return [...options].filter(i => i.checked).map(i => i.value).join(',');
  return form.querySelector('[name=answer]').value;
}

/**
 * syncSettings rewrites a scenario form's JSON from its fields. A cleared
 * field is sent empty: the server reads that as its range says ("empty:
 * never renews"), or as unchanged where the range says nothing of empty.
 */
function syncSettings(form) {
  const obj = {};
  for (const input of form.querySelectorAll('input[name=setting]')) {
    const v = input.value.trim();
    obj[input.dataset.path] = v === 'true' ? true : v === 'false' ? false : /^\d+$/.test(v) ? +v : v;
  }
  form.querySelector('textarea[name=answer]').value = JSON.stringify(obj);
}

const list = items => `<ul>${items.map(t => `<li>${esc(t)}</li>`).join('')}</ul>`;

async function getJSON(url) {
  const r = await fetch(url, { headers: { Accept: 'application/json' } });
  let out;
  try { out = await r.json(); } catch { out = {}; }
  if (!r.ok) throw Object.assign(new Error(out.error || r.statusText), { status: r.status });
  return out;
}

/** showHints lists the hints the learner's wrong tries have unlocked. */
function showHints(form, hints) {
  const box = form.querySelector('[data-testid=hints]');
  if (!hints?.length) return;
  box.hidden = false;
  box.innerHTML = `<p>Hint${hints.length > 1 ? 's' : ''}:</p>${list(hints)}`;
}

/** showSolution puts an earned worked solution (HTML from the server) in its place. */
function showSolution(form, html, open) {
  const sol = form.querySelector('details.solution');
  if (!html) return;
  sol.querySelector('.solution-body').innerHTML = html;
  sol.hidden = false;
  sol.open = open;
}

/** earned tells the page an exercise's answer is the learner's now; a playground that waits for it opens. */
async function earned(form, id, variant) {
  let solution = null;
  try {
    solution = await getJSON(`/api/exercises/${encodeURIComponent(id)}/solution?variant=${variant}`);
  } catch { /* shown with the result already, or not earned after all */ }
  if (solution) showSolution(form, solution.solution, false);
  document.dispatchEvent(new CustomEvent('exercise:earned', { detail: { id, solution } }));
}

function setTries(form, tries) {
  form.dataset.tries = String(tries);
  const el = form.querySelector('[data-testid=tries]');
  if (!el || form.dataset.kind === 'text' || !tries) return;
  el.textContent = tries >= 3 ? `${tries} wrong tries` : `${tries} wrong ${tries === 1 ? 'try' : 'tries'}; the answer is shown after 3`;
}

function showResult(form, res) {
  const out = form.querySelector('output');
  const parts = [];
  let cls;
  if (res.format_error) {
    cls = 'format';
    parts.push(`<p class="fb-head"><span aria-hidden="true">⚠</span> Not read: no try used.</p><p>${esc(res.format_error)}</p>`);
  } else if (res.submitted) {
    cls = 'answered';
    parts.push(`<p class="fb-head"><span aria-hidden="true">✎</span> Submitted.</p><p>${esc(res.feedback)}</p>`);
    if (res.rubric?.length) parts.push(`<p>A good answer covers:</p><ul class="rubric" data-testid="rubric">${res.rubric.map(r => `<li>${esc(r.point)}</li>`).join('')}</ul>`);
  } else if (res.correct) {
    cls = 'correct';
    parts.push(`<p class="fb-head"><span aria-hidden="true">✓</span> Correct.</p><p>${esc(res.feedback)}</p>`);
  } else if (res.graded === false && res.revealed) {
    cls = 'shown';
    parts.push(`<p class="fb-head"><span aria-hidden="true">➜</span> The answer${res.expected ? `: <strong data-testid="expected">${esc(res.expected)}</strong>` : ''}.</p><p>${esc(res.feedback)}</p>`);
  } else {
    cls = 'wrong';
    parts.push(`<p class="fb-head"><span aria-hidden="true">✗</span> Not yet.</p><p>${esc(res.feedback)}</p>`);
    if (res.revealed && res.expected) parts.push(`<p>The answer: <strong data-testid="expected">${esc(res.expected)}</strong>.</p>`);
  }
  if (res.runs?.length) {
    parts.push(`<p>The runs of your settings:</p><ul class="runs" data-testid="runs">${res.runs.map(r => `<li class="${r.passed ? 'pass' : 'fail'}"><span aria-hidden="true">${r.passed ? '✓' : '✗'}</span> ${esc(r.name)}: ${r.passed ? 'passed' : 'failed'}${r.passed ? '' : ` <span class="muted">${esc(r.explain)}</span>`}</li>`).join('')}</ul>`);
  }
  if (res.timeline) {
    const tl = res.timeline;
    const what = res.kind === 'predict' ? 'The real run' : res.correct ? `A run of your settings${tl.name ? ` (${esc(tl.name)})` : ''}` : `The shortest failing run${tl.name ? `: ${esc(tl.name)}` : ''}`;
    const said = (res.feedback || '').includes(tl.verdict) ? '' : ' ' + esc(tl.verdict);
    parts.push(`<figure class="fb-timeline"><figcaption>${what}.${said}</figcaption><div class="svg-wrap"><svg class="mini" role="img" aria-label="${what}: its timeline" data-testid="result-timeline" xmlns="http://www.w3.org/2000/svg"></svg></div></figure>`);
  }
  out.className = 'exercise-feedback ' + cls;
  out.dataset.result = cls;
  out.innerHTML = parts.join('');
  if (res.timeline) {
    const tl = res.timeline;
    drawRun(out.querySelector('svg'), tl.scenario, res.timeline_states, tl.events, Math.max(tl.summary.end_ms, ...tl.events.map(e => e.t), 1000));
  }
  showHints(form, res.hints);
  if (res.submitted) showSolution(form, res.model_answer_html ? `<div class="model-answer">${res.model_answer_html}</div>` : '', true);
  else if (res.revealed) showSolution(form, res.solution_html, true);
  bringIntoView(out);
}

// bringIntoView scrolls the feedback onto the screen when the answer left
// it below the fold (a phone, a long form), its first line first.
function bringIntoView(el) {
  const r = el.getBoundingClientRect();
  if (r.top >= 0 && r.top < window.innerHeight - 80) return;
  // At once, not smoothly: the learner's next press must land where it
  // points, not on a page still moving under it.
  el.scrollIntoView({ block: r.height > window.innerHeight ? 'start' : 'nearest', behavior: 'instant' });
}

/** updateServed redraws a form for other numbers, from GET /api/exercises/{id}. */
function updateServed(form, ex) {
  form.dataset.variant = String(ex.variant);
  form.querySelector('.exercise-prompt').innerHTML = ex.prompt;
  const fs = form.querySelector('fieldset.exercise-options');
  if (fs && ex.options.length) {
    const type = ex.multiple ? 'checkbox' : 'radio';
    fs.querySelectorAll('label').forEach(l => l.remove());
    for (const o of ex.options) {
      const label = document.createElement('label');
      label.innerHTML = `<input type="${type}" name="answer" value="${esc(o.id)}" data-testid="${esc(o.id)}"> <span class="option-key">(${esc(o.key)})</span> ${esc(o.text)}`;
      fs.append(label);
    }
  }
  for (const f of ex.fields || []) {
    const input = form.querySelector(`input[name=setting][data-path="${CSS.escape(f.path)}"]`);
    if (input) input.value = f.default;
  }
  if (form.dataset.kind === 'scenario') syncSettings(form);
  const answer = form.querySelector('input[name=answer][type=text]');
  if (answer) answer.value = '';
  const out = form.querySelector('output');
  out.className = 'exercise-feedback';
  out.innerHTML = '';
  form.querySelector('[data-testid=hints]').hidden = true;
  form.querySelector('details.solution').hidden = true;
  form.querySelector('[data-testid=tries]').textContent = '';
  setTries(form, ex.tries);
  showHints(form, ex.hints);
}

function liveExercise(box) {
  const form = box.querySelector('form.exercise');
  if (!form) return;
  const id = form.dataset.exercise, slug = data.slug;
  const out = form.querySelector('output');
  const submit = form.querySelector('button[type=submit]');
  out.id = out.id || `feedback-${id}`;
  form.setAttribute('aria-describedby', out.id);
  const was = progress.get(slug, id);
  if (was.done) {
    const note = document.createElement('p');
    note.className = 'done-note';
    note.dataset.testid = 'done-note';
    note.innerHTML = `<span aria-hidden="true">✓</span> ${was.done === 'correct' ? 'You answered this correctly before.' : 'You answered this before.'}`;
    form.querySelector('.exercise-title').after(note);
  }
  if (form.dataset.kind === 'scenario') {
    syncSettings(form);
    form.addEventListener('input', e => { if (e.target.name === 'setting') syncSettings(form); });
  }
  if (form.dataset.earned === 'true') earned(form, id, +form.dataset.variant || 0);

  const busy = (on, text) => {
    for (const b of form.querySelectorAll('button')) b.disabled = on;
    if (on) form.setAttribute('aria-busy', 'true'); else form.removeAttribute('aria-busy');
    if (text) { out.className = 'exercise-feedback pending'; out.textContent = text; }
  };
  const failed = err => {
    out.className = 'exercise-feedback error';
    out.dataset.result = 'error';
    out.textContent = (err.status === 503 || err.status === 429 ? 'Busy, try again in a moment: ' : 'Error: ') + err.message;
  };
  const after = res => {
    const variant = +form.dataset.variant || 0;
    if (res.correct) progress.markDone(slug, id, 'correct');
    else if (res.submitted) progress.markDone(slug, id, 'answered');
    if (res.graded && !res.correct && !res.format_error) setTries(form, (+form.dataset.tries || 0) + 1);
    showResult(form, res);
    if (res.revealed || res.submitted) {
      form.dataset.earned = 'true';
      // A prediction that opens a playground fetches the caption with the
      // solution; the playground opens when it has it.
      if (form.dataset.gate === 'true') earned(form, id, variant);
    }
  };

  form.addEventListener('submit', async e => {
    e.preventDefault();
    const answer = answerOf(form);
    if (!answer.trim()) {
      out.className = 'exercise-feedback format';
      out.textContent = form.querySelector('input[type=radio], input[type=checkbox]') ? 'Choose an option first.' : 'Write an answer first.';
      return;
    }
    const runs = form.dataset.kind === 'predict' || form.dataset.kind === 'scenario';
    busy(true, runs ? 'Running the engine…' : 'Checking…');
    try {
      after(await postJSON(`/api/exercises/${encodeURIComponent(id)}/check`, { answer, variant: +form.dataset.variant || 0 }));
    } catch (err) {
      failed(err);
    } finally {
      busy(false);
    }
  });

  form.querySelector('[data-action=show-me]')?.addEventListener('click', async () => {
    if (form.dataset.earned !== 'true' && !confirm('Show the answer? You can still answer afterwards, but the exercise counts as given up.')) return;
    busy(true, form.dataset.kind === 'predict' ? 'Running it for you…' : 'Fetching the answer…');
    try {
      after(await postJSON(`/api/exercises/${encodeURIComponent(id)}/give-up`, { variant: +form.dataset.variant || 0 }));
    } catch (err) {
      failed(err);
    } finally {
      busy(false);
    }
  });

  form.querySelector('[data-action=new-numbers]')?.addEventListener('click', async () => {
    const current = +form.dataset.variant || 0;
    let v = current;
    while (v === current) v = 1 + Math.floor(Math.random() * 999999);
    busy(true, 'Drawing new numbers…');
    try {
      const ex = await getJSON(`/api/exercises/${encodeURIComponent(id)}?variant=${v}`);
      form.dataset.earned = String(ex.earned);
      updateServed(form, ex);
      form.querySelector('.exercise-prompt').focus?.();
    } catch (err) {
      failed(err);
    } finally {
      busy(false);
    }
  });
}

// ---- Headings ----

function anchors() {
  for (const h of document.querySelectorAll('.lesson-body h2[id], .lesson-body h3[id]')) {
    const a = document.createElement('a');
    a.className = 'anchor';
    a.href = '#' + h.id;
    a.textContent = '#';
    a.setAttribute('aria-label', `Link to the section ${h.textContent}`);
    h.append(' ', a);
  }
}

anchors();
// On a narrow screen the contents sit above the question: fold them.
if (matchMedia('(max-width: 900px)').matches) document.querySelector('.toc details')?.removeAttribute('open');
document.querySelectorAll('figure.playground[data-preset]').forEach(livePlayground);
document.querySelectorAll('[data-testid=exercise-box]').forEach(liveExercise);
