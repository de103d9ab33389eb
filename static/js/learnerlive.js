// On the playground and the lesson pages, a learner in a class sees what
// their teacher pushed (a scenario, a lesson or an exercise) as a banner
// with a button: never a jump away from what they are typing. The same
// news carries the class's settings: in quiz mode the "show me" buttons
// and solutions are hidden (the server refuses them anyway), a lesson not
// open yet says so, and the deadline is given in the learner's time.
//
// The banner follows the teacher live over one server-sent event stream
// per tab (/api/me/events): the class on connect and after every change.
// The browser reconnects it by itself when the server ends it (its age, a
// restart). When it cannot be opened or is refused (the server's, the
// network's or this learner's share is full, or no EventSource), the page
// reads /api/me instead, as often as the server says (poll_ms), backing
// off while that fails, and tries the stream again after six polls' time,
// twice that after each refusal in a row (up to ten minutes), so that a
// page goes back to the stream once a place is free.
// The session cookie is HttpOnly, so a second cookie without any secret
// (pg_class=1) says whether any of this is worth a request.
// Loaded by classbanner.js for a learner in a class only.
(function classBanner() {
  const banner = document.getElementById('class-banner');
  if (!banner) return;
  let shown = '';
  let gone = false; // the server no longer knows this browser's learner
  let last = {}; // the class as last drawn

  function draw(cl) {
    last = cl;
    const html = document.documentElement;
    // Out of the class, none of its settings hold here any more.
    const s = (!gone && cl.settings) || { show_me: true, closed_lessons: [] };
    html.toggleAttribute('data-class-quiz', s.show_me === false);
    // Which lessons are closed is the server's word (closed_lessons):
    // the page marks exactly those.
    const shut = s.closed_lessons || [];
    const lesson = document.querySelector('[data-testid=lesson]');
    const closed = !!lesson && shut.includes(lesson.dataset.slug);
    html.toggleAttribute('data-class-closed', closed);
    // The learner's own page marks each lesson not open yet.
    for (const li of document.querySelectorAll('li[data-lesson]')) {
      const mark = li.querySelector('[data-testid=lesson-not-open]');
      if (mark) mark.hidden = !shut.includes(li.dataset.lesson);
    }

    // An answer the teacher showed the class (settings.revealed) is said
    // where the exercise is answered and where it is listed, before the
    // learner types one: answers to it now earn nothing.
    const revealed = s.revealed || [];
    for (const e of document.querySelectorAll('[data-exercise] [data-testid=class-revealed]')) {
      e.hidden = !revealed.includes(e.closest('[data-exercise]').dataset.exercise);
    }
    // On the learner's own page an exercise not solved before the reveal
    // now stands at revealed, as the teacher's grid has it; one never
    // answered with 0.
    for (const li of document.querySelectorAll('li[data-testid=learner-exercise]')) {
      if (!revealed.includes(li.dataset.exercise) || !['', 'wrong', 'partial'].includes(li.dataset.state)) continue;
      li.dataset.state = 'revealed';
      li.dataset.score = li.dataset.score || '0';
      const mark = li.querySelector('.mark');
      if (mark) mark.textContent = '↺';
      const words = li.querySelector('[data-testid=learner-exercise-words]');
      if (words) words.textContent = 'revealed · score ' + li.dataset.score;
    }

    // The join code as it is now: a learner who reads it out to a
    // latecomer gives one that works.
    const code = document.querySelector('[data-testid=learner-class-code]');
    if (code && cl.code) code.textContent = cl.code;

    const sc = cl.scenario;
    const key = JSON.stringify([sc && sc.url, sc && sc.pushed_at, sc && sc.closed, closed, s.show_me, s.deadline, cl.name, cl.notice, gone]);
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
    // The learner's own page says what was pushed, and quiz mode, as they
    // were when the page was made: said once, by the page while it is
    // still true, by the banner once it is not.
    const still = (kind, now) => {
      const e = document.querySelector('[data-class-static=' + kind + ']');
      if (e && !e.hidden && !now(e)) e.hidden = true;
      return !!e && !e.hidden;
    };
    const saidPush = still('push', (e) => !!sc && e.querySelector('a').getAttribute('href') === sc.url && e.dataset.closed === String(!!sc.closed));
    const saidQuiz = still('quiz', () => s.show_me === false);
    // Archived or expired: the class takes no more answers. Said by the
    // learner's own page if it was so when the page was made.
    const saidClosed = still('closed', (e) => !!cl.notice && e.textContent.trim() === cl.notice);
    if (gone) {
      // The class's push, quiz mode and deadline are no longer this learner's.
      line(Object.assign(document.createElement('strong'), { textContent: 'You are no longer in a class on this browser. ' }),
        'Your answers here are not recorded for a teacher; ask yours for the join code to join again.');
      banner.replaceChildren(...parts);
      banner.hidden = false;
      return;
    }
    if (cl.notice && !saidClosed) {
      line(Object.assign(document.createElement('strong'), { textContent: cl.notice }));
    }
    if (sc && !saidPush) {
      const what = sc.kind === 'lesson' ? 'a lesson' : sc.kind === 'exercise' ? 'an exercise' : 'a scenario';
      const strong = document.createElement('strong');
      strong.textContent = 'Your teacher shared ' + what + (cl.name ? ' in ' + cl.name : '') + ': ';
      const link = document.createElement('a');
      link.href = sc.url;
      link.className = 'button';
      link.textContent = 'Open ' + sc.label;
      link.dataset.testid = 'class-banner-link';
      const here = location.pathname + location.search;
      const onIt = here === sc.url.split('#')[0];
      // On the page itself the line above already says it is not open.
      line(strong, link, onIt ? ' (this page)' : '',
        sc.closed && !onIt ? ' (not open yet: you can read it; checks wait until your teacher opens it)' : '');
    }
    if (s.show_me === false && !saidQuiz) line('Quiz mode: answers are not shown for now.');
    if (s.deadline) {
      const at = new Date(s.deadline).toLocaleString([], { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
      const deadline = Object.assign(document.createElement('span'), { textContent: at });
      deadline.dataset.testid = 'class-deadline';
      deadline.dataset.at = s.deadline;
      line(Object.assign(document.createElement('strong'), { textContent: 'Deadline: ' }), deadline,
        '. Attempts after it are kept, flagged late, and earn no points unless your teacher allows them.');
    }
    banner.replaceChildren(...parts);
    banner.hidden = parts.length === 0;
  }

  // How the page follows the class: 'stream' or 'poll' (for tests and
  // for anyone curious, on the banner's data-live).
  const mode = (m) => { banner.dataset.live = m; };
  let every = 5000; // the poll's interval, until the server says
  let source = null; // this tab's one stream
  let timer = 0; // the next poll
  let refusals = 0; // stream refusals in a row
  let refusedAt = 0; // when the last one came
  let stopped = false; // not in a class any more
  let failures = 0; // polls failed in a row

  function follow() {
    if (source || stopped || !window.EventSource) return false;
    clearTimeout(timer);
    const es = new EventSource('/api/me/events');
    source = es;
    es.addEventListener('class', (e) => {
      const v = JSON.parse(e.data);
      if (v.poll_ms > 0) every = v.poll_ms;
      refusals = 0;
      mode('stream');
      draw(v.class || {});
    });
    es.addEventListener('error', () => {
      // CONNECTING: the browser is reconnecting by itself. CLOSED: the
      // stream was refused (or is not one): poll, and try it later.
      if (es.readyState !== EventSource.CLOSED || source !== es) return;
      source = null;
      refusals++;
      refusedAt = Date.now();
      mode('poll');
      poll(0);
    });
    return true;
  }

  function poll(delay) {
    clearTimeout(timer);
    timer = setTimeout(() => read().then(poll, (wait) => poll(typeof wait === 'number' ? wait : backoff(0))), delay);
  }

  // read asks /api/me once and resolves with the delay to the next read
  // (rejects with it after a failure), or stops when the stream took over.
  async function read() {
    if (stopped || source) return new Promise(() => {});
    const again = refusedAt + Math.min(6 * every * 2 ** Math.max(0, refusals - 1), 600000);
    if (Date.now() >= again && follow()) return new Promise(() => {});
    if (document.visibilityState === 'hidden') return every;
    let res;
    try {
      res = await fetch('/api/me', { credentials: 'same-origin' });
    } catch {
      throw backoff(0);
    }
    if (res.status === 401 || res.status === 404) {
      stopped = true; // not in a class any more: removed, or the class deleted
      gone = true;
      draw(last);
      return new Promise(() => {});
    }
    if (!res.ok) throw backoff(Number(res.headers.get('Retry-After')) * 1000 || 0);
    const v = await res.json();
    if (v.poll_ms > 0) every = v.poll_ms;
    failures = 0;
    draw(v.class || {});
    return every;
  }

  // After a failure the poll waits twice as long each time, up to a
  // minute (or what Retry-After asks), so a struggling server is not
  // pressed by every open page.
  function backoff(asked) {
    failures++;
    return Math.max(asked, Math.min(every * 2 ** failures, Math.max(60000, every)));
  }

  if (!follow()) {
    mode('poll');
    poll(0);
  }
})();
