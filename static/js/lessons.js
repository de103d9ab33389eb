// The lesson index: marks each exercise this browser has answered, counts
// them per lesson and overall, and offers to forget them.

import { load, reset } from './lessonprogress.js';

const total = document.getElementById('progress-total');
const resetButton = document.getElementById('progress-reset');

function show() {
  const p = load();
  let done = 0, all = 0;
  for (const li of document.querySelectorAll('[data-testid=lesson-entry]')) {
    const mine = p.lessons[li.dataset.slug] || {};
    let n = 0;
    const items = li.querySelectorAll('[data-testid=exercise-entry]');
    for (const ex of items) {
      const how = mine[ex.dataset.exercise]?.done || '';
      ex.classList.toggle('done', !!how);
      ex.querySelector('.mark').textContent = how ? '✓' : '○';
      ex.querySelector('[data-testid=exercise-state]').textContent = how === 'correct' ? '(answered correctly)' : how ? '(answered)' : '(not done yet)';
      if (how) n++;
    }
    const count = li.querySelector('[data-testid=lesson-count]');
    if (count) {
      count.textContent = `${n} of ${items.length} exercise${items.length === 1 ? '' : 's'} done`;
      count.classList.toggle('complete', n === items.length && n > 0);
    }
    done += n;
    all += items.length;
  }
  total.textContent = done
    ? `You have done ${done} of ${all} exercises. Your progress is kept in this browser.`
    : `${all} exercises in all. Your progress will be kept in this browser.`;
  resetButton.hidden = !done;
}

resetButton.addEventListener('click', () => {
  if (!confirm('Forget which exercises you have done, in this browser?')) return;
  reset();
  show();
  total.focus?.();
});

// Another tab answering an exercise updates this one.
addEventListener('storage', show);
// Coming back to the index from a lesson may show a page from the cache.
addEventListener('pageshow', show);
show();
