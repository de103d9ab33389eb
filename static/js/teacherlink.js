// The private teacher link, /class/teacher#key=KEY: the key sits in the
// fragment, which the browser never sends, so it appears in no access log
// or proxy. This script posts it once as a Bearer token; the server sets
// an HttpOnly cookie and says where the dashboard is.

const status = document.getElementById('teacher-link-status');
const key = new URLSearchParams(location.hash.slice(1)).get('key');

async function open() {
  if (!key) {
    status.textContent = 'This link has no teacher key. Open the full private link you got when you created the class.';
    return;
  }
  const res = await fetch('/api/teacher/session', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: 'Bearer ' + key },
    body: '{}',
    credentials: 'same-origin',
  });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    status.textContent = data.error || ('The server answered ' + res.status + '.');
    return;
  }
  // Drop the key from the address bar and the history.
  history.replaceState(null, '', '/class/teacher');
  location.replace(data.dashboard);
}

open().catch((err) => { status.textContent = 'Could not reach the server: ' + err.message; });
