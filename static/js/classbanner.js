// On the playground, a learner in a class sees the scenario their teacher
// pushed. The session cookie is HttpOnly, so a second cookie without any
// secret (pg_class=1) says whether asking /api/me is worth a request.
// A classic script (deferred), so everything stays inside this function.

(async function show() {
  const banner = document.getElementById('class-banner');
  if (!document.cookie.split('; ').includes('pg_class=1')) return;
  const res = await fetch('/api/me', { credentials: 'same-origin' });
  if (!res.ok) return;
  const me = await res.json();
  const sc = me.class && me.class.scenario;
  if (!sc) return;
  const here = location.pathname + location.search;
  const link = document.createElement('a');
  link.href = sc.url;
  link.textContent = sc.label;
  link.dataset.testid = 'class-banner-link';
  const strong = document.createElement('strong');
  strong.textContent = 'Your teacher shared a scenario' + (me.class.name ? ' in ' + me.class.name : '') + ': ';
  banner.replaceChildren(strong, link);
  if (here.startsWith(sc.url)) banner.append(' (open now)');
  banner.hidden = false;
})().catch(() => {});
