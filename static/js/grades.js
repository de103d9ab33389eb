// The dashboard's "Grades to <course>" panel (class_grades.templ), on a
// class of a course: redrawn live from the dashboard's stream, whose
// "grades" events teacher.js hands on as it hears them (a score queued,
// sent, to be tried again, given up or sent again: web/class_grades_live.go),
// and after "Send again", which has the class's grades the queue gave up
// on tried again. While the stream is down it is read from GET
// .../lti/grades once a minute instead, and once shortly after Send again
// for how it went. A read that fails (the stream's, or the page's) is
// said on the status line until the next good one. The words come worked
// out by the server (gradesOf in web/lti_grades.go) and go in as text
// only.

const panel = document.getElementById('grades-out');
const root = document.querySelector('[data-testid=dashboard]');
const retry = document.getElementById('grades-retry');
const state = document.getElementById('grades-state');
const heading = document.getElementById('grades-out-heading');

// How often the panel is read while the dashboard's stream is down.
const fallbackEvery = 60000;

// How soon after Send again the panel is read, with the stream down, for
// how it went: the queue tries at once.
const sentAgainRead = 3000;

// After Send again, the panel's words as its answer left them: the
// first panel that reads otherwise says in the status line how it went.
let awaiting = null;

function part(id) { return panel.querySelector('[data-testid=' + id + ']'); }

// The class's code may change while the page is open (a new join code):
// the dashboard keeps the current one on its root.
function url(path) { return '/api/classes/' + encodeURIComponent(root.dataset.code) + '/lti/grades' + path; }

function words(g) { return [g.state, g.sent_text, g.waiting_text, g.given_up_text].join('|'); }

// outcome says in one sentence how the grades stand: what the status line
// says once the scores sent again have been tried.
function outcome(g) {
  if (g.given_up_text) return g.given_up_text + '.' + (g.problem ? ' ' + g.problem : '');
  if (g.waiting_text) return g.waiting_text + '.' + (g.retry_problem_words ? ' ' + g.retry_problem_words : '');
  return g.sent_text + ': nothing waits and nothing is given up.';
}

function render(g) {
  panel.dataset.state = g.state;
  const jump = document.getElementById('jump-to-grades');
  jump.dataset.state = g.state;
  jump.textContent = g.jump_text;
  part('grades-course').textContent = g.course;
  part('grades-sent').textContent = g.sent_text;
  part('grades-waiting').hidden = !g.waiting_text;
  part('grades-waiting-text').textContent = g.waiting_text || '';
  part('grades-retry-problem').textContent = g.retry_problem_words || '';
  part('grades-given-up').hidden = !g.given_up_text;
  part('grades-given-up-text').textContent = g.given_up_text || '';
  part('grades-problem').textContent = g.problem || '';
  part('grades-unmatched').hidden = !g.unmatched_text;
  part('grades-unmatched').textContent = g.unmatched_text || '';
  // Send again going away under the keyboard leaves the focus in the
  // panel, not lost at the top of the page.
  const focused = document.activeElement === retry;
  retry.hidden = !g.given_up_text;
  if (focused && retry.hidden) heading.focus();
  const err = g.given_up_text && g.last_error ? g.last_error : g.waiting_text ? g.retry_error || '' : '';
  part('grades-error').hidden = !err;
  part('grades-error-text').textContent = err;
  if (awaiting !== null && words(g) !== awaiting) {
    awaiting = null;
    state.textContent = outcome(g);
  }
}

async function call(method, path, body) {
  const res = await fetch(url(path), {
    method,
    headers: { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
  });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(data.error || res.statusText);
  return data;
}

// unread says on the status line that the panel could not be read: what
// it shows may be out of date.
function unread(words) {
  state.textContent = words;
  state.dataset.failed = '1';
}

// read draws a panel read well: a word on a read that failed is out of
// date.
function read(g) {
  if (state.dataset.failed) {
    state.textContent = '';
    delete state.dataset.failed;
  }
  render(g);
}

// refresh reads the panel while the stream is down.
async function refresh() {
  try {
    read(await call('GET', ''));
  } catch (err) {
    unread('Could not read the grades (' + err.message + '); trying again in a minute.');
  }
}

function count(n, one, many) { return n === 1 ? '1 ' + one : n + ' ' + many; }

retry.addEventListener('click', async () => {
  const focused = document.activeElement === retry;
  retry.disabled = true;
  awaiting = null;
  state.textContent = 'Sending again…';
  delete state.dataset.failed;
  try {
    const r = await call('POST', '/retry', {});
    const parts = [];
    if (r.scores) parts.push(count(r.scores, 'score', 'scores'));
    if (r.reveals) parts.push(count(r.reveals, 'revealed exercise', 'revealed exercises'));
    state.textContent = parts.length ? parts.join(' and ') + ' to be sent again now.' : 'Nothing was left to send again.';
    // The queue sends at once, and the stream says how it went; or it
    // already has.
    if (parts.length && r.grades.waiting_text) awaiting = words(r.grades);
    else if (parts.length) state.textContent = outcome(r.grades);
    retry.disabled = false;
    render(r.grades);
    if (awaiting !== null && root.dataset.live !== 'open') setTimeout(refresh, sentAgainRead);
    // A disabled button loses the focus: it goes back to Send again, or,
    // with nothing left to send again, to the card's heading.
    if (focused) (retry.hidden ? heading : retry).focus();
  } catch (err) {
    state.textContent = 'Could not send again: ' + err.message;
    retry.disabled = false;
    if (focused) retry.focus();
  }
});

// The stream's read of the panel may fail: it says so, and reads again.
root.addEventListener('grades', (e) => (e.detail.unread ? unread(e.detail.unread) : read(e.detail)));

setInterval(() => { if (!document.hidden && root.dataset.live !== 'open') refresh(); }, fallbackEvery);
