// The teacher's dashboard: redraws the tables from the server's live
// events, and sends the teacher's actions (push a scenario, rotate the
// code, open or close joining, remove a learner, archive or restore the
// class) as JSON. Names are put
// into the page with textContent only: a learner may be called
// "<script>".

const root = document.querySelector('[data-testid=dashboard]');
const status = document.getElementById('live-status');
const errorBox = document.getElementById('dash-error');
let code = root.dataset.code;
let source = null;
let exerciseTitles = [];

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else if (k.startsWith('data-')) e.setAttribute(k, v);
    else e[k] = v;
  }
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}

function showError(msg) {
  errorBox.textContent = msg;
  errorBox.hidden = !msg;
}

function cellText(c) {
  if (c.correct) return '✓ ' + c.tries;
  if (c.tries > 0) return '✗ ' + c.tries;
  return '';
}

function cellState(c) {
  if (c.correct) return 'correct';
  if (c.tries > 0) return 'tried';
  return '';
}

function render(v) {
  setCode(v.class.code);
  document.querySelector('[data-testid=dash-class-name]').textContent = v.class.name;
  document.querySelector('[data-testid=dash-joining]').textContent = v.class.join_open ? 'open' : 'closed';
  const toggle = document.getElementById('toggle-joining');
  toggle.dataset.open = String(v.class.join_open);
  toggle.textContent = v.class.join_open ? 'Close joining' : 'Open joining';
  renderLifecycle(v.class.lifecycle);
  const current = document.getElementById('push-current');
  if (v.class.scenario) {
    current.replaceChildren(el('a', { href: v.class.scenario.url }, v.class.scenario.label));
  } else {
    current.replaceChildren('nothing');
  }

  exerciseTitles = v.exercises.map((ex) => ex.title);
  document.getElementById('dash-exercises-body').replaceChildren(...v.exercises.map((ex) => {
    const wrong = ex.wrong.length === 0 ? '' : el('ul', { class: 'wrong' }, ...ex.wrong.map((w) =>
      el('li', { 'data-testid': 'wrong-answer' }, el('code', {}, w.answer), ' ',
        el('span', { class: 'hint' }, w.learners === 1 ? '1 learner' : w.learners + ' learners'))));
    return el('tr', { 'data-testid': 'dash-exercise', 'data-exercise': ex.id },
      el('th', { scope: 'row' }, ex.title),
      el('td', { 'data-testid': 'ex-attempted' }, ex.attempted),
      el('td', { 'data-testid': 'ex-correct' }, ex.correct),
      el('td', { 'data-testid': 'ex-tries' }, ex.tries),
      el('td', {}, wrong));
  }));

  document.getElementById('dash-grid-head').replaceChildren(
    el('th', { scope: 'col' }, 'Learner'),
    el('th', { scope: 'col' }, 'Solved'),
    ...v.exercises.map((ex) => el('th', { scope: 'col', title: ex.title }, ex.id)),
    el('th', { scope: 'col' }, el('span', { class: 'visually-hidden' }, 'Remove')));
  document.getElementById('dash-grid-body').replaceChildren(...v.learners.map((l) => el('tr',
    { 'data-testid': 'dash-learner', 'data-learner': String(l.id) },
    el('th', { scope: 'row', 'data-testid': 'learner-name' }, l.name),
    el('td', { 'data-testid': 'learner-solved' }, l.correct),
    ...l.cells.map((c, i) => el('td', { class: ('cell ' + cellState(c)).trim(), title: exerciseTitles[i] || '' }, cellText(c))),
    el('td', {}, el('button', { type: 'button', class: 'remove', 'data-remove': String(l.id), 'data-name': l.name }, 'Remove')))));
  document.getElementById('learner-count').textContent = String(v.learners.length);
}

// renderLifecycle shows whether the class is open, archived or expired;
// a closed class refuses every change but restoring it, so those buttons
// are off until then.
function renderLifecycle(lc) {
  const line = document.getElementById('lifecycle');
  line.textContent = lc.text;
  line.dataset.status = lc.status;
  const closed = lc.status !== 'open';
  const archive = document.getElementById('archive-class');
  archive.dataset.closed = String(closed);
  archive.textContent = closed ? 'Restore class' : 'Archive class';
  for (const id of ['toggle-joining', 'rotate-code']) document.getElementById(id).disabled = closed;
  for (const b of document.querySelectorAll('#push-form button')) b.disabled = closed;
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
  connect();
}

function connect() {
  if (source) source.close();
  source = new EventSource('/api/classes/' + encodeURIComponent(code) + '/events');
  source.addEventListener('open', () => { status.textContent = 'Live: updates as learners answer.'; });
  source.addEventListener('dashboard', (e) => {
    render(JSON.parse(e.data));
    status.textContent = 'Live: updated ' + new Date().toLocaleTimeString() + '.';
    root.dataset.updates = String(Number(root.dataset.updates || 0) + 1);
  });
  source.addEventListener('bye', () => { status.textContent = 'The server is restarting; reconnecting…'; });
  source.addEventListener('error', () => {
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
    throw new Error((data.error || res.statusText) + (retry ? ' (retry in ' + retry + ' s)' : ''));
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

const pushForm = document.getElementById('push-form');
pushForm.addEventListener('submit', (e) => {
  e.preventDefault();
  const preset = pushForm.elements.preset.value;
  const link = pushForm.elements.link.value.trim();
  act(async () => {
    await send('POST', api('/scenario'), link ? { link } : { preset });
    pushForm.elements.link.value = '';
  });
});
document.getElementById('push-clear').addEventListener('click', () => act(() => send('POST', api('/scenario'), {})));

connect();
