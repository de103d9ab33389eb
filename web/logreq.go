package web

import (
	"fmt"
	"net/url"
	"strings"
)

// maxLoggedURI bounds a request's address in the log: a share link may be
// 87,000 characters, and one log line per request must stay a line.
const maxLoggedURI = 512

// secretParams are query parameters that carry a credential: a
// registration's key and token (/lti/register), a teacher key, a token.
var secretParams = []string{"key", "registration_token", "token", "id_token", "creation_key"}

// secretPaths are path prefixes whose next segment is a credential (a
// content picker's one-time token).
var secretPaths = []string{"/lti/pick/"}

// loggedURI is a request's address as the log keeps it: credentials
// replaced by "REDACTED" (anyone who reads the logs could otherwise
// register a platform, or pick for a course), and cut to maxLoggedURI
// bytes, saying how long it was.
func loggedURI(uri string) string {
	path, query, hasQuery := strings.Cut(uri, "?")
	for _, p := range secretPaths {
		if rest, ok := strings.CutPrefix(path, p); ok && rest != "" {
			_, tail, _ := strings.Cut(rest, "/")
			path = p + "REDACTED"
			if tail != "" {
				path += "/" + tail
			}
		}
	}
	if hasQuery {
		if q, err := url.ParseQuery(query); err == nil {
			redacted := false
			for _, k := range secretParams {
				if q.Has(k) {
					q.Set(k, "REDACTED")
					redacted = true
				}
			}
			if redacted {
				query = q.Encode()
			}
		} else {
			query = "(unreadable query)"
		}
		path += "?" + query
	}
	if len(path) > maxLoggedURI {
		path = fmt.Sprintf("%s… (%d bytes)", path[:maxLoggedURI], len(uri))
	}
	return path
}
