// Sends the deep linking answer back to the course as soon as the page
// loads; the button is there for browsers without scripts.
document.getElementById("lti-return")?.submit();
