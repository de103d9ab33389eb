// The teacher's dashboard: redraws the tables from the server's live
// events, and sends the teacher's actions (push a scenario, rotate the
// code, open or close joining, remove a learner, archive or restore the
// class, score an open answer, credit late work) as JSON. Names and
// answers are put into the page with textContent only: a learner may be
// called "<script>".

const root = document.querySelector('[data-testid=dashboard]');
const status = document.getElementById('live-status');
const errorBox = document.getElementById('dash-error');
let code = root.dataset.code;
let source = null;

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    // data-*, aria-* and role are attributes (no property reflects them
    // in every browser); the rest are properties.
    else if (k.startsWith('data-') || k.startsWith('aria-') || k === 'role') e.setAttribute(k, v);
    else e[k] = v;
  }
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}

function showError(msg) {
  errorBox.textContent = msg;
  errorBox.hidden = !msg;
}

// A grid cell comes worked out by the server (cellOf in
// web/classview.go): its text, class, status, score and tooltip. The
// server leaves out what is empty (an untried cell is {}); cellOf puts
// the blanks back.
function cellOf(c) {
  return { tries: 0, correct: false, status: '', score: '', text: '', state: '', title: '', late: false, late_credit: false, ...c };
}

function render(v) {
  setCode(v.class.code);
  document.querySelector('[data-testid=dash-class-name]').textContent = v.class.name;
  document.querySelector('[data-testid=dash-joining]').textContent = v.class.joining ? 'open' : 'closed';
  const toggle = document.getElementById('toggle-joining');
  toggle.dataset.open = String(v.class.join_open);
  toggle.textContent = v.class.join_open ? 'Close joining' : 'Open joining';
  const current = document.getElementById('push-current');
  const sc = v.class.scenario;
  if (sc) {
    current.replaceChildren(el('a', { href: sc.url }, sc.label), ...(sc.closed ? [' ', pushClosed(sc.lesson)] : []));
  } else {
    current.replaceChildren('nothing');
  }

  document.querySelector('[data-testid=dash-variants]').textContent = v.class.variants === 'shared'
    ? "everyone has the lesson's numbers" : 'each learner has their own numbers';
  renderExercises(v.exercises);
  renderKeys(v.keys || []);
  renderAnswers(v.answers);

  renderGrid(v.exercises, v.learners);
  renderSettings(v.class.settings);
  // Last, once every button is drawn: a closed class turns them off.
  renderLifecycle(v.class.lifecycle);
  act(refreshPoll);
  document.getElementById('learner-count').textContent = String(v.learners.length);
}

// pushClosed warns that the pushed lesson is not open to the class, with
// a button that opens it (class.templ's pushClosed).
function pushClosed(lesson) {
  return el('span', { class: 'push-closed', 'data-testid': 'push-closed' },
    '— not open to the class: learners who follow it see “Not open yet”. ',
    el('button', { type: 'button', 'data-testid': 'push-open-it', 'data-lesson': lesson }, 'Open it'));
}

// "Open it" asks the server to add the lesson to those open as they
// stand when it lands, so a change saved meanwhile in another tab stays.
document.getElementById('push-current').addEventListener('click', (e) => {
  const b = e.target.closest('[data-testid=push-open-it]');
  if (!b) return;
  b.disabled = true;
  act(async () => {
    try {
      await send('POST', api('/settings'), { open_lesson: b.dataset.lesson });
    } finally {
      b.disabled = false;
    }
  });
});

// tried says whether any learner has answered the exercise or given up on
// it (dashExercise.Tried on the server): the page lists those and folds
// the others into one line.
function tried(ex) { return ex.attempted > 0 || ex.correct > 0 || ex.gave_up > 0; }

function untriedWord(n) { return n === 1 ? '1 exercise not tried yet' : n + ' exercises not tried yet'; }

// exerciseRow is the same row as class.templ's exerciseRow.
function exerciseRow(ex) {
  const mistakes = ex.mistakes.length === 0 ? '' : el('ul', { class: 'mistakes' }, ...ex.mistakes.map((m) =>
    el('li', { 'data-testid': 'mistake', 'data-mistake': m.id },
      el('strong', {}, m.mistake), ' ', el('span', { class: 'hint' }, learnersWord(m.count)), ' ',
      el('span', { class: 'mistake-who' }, ...m.learners.slice(0, 6).map((l) =>
        el('span', { class: 'who', 'data-testid': 'mistake-learner' }, l.name + ': ', el('code', {}, l.answer)))))));
  return el('tr', { 'data-testid': 'dash-exercise', 'data-exercise': ex.id },
    el('th', { scope: 'row' }, ex.title, ex.lesson ? el('span', { class: 'ex-lesson' }, ex.lesson) : ''),
    el('td', { 'data-testid': 'ex-attempted', 'data-label': 'Attempted' }, ex.attempted),
    el('td', { 'data-testid': 'ex-correct', 'data-label': 'Solved' }, ex.correct),
    el('td', { 'data-testid': 'ex-tries', 'data-label': 'Tries' }, ex.tries),
    el('td', { 'data-testid': 'ex-gave-up', 'data-label': 'Gave up' }, ex.gave_up),
    el('td', { class: 'ex-mistakes', 'data-label': 'Top mistakes' }, mistakes));
}

// renderExercises lists the tried exercises in lesson order and folds the
// untried ones into one line, which keeps open if the teacher opened it.
function renderExercises(exercises) {
  const done = exercises.filter(tried);
  const rest = exercises.filter((ex) => !tried(ex));
  document.getElementById('dash-exercises-body').replaceChildren(...done.map(exerciseRow));
  document.getElementById('dash-exercises-wrap').hidden = done.length === 0;
  document.getElementById('dash-none-tried').hidden = done.length > 0;
  const fold = document.getElementById('dash-untried');
  fold.hidden = rest.length === 0;
  fold.querySelector('summary').textContent = untriedWord(rest.length);
  document.getElementById('dash-untried-list').replaceChildren(...rest.map((ex) =>
    el('li', { 'data-testid': 'untried-exercise', 'data-exercise': ex.id }, ex.title,
      ex.lesson ? el('span', { class: 'hint' }, ' · ' + ex.lesson) : '')));
}

// renderGrid draws the learners grid with a column per tried exercise,
// headed by its title (cut short on screen, whole in the tooltip and for
// screen readers), as class.templ does.
function renderGrid(exercises, learners) {
  const cols = [];
  exercises.forEach((ex, i) => { if (tried(ex)) cols.push(i); });
  document.getElementById('dash-grid-head').replaceChildren(
    el('th', { scope: 'col' }, 'Learner'),
    el('th', { scope: 'col' }, 'Solved'),
    el('th', { scope: 'col' }, 'Score'),
    ...cols.map((i) => el('th', { scope: 'col', class: 'ex-col', 'data-exercise': exercises[i].id, title: exercises[i].title },
      el('span', { class: 'ex-col-title' }, exercises[i].title))),
    el('th', { scope: 'col' }, el('span', { class: 'visually-hidden' }, 'Remove')));
  document.getElementById('dash-grid-body').replaceChildren(...learners.map((l) => el('tr',
    { 'data-testid': 'dash-learner', 'data-learner': String(l.id) },
    el('th', { scope: 'row', 'data-stuck': String(l.stuck), title: activeTitle(l.last_active), 'data-last-active': l.last_active },
      el('span', { 'data-testid': 'learner-name' }, l.name),
      l.stuck ? el('span', { class: 'stuck', 'data-testid': 'learner-stuck' }, 'stuck on ' + l.current_title)
        : l.current_title ? el('span', { class: 'hint current', 'data-testid': 'learner-current' }, 'on ' + l.current_title) : ''),
    el('td', { 'data-testid': 'learner-solved' }, l.correct),
    el('td', { 'data-testid': 'learner-score' }, l.score),
    ...cols.map((i) => gridCell(l, exercises[i], cellOf(l.cells[i]))),
    el('td', {}, el('button', { type: 'button', class: 'remove', 'data-remove': String(l.id), 'data-name': l.name }, 'Remove')))));
}

// gridCell is learner l's cell c on exercise ex, as class.templ draws it.
function gridCell(l, ex, c) {
  return el('td', { class: ('cell ' + c.state).trim(), 'data-exercise': ex.id, 'data-status': c.status, 'data-score': c.score,
    title: ex.title + ': ' + c.title }, c.text, c.late ? lateCreditButton(l, ex, c.late_credit) : '');
}

// lateCreditButton is the same button as class.templ's: one click grants
// the learner credit for their late work on the exercise, or withdraws it.
function lateCreditButton(l, ex, credited) {
  return el('button', {
    type: 'button', class: 'late-credit', 'data-testid': 'late-credit', 'data-learner': String(l.id), 'data-exercise': ex.id,
    'data-credit': String(!credited),
    'aria-label': credited ? 'Withdraw the credit for ' + l.name + "'s late work on " + ex.title
      : 'Credit ' + l.name + "'s late work on " + ex.title + ' as if on time',
  }, credited ? 'Undo' : 'Credit');
}

// renderLifecycle shows whether the class is open, archived or expired;
// a closed class refuses every change but restoring it, so those buttons
// are off until then.
function renderLifecycle(lc) {
  const line = document.getElementById('lifecycle');
  line.textContent = lc.text;
  line.dataset.status = lc.status;
  const closed = lc.status !== 'open';
  classClosed = closed;
  const archive = document.getElementById('archive-class');
  archive.dataset.closed = String(closed);
  archive.textContent = closed ? 'Restore class' : 'Archive class';
  for (const id of ['toggle-joining', 'rotate-code']) document.getElementById(id).disabled = closed;
  // A closed class takes nobody, whatever its switch says ("joining is
  // closed" beside it): its switch is not offered until it is restored.
  document.getElementById('toggle-joining').hidden = closed;
  for (const b of document.querySelectorAll('#push-form button, #settings-form button, [data-testid=review-save], [data-testid=late-credit]')) b.disabled = closed;
}

// activeTitle is a learner's row's tooltip, in the teacher's own time
// (class.templ writes it in UTC, for a page without this script).
function activeTitle(iso) {
  return 'last active ' + new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}
for (const th of document.querySelectorAll('th[data-last-active]')) th.title = activeTitle(th.dataset.lastActive);

function learnersWord(n) { return n === 1 ? '1 learner' : n + ' learners'; }

// scoreText writes a score to the millionth, as the server's views do.
function scoreText(r) { return r ? String(Math.round(r.score * 1e6) / 1e6) : ''; }

// reviewState is what a card says of its score (class.templ's
// reviewState): an answer written since the teacher's score is not
// scored yet, and the score it shows was the earlier answer's.
function reviewState(a) {
  if (!a.review) return 'not scored yet';
  if (a.rescore) return 'not scored yet: ' + scoreText(a.review) + ' was for an earlier answer';
  return 'scored ' + scoreText(a.review);
}

// answerCard is the same form as the page's first render (class.templ's
// answerCard): one learner's latest open answer and its score.
function answerCard(a) {
  const form = el('form', { class: 'card answer-card', 'data-testid': 'answer-card', 'data-learner': String(a.learner_id), 'data-exercise': a.exercise },
    el('p', { class: 'answer-who' }, el('strong', {}, a.learner), ' on ', el('em', {}, a.exercise_title),
      a.earlier > 0 ? el('span', { class: 'hint' }, ' (and ' + a.earlier + ' earlier)') : ''),
    a.saw_model ? el('p', { class: 'hint saw-model', 'data-testid': 'answer-saw-model' }, 'Written after the model answer was shown to ' + a.learner + '.') : '',
    a.late ? el('p', { class: 'hint answer-late', 'data-testid': 'answer-late' }, "Sent after the class's deadline.") : '',
    el('blockquote', { class: 'answer-text', 'data-testid': 'answer-text' }, a.answer),
    a.earlier_answers.length ? el('details', { class: 'answer-earlier', 'data-testid': 'answer-earlier' },
      el('summary', {}, 'Earlier answers'),
      el('ol', {}, ...a.earlier_answers.map((e) => el('li', { 'data-testid': 'answer-earlier-text' }, e.answer,
        e.saw_model ? el('span', { class: 'hint' }, ' (after the model answer)') : '')))) : '',
    el('div', { class: 'answer-score' },
      el('label', {}, 'Score (0 to 1) ', el('input', { type: 'number', name: 'score', min: '0', max: '1', step: '0.25', required: true, value: scoreText(a.review), 'data-testid': 'review-score' })),
      el('label', {}, 'Comment ', el('input', { type: 'text', name: 'comment', maxLength: 2000, value: a.review ? a.review.comment : '', 'data-testid': 'review-comment' })),
      el('button', { type: 'submit', 'data-testid': 'review-save' }, 'Save'),
      el('span', { class: 'hint review-state', role: 'status', 'data-testid': 'review-state' }, reviewState(a))));
  return form;
}

// renderKeys redraws the rubric and model answer of each exercise that has
// answers to mark, keeping open the ones the teacher opened.
function renderKeys(keys) {
  const box = document.getElementById('dash-keys');
  const open = new Set([...box.querySelectorAll('details[open]')].map((d) => d.dataset.exercise));
  box.replaceChildren(...keys.map((k) => {
    const d = el('details', { class: 'answer-key', 'data-testid': 'answer-key', 'data-exercise': k.exercise },
      el('summary', {}, 'How to mark ', el('em', {}, k.title), ': the rubric and a model answer'),
      el('ul', { class: 'rubric' }, ...k.rubric.map((p) => el('li', {}, p))),
      el('blockquote', { class: 'model-answer' }));
    // The server renders the model answer's Markdown (model_answer_html).
    d.querySelector('.model-answer').innerHTML = k.model_answer_html;
    d.open = open.has(k.exercise);
    return d;
  }));
}

// renderAnswers redraws the open answers, except a card the teacher is
// typing in, which keeps what was typed.
function renderAnswers(answers) {
  const box = document.getElementById('dash-answers');
  const editing = box.contains(document.activeElement) ? document.activeElement.closest('form') : null;
  const cards = answers.map((a) => {
    if (editing && editing.dataset.learner === String(a.learner_id) && editing.dataset.exercise === a.exercise) return editing;
    return answerCard(a);
  });
  box.replaceChildren(...cards);
  document.getElementById('answer-count').textContent = String(answers.length);
  const toMark = answers.filter((a) => !a.review || a.rescore).length;
  document.getElementById('jump-to-mark').textContent = toMark === 0 ? 'No answers to mark'
    : toMark === 1 ? '1 answer to mark' : toMark + ' answers to mark';
}

// setCode follows a rotated join code: the address bar, the links and
// the event stream.
function setCode(c) {
  if (c === code) return;
  code = c;
  root.dataset.code = c;
  history.replaceState(null, '', '/class/' + encodeURIComponent(c) + '/teacher');
  document.querySelector('[data-testid=dash-code]').textContent = c;
  const join = document.querySelector('[data-testid=dash-join-link]');
  join.href = location.origin + '/class?code=' + encodeURIComponent(c);
  join.textContent = join.href;
  document.getElementById('csv-long').href = '/api/classes/' + encodeURIComponent(c) + '/progress.csv';
  document.getElementById('csv-wide').href = '/api/classes/' + encodeURIComponent(c) + '/progress-wide.csv';
  document.getElementById('csv-answers').href = '/api/classes/' + encodeURIComponent(c) + '/answers.csv';
  document.getElementById('csv-attempts').href = '/api/classes/' + encodeURIComponent(c) + '/attempts.csv';
  for (const a of document.querySelectorAll('a[data-gradebook]')) a.href = '/api/classes/' + encodeURIComponent(c) + '/gradebook.csv?' + a.dataset.gradebook;
  const roster = document.querySelector('[data-testid=roster-link]');
  if (roster) roster.href = '/class/' + encodeURIComponent(c) + '/roster';
  connect();
}

function connect() {
  if (source) source.close();
  source = new EventSource('/api/classes/' + encodeURIComponent(code) + '/events');
  source.addEventListener('open', () => {
    status.textContent = 'Live: updates as learners answer.';
    root.dataset.live = 'open';
  });
  source.addEventListener('dashboard', (e) => {
    render(JSON.parse(e.data));
    status.textContent = 'Live: updated ' + new Date().toLocaleTimeString() + '.';
    root.dataset.updates = String(Number(root.dataset.updates || 0) + 1);
  });
  // The "Grades to <course>" panel's own events, for grades.js.
  source.addEventListener('grades', (e) => {
    root.dispatchEvent(new CustomEvent('grades', { detail: JSON.parse(e.data) }));
  });
  source.addEventListener('bye', () => { status.textContent = 'The server is restarting; reconnecting…'; });
  source.addEventListener('error', () => {
    root.dataset.live = 'lost';
    status.textContent = source.readyState === EventSource.CLOSED
      ? 'Live updates stopped (is the teacher link still valid?). Reload the page to try again.'
      : 'Connection lost; reconnecting…';
  });
}

async function send(method, path, body) {
  showError('');
  const res = await fetch(path, {
    method,
    headers: { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
  });
  if (res.status === 204) return {};
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    const retry = res.headers.get('Retry-After');
    const err = new Error((data.error || res.statusText) + (retry ? ' (retry in ' + retry + ' s)' : ''));
    err.code = data.code;
    throw err;
  }
  return data;
}

function api(path) { return '/api/classes/' + encodeURIComponent(code) + path; }

async function act(f) {
  try {
    await f();
  } catch (err) {
    showError(err.message);
  }
}

document.getElementById('toggle-joining').addEventListener('click', (e) => act(async () => {
  const open = e.currentTarget.dataset.open !== 'true';
  await send('POST', api('/joining'), { open });
}));

document.getElementById('rotate-code').addEventListener('click', () => act(async () => {
  const res = await send('POST', api('/code'), {});
  setCode(res.code);
}));

document.getElementById('dash-grid-body').addEventListener('click', (e) => {
  const credit = e.target.closest('button.late-credit');
  if (credit) {
    credit.disabled = true; // the live update redraws the cell
    act(() => send('POST', api('/late-credit'), {
      learner_id: Number(credit.dataset.learner), exercise: credit.dataset.exercise, credit: credit.dataset.credit === 'true',
    }).finally(() => { credit.disabled = false; }));
    return;
  }
  const b = e.target.closest('button[data-remove]');
  if (!b) return;
  if (!window.confirm('Remove ' + b.dataset.name + ' and all their answers from the class?')) return;
  act(() => send('DELETE', api('/learners/' + encodeURIComponent(b.dataset.remove))));
});

document.getElementById('archive-class').addEventListener('click', (e) => {
  const closed = e.currentTarget.dataset.closed === 'true';
  if (!closed && !window.confirm('Archive this class? Learners can no longer join or answer, and the class with all its answers is deleted after a grace period (download the CSVs first). You can restore it until then.')) return;
  act(() => send('POST', api('/archive'), { archived: !closed }));
});

document.getElementById('dash-answers').addEventListener('submit', (e) => {
  e.preventDefault();
  const form = e.target.closest('form');
  const state = form.querySelector('[data-testid=review-state]');
  const score = Number(form.elements.score.value);
  act(async () => {
    state.textContent = 'saving…';
    try {
      const r = await send('POST', api('/reviews'), {
        learner_id: Number(form.dataset.learner), exercise: form.dataset.exercise, score, comment: form.elements.comment.value,
      });
      state.textContent = 'scored ' + scoreText(r);
    } catch (err) {
      state.textContent = 'not saved';
      throw err;
    }
  });
});

const pushForm = document.getElementById('push-form');
pushForm.addEventListener('submit', (e) => {
  e.preventDefault();
  const f = pushForm.elements;
  const link = f.link.value.trim();
  // The last thing the teacher picked wins: a link, a lesson, an exercise, a preset.
  const body = link ? { link } : f.lesson.value ? { lesson: f.lesson.value }
    : f.exercise.value ? { exercise: f.exercise.value } : f.preset.value ? { preset: f.preset.value } : null;
  if (!body) {
    // Nothing picked: Push would take the push down, which is Clear's job.
    showError('Pick a preset, a lesson or an exercise, or paste a share link, then press Push (Clear takes the push down).');
    return;
  }
  act(async () => {
    await send('POST', api('/push'), body);
    f.link.value = '';
  });
});
for (const name of ['preset', 'lesson', 'exercise']) {
  // Picking one clears the others, so what is pushed is what is shown.
  pushForm.elements[name].addEventListener('change', () => {
    for (const other of ['preset', 'lesson', 'exercise']) if (other !== name) pushForm.elements[other].value = '';
  });
}
document.getElementById('push-clear').addEventListener('click', () => act(() => send('POST', api('/push'), {})));

// The settings form: quiz mode, open lessons, deadline. The deadline is
// typed in the teacher's time zone and sent in UTC.
const settingsForm = document.getElementById('settings-form');
const settingsState = document.getElementById('settings-state');
function localInput(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60000).toISOString().slice(0, 16);
}
// settingsShown is the settings the form was last drawn from, which a
// save sends as if_unchanged: the server refuses it if another tab (or
// another teacher) saved since. Once the teacher has changed the form
// (settingsEdited), a change heard live is not drawn over it but said;
// the save then shows it, and undoes nothing. settingsLatest is the
// class's settings as last heard of.
let settingsShown = JSON.parse(settingsForm.dataset.settings);
let settingsLatest = settingsShown;
let settingsEdited = false;
let settingsSaving = false;
let heardWhileSaving = false;
for (const type of ['input', 'change']) settingsForm.addEventListener(type, () => { settingsEdited = true; });
function renderSettings(s, force) {
  if (!s) return;
  settingsLatest = s;
  if (!force && settingsSaving) {
    heardWhileSaving = true;
    return;
  }
  if (!force && settingsEdited) {
    if (!sameSettings(s, settingsShown)) settingsState.textContent = 'changed in another window meanwhile: saving undoes nothing, it shows you that change first';
    return;
  }
  settingsShown = s;
  settingsEdited = false;
  settingsForm.elements.show_me.checked = s.show_me;
  for (const box of settingsForm.querySelectorAll('input[name=open]')) box.checked = (s.open_lessons || []).includes(box.value);
  settingsForm.elements.deadline.value = localInput(s.deadline);
}
function sameSettings(a, b) {
  const open = (x) => [...new Set(x.open_lessons || [])].sort().join(' ');
  return a.show_me === b.show_me && open(a) === open(b) && (a.deadline ? Date.parse(a.deadline) : null) === (b.deadline ? Date.parse(b.deadline) : null);
}
settingsForm.elements.deadline.value = localInput(settingsForm.dataset.deadline);
settingsForm.addEventListener('submit', (e) => {
  e.preventDefault();
  const f = settingsForm.elements;
  const body = {
    show_me: f.show_me.checked,
    open_lessons: [...settingsForm.querySelectorAll('input[name=open]:checked')].map((b) => b.value),
    deadline: f.deadline.value ? new Date(f.deadline.value).toISOString() : null,
    if_unchanged: settingsShown,
  };
  act(async () => {
    settingsState.textContent = 'saving…';
    settingsSaving = true;
    heardWhileSaving = false;
    let saved;
    try {
      saved = await send('POST', api('/settings'), body);
      const n = saved.late_lifted || 0;
      settingsState.textContent = n === 0 ? 'saved'
        // late_lifted counts a learner's exercises, the grid's cells.
        : 'saved: the later deadline puts the late work in ' + (n === 1 ? 'one cell' : n + ' cells') + ' of the grid on time, rescored';
    } catch (err) {
      if (err.code !== 'settings_changed') {
        settingsState.textContent = 'not saved';
        throw err;
      }
      // Another tab saved first: the form shows what it saved (below),
      // and the teacher makes this change again on top of it.
      settingsState.textContent = 'not saved: these settings were changed in another window meanwhile, and the form now shows them. Make your change again and save.';
    } finally {
      settingsSaving = false;
    }
    // The answer to the save is the settings as it left them; a change
    // heard meanwhile may be newer, so the class is read again then.
    if (saved && !heardWhileSaving) {
      renderSettings(saved.settings, true);
    } else {
      const v = await send('GET', api('/dashboard'));
      renderSettings(v.class.settings, true);
    }
  });
});

// The predictions chart: the class's first answers as bars, redrawn on
// every live update; which answer is right only after Reveal. shown is
// whether the marks are on the chart: null until the teacher chooses,
// which follows the class (an exercise revealed before, on another day
// or in another tab, shows its answer again).
const pollSelect = document.getElementById('poll-exercise');
const pollReveal = document.getElementById('poll-reveal');
const pollState = document.getElementById('poll-state');
let shown = null;
let classRevealed = false;
// classClosed: an archived or expired class takes no reveal (the server
// refuses it), so the chart's button there only shows and hides the marks.
let classClosed = false;
async function refreshPoll() {
  const id = pollSelect.value;
  pollReveal.disabled = !id;
  if (!id) {
    document.getElementById('poll-bars').replaceChildren();
    document.getElementById('poll-total').textContent = '';
    pollState.textContent = '';
    return;
  }
  let p = await send('GET', api('/predictions?exercise=' + encodeURIComponent(id) + (shown ? '&reveal=1' : '')));
  if (pollSelect.value !== id) return;
  if (shown === null && p.class_revealed) {
    shown = true;
    p = await send('GET', api('/predictions?exercise=' + encodeURIComponent(id) + '&reveal=1'));
    if (pollSelect.value !== id) return;
  }
  classRevealed = p.class_revealed;
  const most = Math.max(1, ...p.answers.map((a) => a.count));
  document.getElementById('poll-total').textContent = (p.total === 1 ? '1 learner answered' : p.total + ' learners answered') +
    (p.ran_first ? '; ' + (p.ran_first === p.total && p.total > 1 ? 'all' : p.ran_first) + ' had run this very scenario before predicting' : '');
  document.getElementById('poll-bars').replaceChildren(...p.answers.map((a) => {
    const mark = a.right === undefined ? '' : a.right ? ' ✓ right' : '';
    const bar = el('div', { class: 'poll-bar' + (a.right === undefined ? '' : a.right ? ' right' : ' wrong') });
    bar.style.width = (100 * a.count / most) + '%';
    return el('div', { class: 'poll-row', 'data-testid': 'poll-row', 'data-right': a.right === undefined ? '' : String(a.right) },
      el('span', { class: 'poll-answer', title: a.answer }, (a.label || a.answer) + mark),
      el('span', { class: 'poll-track' }, bar),
      el('span', { class: 'poll-count', 'data-testid': 'poll-count', title: a.ran_first ? a.ran_first + ' of them had run the scenario first' : '' }, a.count));
  }));
  pollReveal.textContent = shown ? 'Hide the answer' : classRevealed || classClosed ? 'Show the answer' : 'Reveal the answer';
  pollState.textContent = classRevealed ? 'Revealed to the class: answers to this exercise now earn nothing.' : '';
}
pollSelect.addEventListener('change', () => { shown = null; act(refreshPoll); });
pollReveal.addEventListener('click', () => act(async () => {
  // The first reveal is the class's (a POST: answers after it earn
  // nothing, and it cannot be taken back), so it is asked first; hiding
  // and showing again only move the marks on the chart, as every press
  // does on a closed class.
  if (!shown && !classRevealed && !classClosed) {
    if (!window.confirm('Reveal the answer to the class? From now on, answers to this exercise earn nothing for anyone who has not solved it. What was earned before stands. This cannot be undone.')) return;
    await send('POST', api('/reveal'), { exercise: pollSelect.value });
  }
  shown = !shown;
  await refreshPoll();
}));

// The Gradebook menu closes as a menu does: on a click or a tap anywhere
// else, and on Escape (focus goes back to its button).
const gradebookMenu = document.querySelector('[data-testid=gradebook-menu]');
document.addEventListener('click', (e) => {
  if (gradebookMenu.open && !gradebookMenu.contains(e.target)) gradebookMenu.open = false;
});
gradebookMenu.addEventListener('keydown', (e) => {
  if (e.key === 'Escape' && gradebookMenu.open) {
    gradebookMenu.open = false;
    gradebookMenu.querySelector('summary').focus();
  }
});

connect();
