// The stylesheet of the playground's tools (Compare, Find a failure, the
// lock history), loaded by the first of them opened: the first screen
// does not need it. Modules that import this wait until it has loaded,
// so a tool never shows unstyled.

const link = document.querySelector('link[data-tools]') || document.head.appendChild(Object.assign(document.createElement('link'),
  { rel: 'stylesheet', href: new URL('../css/tools.css', import.meta.url).href }));
link.dataset.tools = '1';
await new Promise(done => {
  if (link.sheet) { done(); return; }
  link.addEventListener('load', done);
  link.addEventListener('error', done);
});
