// The playground and lesson pages stay light for everyone: only a learner
// in a class (pg_class=1, a cookie without any secret, set beside the
// HttpOnly session) loads learnerlive.js, which shows what the teacher
// pushed and applies the class's settings. A classic deferred script.
(function () {
  if (!document.cookie.split('; ').includes('pg_class=1')) return;
  const s = document.createElement('script');
  s.src = document.currentScript.src.replace(/classbanner\.js.*$/, 'learnerlive.js');
  document.head.append(s);
})();
