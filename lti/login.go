package lti

import (
	"context"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/leaselab/playground/classroom"
)

// Bounds of what a platform sends: URLs and IDs are short, hints are
// opaque but small, an id_token is a few kilobytes.
const (
	MaxURLLen     = 2048
	MaxIDLen      = 255
	MaxHintLen    = 4096
	MaxIDTokenLen = 64 << 10
	MaxStateLen   = 128
)

// LoginTTL is how long a login may take between the redirect to the
// platform and the launch it sends back.
const LoginTTL = 10 * time.Minute

// LoginRequest is a third-party initiated login (OIDC), from GET query
// values or a POST form.
type LoginRequest struct {
	Issuer        string
	LoginHint     string
	TargetLinkURI string
	ClientID      string
	MessageHint   string
	DeploymentID  string
}

// ParseLogin reads and bounds a login request's values.
func ParseLogin(v url.Values) (LoginRequest, error) {
	r := LoginRequest{
		Issuer: v.Get("iss"), LoginHint: v.Get("login_hint"), TargetLinkURI: v.Get("target_link_uri"),
		ClientID: v.Get("client_id"), MessageHint: v.Get("lti_message_hint"), DeploymentID: v.Get("lti_deployment_id"),
	}
	for _, f := range []struct {
		name, value string
		max         int
		required    bool
	}{
		{"iss", r.Issuer, MaxURLLen, true},
		{"login_hint", r.LoginHint, MaxHintLen, true},
		{"target_link_uri", r.TargetLinkURI, MaxURLLen, true},
		{"client_id", r.ClientID, MaxIDLen, false},
		{"lti_message_hint", r.MessageHint, MaxHintLen, false},
		{"lti_deployment_id", r.DeploymentID, MaxIDLen, false},
	} {
		if err := checkValue(f.name, f.value, f.max, f.required); err != nil {
			return r, err
		}
	}
	return r, nil
}

func checkValue(field, v string, max int, required bool) *Error {
	switch {
	case required && v == "":
		return invalid(field, "is required")
	case len(v) > max:
		return invalid(field, "must be at most %d bytes (it has %d)", max, len(v))
	case !utf8.ValidString(v):
		return invalid(field, "must be valid UTF-8 text")
	}
	return nil
}

// platformFor finds the registered platform of an issuer (and client ID,
// when the issuer has several registrations).
func (t *Tool) platformFor(ctx context.Context, issuer string, clientIDs ...string) (*classroom.LTIPlatform, error) {
	ps, err := t.store.LTIPlatforms(ctx)
	if err != nil {
		return nil, err
	}
	var byIssuer, found []classroom.LTIPlatform
	for _, p := range ps {
		if p.Issuer == issuer {
			byIssuer = append(byIssuer, p)
		}
	}
	if len(byIssuer) == 1 {
		// The one registration: whether the token is for its client ID
		// is the aud check's to say.
		return &byIssuer[0], nil
	}
	for _, p := range byIssuer {
		if contains(clientIDs, p.ClientID) {
			found = append(found, p)
		}
	}
	switch {
	case len(byIssuer) == 0:
		return nil, nil
	case len(found) == 1:
		return &found[0], nil
	}
	return nil, invalid("client_id", "must name one of the %d registrations of the issuer %s", len(byIssuer), issuer)
}

// Login answers a login request with the URL of the platform's
// authorization endpoint to redirect to, and the login's state; launchURL
// is the tool's /lti/launch as the platform knows it. The state and nonce
// are kept in the store, so the launch may come back to any replica; the
// caller binds the state to the browser (a cookie), so that a launch is
// taken only from the browser that logged in.
func (t *Tool) Login(ctx context.Context, r LoginRequest, launchURL string) (redirect, state string, err error) {
	p, err := t.platformFor(ctx, r.Issuer, r.ClientID)
	if err != nil {
		return "", "", err
	}
	if p == nil {
		return "", "", &Error{Status: 400, Field: "iss", Msg: "no platform with this issuer (and client ID) is registered with this tool: see playground lti add-platform"}
	}
	if r.ClientID != "" && r.ClientID != p.ClientID {
		return "", "", invalid("client_id", "is not the client ID registered for this issuer")
	}
	if r.DeploymentID != "" && !contains(p.DeploymentIDs, r.DeploymentID) {
		return "", "", invalid("lti_deployment_id", "is not a deployment registered for this platform")
	}
	state, nonce := classroom.NewSecret(), classroom.NewSecret()
	if err := t.store.SaveLTILogin(ctx, classroom.HashSecret(state), p.ID, nonce, t.now().Add(LoginTTL)); err != nil {
		return "", "", err
	}
	q := url.Values{
		"scope": {"openid"}, "response_type": {"id_token"}, "response_mode": {"form_post"}, "prompt": {"none"},
		"client_id": {p.ClientID}, "redirect_uri": {launchURL}, "login_hint": {r.LoginHint},
		"state": {state}, "nonce": {nonce},
	}
	if r.MessageHint != "" {
		q.Set("lti_message_hint", r.MessageHint)
	}
	sep := "?"
	if strings.Contains(p.AuthURL, "?") {
		sep = "&"
	}
	return p.AuthURL + sep + q.Encode(), state, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
