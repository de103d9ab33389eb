// On the playground and the lesson pages, a learner in a class sees what
// their teacher pushed (a scenario, a lesson or an exercise) as a banner
// with a button: never a jump away from what they are typing. The banner
// follows the teacher live: the class is read again every few seconds
// while the page is visible. The same read carries the class's settings:
// in quiz mode the "show me" buttons and solutions are hidden (the server
// refuses them anyway), and a lesson not open yet says so.
// The session cookie is HttpOnly, so a second cookie without any secret
// (pg_class=1) says whether asking /api/me is worth a request.
// Loaded by classbanner.js for a learner in a class only.

(function classBanner() {
  const banner = document.getElementById('class-banner');
  if (!banner) return;
  const every = 5000;
  let shown = '';

  function draw(cl) {
    const html = document.documentElement;
    const s = cl.settings || { show_me: true, open_lessons: [] };
    html.toggleAttribute('data-class-quiz', s.show_me === false);
    const lesson = document.querySelector('[data-testid=lesson]');
    const closed = lesson && s.open_lessons && s.open_lessons.length > 0 && !s.open_lessons.includes(lesson.dataset.slug);
    html.toggleAttribute('data-class-closed', !!closed);

    const sc = cl.scenario;
    const key = JSON.stringify([sc && sc.url, sc && sc.pushed_at, closed, s.show_me, cl.name]);
    if (key === shown) return;
    shown = key;
    const parts = [];
    // One line each (the banner is a <p>, so lines are block spans).
    const line = (...kids) => {
      const s = document.createElement('span');
      s.style.display = 'block';
      s.append(...kids);
      parts.push(s);
    };
    if (closed) {
      line(Object.assign(document.createElement('strong'), { textContent: 'Not open yet: ' }),
        'your teacher opens the lessons one at a time; this one is for later. Reading is fine, checks wait.');
    }
    if (sc) {
      const what = sc.kind === 'lesson' ? 'a lesson' : sc.kind === 'exercise' ? 'an exercise' : 'a scenario';
      const strong = document.createElement('strong');
      strong.textContent = 'Your teacher shared ' + what + (cl.name ? ' in ' + cl.name : '') + ': ';
      const link = document.createElement('a');
      link.href = sc.url;
      link.className = 'button';
      link.textContent = 'Open ' + sc.label;
      link.dataset.testid = 'class-banner-link';
      const here = location.pathname + location.search;
      line(strong, link, here === sc.url.split('#')[0] ? ' (this page)' : '');
    }
    if (s.show_me === false) line('Quiz mode: answers are not shown for now.');
    banner.replaceChildren(...parts);
    banner.hidden = parts.length === 0;
  }

  async function read() {
    if (document.visibilityState !== 'hidden') {
      const res = await fetch('/api/me', { credentials: 'same-origin' });
      if (res.status === 401 || res.status === 404) return; // not in a class any more
      if (res.ok) draw((await res.json()).class || {});
    }
    setTimeout(() => read().catch(() => setTimeout(read, every)), every);
  }
  read().catch(() => {});
})();
