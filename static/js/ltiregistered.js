// Tells the platform that opened the registration that it is done, so
// that it closes its window and shows the new tool (LTI Dynamic
// Registration's close message).
(window.opener || window.parent).postMessage({ subject: "org.imsglobal.lti.close" }, "*");
