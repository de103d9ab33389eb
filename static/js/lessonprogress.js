// A learner's progress through the lessons, kept in this browser's
// localStorage: per lesson, per exercise, whether it was answered
// correctly (or, for an open question, answered) and how many wrong tries
// came before, which unlocks hints. A learner in a class has the same
// record on the server; this one is only for the marks on the pages.

const KEY = 'leasefence.lessons.v1';

/** load returns {lessons: {slug: {exerciseID: {done, tries}}}}. */
export function load() {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) || '{}');
    if (v && typeof v === 'object' && v.lessons && typeof v.lessons === 'object') return v;
  } catch { /* a damaged or blocked store starts again */ }
  return { lessons: {} };
}

function save(p) {
  try { localStorage.setItem(KEY, JSON.stringify(p)); } catch { /* private mode: progress lasts the page */ }
}

function entry(p, slug, id) {
  p.lessons[slug] = p.lessons[slug] || {};
  p.lessons[slug][id] = p.lessons[slug][id] || { done: '', tries: 0 };
  return p.lessons[slug][id];
}

/** get returns one exercise's record. */
export function get(slug, id) {
  return load().lessons[slug]?.[id] || { done: '', tries: 0 };
}

/** addTry counts a wrong answer and returns the new number of tries. */
export function addTry(slug, id) {
  const p = load(), e = entry(p, slug, id);
  e.tries++;
  save(p);
  return e.tries;
}

/** markDone records a correct answer ('correct') or an open one ('answered'). */
export function markDone(slug, id, how) {
  const p = load(), e = entry(p, slug, id);
  if (e.done !== 'correct') e.done = how;
  save(p);
}

/** reset forgets everything. */
export function reset() {
  try { localStorage.removeItem(KEY); } catch { /* nothing kept */ }
}
