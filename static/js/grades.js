// The dashboard's "Grades to <course>" panel (class_grades.templ), on a
// class of a course: redrawn from GET .../lti/grades every half minute
// while the page is seen, and after "Send again", which has the class's
// grades the queue gave up on tried again. The words come worked out by
// the server (gradesOf in web/lti_grades.go) and go in as text only.

const panel = document.getElementById('grades-out');
const root = document.querySelector('[data-testid=dashboard]');
const retry = document.getElementById('grades-retry');
const state = document.getElementById('grades-state');

function part(id) { return panel.querySelector('[data-testid=' + id + ']'); }

// The class's code may change while the page is open (a new join code):
// the dashboard keeps the current one on its root.
function url(path) { return '/api/classes/' + encodeURIComponent(root.dataset.code) + '/lti/grades' + path; }

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
  retry.hidden = !g.given_up_text;
  const err = g.given_up_text && g.last_error ? g.last_error : g.waiting_text ? g.retry_error || '' : '';
  part('grades-error').hidden = !err;
  part('grades-error-text').textContent = err;
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

async function refresh() {
  try {
    render(await call('GET', ''));
    // The panel says how it stands now: an earlier word on Send again,
    // or on a read that failed, is out of date.
    state.textContent = '';
  } catch (err) {
    state.textContent = 'The grades could not be read just now (' + err.message + ').';
  }
}

function count(n, one, many) { return n === 1 ? '1 ' + one : n + ' ' + many; }

retry.addEventListener('click', async () => {
  retry.disabled = true;
  state.textContent = 'Sending again…';
  try {
    const r = await call('POST', '/retry', {});
    render(r.grades);
    const parts = [];
    if (r.scores) parts.push(count(r.scores, 'score', 'scores'));
    if (r.reveals) parts.push(count(r.reveals, 'revealed exercise', 'revealed exercises'));
    state.textContent = parts.length ? parts.join(' and ') + ' to be sent again now.' : 'Nothing was left to send again.';
    // The queue sends at once: show how it went.
    setTimeout(refresh, 3000);
  } catch (err) {
    state.textContent = 'Could not send again: ' + err.message;
  } finally {
    retry.disabled = false;
  }
});

setInterval(() => { if (!document.hidden) refresh(); }, 30000);
