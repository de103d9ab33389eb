// A form marked data-send-once (joining a class, continuing in another
// browser, asking for a device code) is sent once per visit: a second
// press before the page moves would send it again, and for a one-time
// code the second answer ("used or has expired") would replace the page
// the first one earned, and count as a wrong code besides. The button
// says it is working; a page shown again from the back/forward cache
// takes presses again.
for (const form of document.querySelectorAll('form[data-send-once]')) {
  form.addEventListener('submit', (ev) => {
    if (form.dataset.sent) {
      ev.preventDefault();
      return;
    }
    form.dataset.sent = '1';
    form.setAttribute('aria-busy', 'true');
  });
}
window.addEventListener('pageshow', (ev) => {
  if (!ev.persisted) return;
  for (const form of document.querySelectorAll('form[data-send-once]')) {
    delete form.dataset.sent;
    form.removeAttribute('aria-busy');
  }
});
