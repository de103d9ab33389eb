package lti

import (
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/leaselab/playground/classroom"
)

// MaxDeployments and MaxFrameOrigins bound a registration's lists.
const (
	MaxDeployments  = 50
	MaxFrameOrigins = 20
)

// CheckPlatform validates a registration and fills its frame origins,
// when none are given, with the origins of its issuer and authorization
// URL. URLs must be https, or http on localhost (a test platform).
// Errors name the flag's field.
func CheckPlatform(p classroom.LTIPlatform) (classroom.LTIPlatform, error) {
	for _, f := range []struct{ name, v string }{
		{"issuer", p.Issuer}, {"auth-url", p.AuthURL}, {"token-url", p.TokenURL}, {"jwks-url", p.JWKSURL},
	} {
		if err := platformURL(f.name, f.v); err != nil {
			return p, err
		}
	}
	if p.ClientID == "" || len(p.ClientID) > MaxIDLen || !printable(p.ClientID) {
		return p, invalid("client-id", "must be 1 to %d printable characters", MaxIDLen)
	}
	if len(p.DeploymentIDs) == 0 || len(p.DeploymentIDs) > MaxDeployments {
		return p, invalid("deployment-id", "give 1 to %d deployment IDs", MaxDeployments)
	}
	for _, d := range p.DeploymentIDs {
		if d == "" || len(d) > MaxIDLen || !printable(d) {
			return p, invalid("deployment-id", "each must be 1 to %d printable characters", MaxIDLen)
		}
	}
	if len(p.FrameOrigins) == 0 {
		for _, u := range []string{p.Issuer, p.AuthURL} {
			if o := Origin(u); o != "" && !slices.Contains(p.FrameOrigins, o) {
				p.FrameOrigins = append(p.FrameOrigins, o)
			}
		}
	}
	if len(p.FrameOrigins) > MaxFrameOrigins {
		return p, invalid("frame-origin", "give at most %d", MaxFrameOrigins)
	}
	for i, o := range p.FrameOrigins {
		if err := platformURL("frame-origin", o); err != nil {
			return p, err
		}
		u, _ := url.Parse(o)
		if (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
			return p, invalid("frame-origin", "must be an origin (scheme://host[:port]) without a path, not %q", o)
		}
		p.FrameOrigins[i] = Origin(o)
	}
	return p, nil
}

func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == '\n' {
			return false
		}
	}
	return true
}

func platformURL(field, s string) error {
	if s == "" {
		return invalid(field, "is required")
	}
	if len(s) > MaxURLLen {
		return invalid(field, "must be at most %d bytes", MaxURLLen)
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || Origin(s) == "" {
		return invalid(field, "must be an https URL, not %q", s)
	}
	local := u.Hostname() == "localhost" || u.Hostname() == "127.0.0.1" || u.Hostname() == "::1"
	if u.Scheme != "https" && !(u.Scheme == "http" && local) {
		return invalid(field, "must be https (http only on localhost), not %q", s)
	}
	if strings.ContainsAny(s, " \n") {
		return invalid(field, "must not contain spaces")
	}
	return nil
}
