// The projector view, for a room: the question on one line, the player,
// and the timeline and its caption in larger words filling the screen; no
// settings, no tools, no site header. Its styles load with it, the first
// time it is turned on: most visits never use it.

const link = document.head.appendChild(Object.assign(document.createElement('link'),
  { rel: 'stylesheet', href: new URL('../css/projector.css', import.meta.url).href }));
await new Promise(done => {
  link.addEventListener('load', done);
  link.addEventListener('error', done);
});

/** toggle turns the projector view on or off and says whether it is on. */
export function toggle() {
  const on = document.body.classList.toggle('projector');
  document.getElementById('projector').setAttribute('aria-pressed', String(on));
  scrollTo(0, 0);
  return on;
}
