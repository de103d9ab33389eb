package lti

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"time"

	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/time/rate"

	"github.com/leaselab/playground/classroom"
)

// Leeway is the clock skew allowed between platform and tool on exp and
// iat.
const Leeway = time.Minute

// MaxTokenAge bounds how long ago a token may have been issued, whatever
// its exp says: a launch is a browser's round trip.
const MaxTokenAge = time.Hour

// Launch is a checked launch: the platform it came from and its claims.
type Launch struct {
	Platform classroom.LTIPlatform
	Claims   *Claims
}

// LaunchForm is what a platform posts to /lti/launch.
type LaunchForm struct {
	IDToken string
	State   string
}

// ParseLaunchForm reads and bounds the launch's form values.
func ParseLaunchForm(v url.Values) (LaunchForm, error) {
	f := LaunchForm{IDToken: v.Get("id_token"), State: v.Get("state")}
	if e := v.Get("error"); e != "" {
		// The platform refused the login (prompt=none with nobody signed
		// in, for one) and says why.
		d := v.Get("error_description")
		if len(d) > 200 {
			d = d[:200]
		}
		return f, failed("id_token", "the platform sent no token but the error %q (%s)", boundASCII(e, 64), d)
	}
	if f.State == "" {
		return f, failed("state", "is missing: the launch must carry the state of the login that started it")
	}
	if len(f.State) > MaxStateLen {
		return f, failed("state", "must be at most %d bytes (it has %d)", MaxStateLen, len(f.State))
	}
	if f.IDToken == "" {
		return f, failed("id_token", "is missing")
	}
	if len(f.IDToken) > MaxIDTokenLen {
		return f, &Error{Status: 413, Field: "id_token", Msg: "must be at most 65536 bytes"}
	}
	return f, nil
}

func boundASCII(s string, n int) string {
	if len(s) > n {
		s = s[:n]
	}
	return strings.ToValidUTF8(s, "")
}

// parser checks the signature algorithm, exp and iat by the tool's clock.
func (t *Tool) parser() *jwt.Parser {
	return jwt.NewParser(jwt.WithValidMethods([]string{"RS256"}), jwt.WithTimeFunc(t.now),
		jwt.WithLeeway(Leeway), jwt.WithExpirationRequired(), jwt.WithIssuedAt())
}

// Verify checks a launch: the state (a login of this tool, not expired),
// the id_token's signature against the platform's JWKS, iss, aud, azp,
// exp, iat, the nonce (the login's, and used once), deployment_id,
// version and message type. A failed check is an *Error with status 401
// naming it; nothing is kept of a failed launch but its nonce.
func (t *Tool) Verify(ctx context.Context, f LaunchForm) (*Launch, error) {
	var claims Claims
	// Read the issuer first, unverified, to know whose keys to check the
	// signature with; nothing read here is trusted before that check.
	if _, _, err := jwt.NewParser().ParseUnverified(f.IDToken, &claims); err != nil {
		return nil, failed("id_token", "is not a JWT: %s", boundASCII(err.Error(), 200))
	}
	if claims.Issuer == "" {
		return nil, failed("iss", "is missing")
	}
	p, err := t.platformFor(ctx, claims.Issuer, claims.Audience...)
	var le *Error
	if errors.As(err, &le) {
		return nil, failed("aud", "names none of the client IDs registered for the issuer")
	} else if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, failed("iss", "no platform with issuer %q is registered with this tool", boundASCII(claims.Issuer, 200))
	}
	loginPlatform, loginNonce, err := t.store.LTILogin(ctx, classroom.HashSecret(f.State))
	if classroom.ErrorCode(err) == classroom.ENOTFOUND {
		return nil, failed("state", "no login of this tool has this state, or it expired (a login lasts %s): start again from the course", LoginTTL)
	} else if err != nil {
		return nil, err
	}
	if loginPlatform != p.ID {
		return nil, failed("state", "the login with this state was started by another platform")
	}

	claims = Claims{}
	_, err = t.parser().ParseWithClaims(f.IDToken, &claims, t.keyfunc(ctx, p.JWKSURL))
	switch {
	case err == nil:
	case errors.Is(err, jwt.ErrTokenExpired):
		return nil, failed("exp", "the token has expired")
	case errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return nil, failed("iat", "the token was issued in the future (more than %s ahead of this server's clock)", Leeway)
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		return nil, failed("exp", "the token has no expiry")
	case errors.Is(err, jwt.ErrTokenInvalidClaims):
		return nil, failed("id_token", "%s", boundASCII(err.Error(), 200))
	default:
		return nil, failed("signature", "does not check against the platform's keys (%s): %s", p.JWKSURL, boundASCII(err.Error(), 200))
	}
	if !contains(claims.Audience, p.ClientID) {
		return nil, failed("aud", "is not this tool's client ID %q", p.ClientID)
	}
	if (len(claims.Audience) > 1 || claims.AZP != "") && claims.AZP != p.ClientID {
		return nil, failed("azp", "must be this tool's client ID %q", p.ClientID)
	}
	if claims.IssuedAt == nil {
		return nil, failed("iat", "is missing")
	}
	if t.now().Sub(claims.IssuedAt.Time) > MaxTokenAge {
		return nil, failed("iat", "the token was issued more than %s ago", MaxTokenAge)
	}
	if claims.Nonce == "" || claims.Nonce != loginNonce {
		return nil, failed("nonce", "is not the nonce of the login with this state")
	}
	if err := t.store.UseLTINonce(ctx, p.ID, claims.Nonce, claims.ExpiresAt.Add(Leeway)); err != nil {
		if classroom.ErrorCode(err) == classroom.ECONFLICT {
			return nil, failed("nonce", "was used already: a launch is accepted once")
		}
		return nil, err
	}
	if !contains(p.DeploymentIDs, claims.DeploymentID) {
		return nil, failed("deployment_id", "%q is not a deployment registered for this platform", boundASCII(claims.DeploymentID, MaxIDLen))
	}
	if claims.Version != Version {
		return nil, failed("version", "must be %s, not %q", Version, boundASCII(claims.Version, 20))
	}
	if err := checkMessage(&claims); err != nil {
		return nil, err
	}
	return &Launch{Platform: *p, Claims: &claims}, nil
}

// checkMessage checks the message type and the claims it needs, and
// bounds what the tool keeps of them.
func checkMessage(c *Claims) error {
	switch c.MessageType {
	case MessageResourceLink:
		if c.ResourceLink == nil || c.ResourceLink.ID == "" {
			return failed(ClaimResourceLink, "is required in a resource link launch")
		}
		if c.Context == nil || c.Context.ID == "" {
			return failed(ClaimContext, "is required: the playground makes one class per course")
		}
	case MessageDeepLinking:
		if c.DeepLinking == nil || c.DeepLinking.ReturnURL == "" {
			return failed(ClaimDeepLinking, "is required in a deep linking request")
		}
		if len(c.DeepLinking.Data) > MaxHintLen {
			return failed(ClaimDeepLinking+".data", "must be at most %d bytes", MaxHintLen)
		}
		if err := checkURL(ClaimDeepLinking+".deep_link_return_url", c.DeepLinking.ReturnURL); err != nil {
			return err
		}
	default:
		return failed("message_type", "must be %s or %s, not %q", MessageResourceLink, MessageDeepLinking, boundASCII(c.MessageType, 40))
	}
	if c.Subject == "" || len(c.Subject) > MaxIDLen {
		return failed("sub", "must be 1 to %d bytes", MaxIDLen)
	}
	if c.Context != nil && len(c.Context.ID) > MaxIDLen {
		return failed(ClaimContext+".id", "must be at most %d bytes", MaxIDLen)
	}
	if c.ResourceLink != nil && len(c.ResourceLink.ID) > MaxIDLen {
		return failed(ClaimResourceLink+".id", "must be at most %d bytes", MaxIDLen)
	}
	if len(c.Roles) > 100 {
		return failed(ClaimRoles, "must list at most 100 roles")
	}
	if c.AGS != nil && c.AGS.LineItem != "" {
		if err := checkURL(ClaimAGS+".lineitem", c.AGS.LineItem); err != nil {
			return err
		}
	}
	if c.NRPS != nil {
		if err := checkURL(ClaimNRPS+".context_memberships_url", c.NRPS.ContextMembershipsURL); err != nil {
			return err
		}
	}
	return nil
}

func checkURL(field, s string) error {
	if len(s) > MaxURLLen {
		return failed(field, "must be at most %d bytes", MaxURLLen)
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return failed(field, "must be an http or https URL")
	}
	return nil
}

// keyset is a platform's cached JWKS: fetched at first use and
// refreshed hourly. A token naming a kid the cache does not hold (how a
// platform's key rotation shows) has the set read again at once, at most
// once a minute per platform, and never waits for that allowance: a
// flood of forged kids costs one fetch a minute and delays nobody.
type keyset struct {
	kf     keyfunc.Keyfunc
	cancel context.CancelFunc
}

// refreshEvery bounds the fetches of a platform's JWKS for unknown kids.
const refreshEvery = time.Minute

func (t *Tool) keyfunc(ctx context.Context, jwksURL string) jwt.Keyfunc {
	return func(tok *jwt.Token) (any, error) {
		ks, err := t.keyset(jwksURL, false)
		if err != nil {
			return nil, err
		}
		key, err := ks.kf.KeyfuncCtx(ctx)(tok)
		// The set lacks the token's kid (or the token names none): the
		// platform may have rotated its keys since the set was read.
		if err == nil || !t.refreshAllowed(jwksURL) {
			return key, err
		}
		if ks, err = t.keyset(jwksURL, true); err != nil {
			return nil, err
		}
		return ks.kf.KeyfuncCtx(ctx)(tok)
	}
}

func (t *Tool) refreshAllowed(jwksURL string) bool {
	t.ksMu.Lock()
	defer t.ksMu.Unlock()
	l, ok := t.refreshes[jwksURL]
	if !ok {
		l = rate.NewLimiter(rate.Every(refreshEvery), 1)
		t.refreshes[jwksURL] = l
	}
	return l.Allow()
}

// keyset returns the platform's cached key set, read anew when fresh is
// set (the old one's hourly refresh stops).
func (t *Tool) keyset(jwksURL string, fresh bool) (*keyset, error) {
	t.ksMu.Lock()
	defer t.ksMu.Unlock()
	if ks, ok := t.keysets[jwksURL]; ok && !fresh {
		return ks, nil
	}
	ctx, cancel := context.WithCancel(t.ctx)
	kf, err := keyfunc.NewDefaultOverrideCtx(ctx, []string{jwksURL}, keyfunc.Override{
		Client:          t.client,
		HTTPTimeout:     10 * time.Second,
		RefreshInterval: time.Hour,
		// The library's own refresh for unknown kids waits for its
		// limiter; this one never allows it (keyfunc does it instead).
		RefreshUnknownKID: rate.NewLimiter(0, 0),
		RefreshErrorHandlerFunc: func(u string) func(context.Context, error) {
			return func(ctx context.Context, err error) {
				t.log.Warn("lti: could not read a platform's keys", "url", u, "err", err)
			}
		},
	})
	if err != nil {
		cancel()
		return nil, err
	}
	if old, ok := t.keysets[jwksURL]; ok {
		old.cancel()
	}
	ks := &keyset{kf: kf, cancel: cancel}
	t.keysets[jwksURL] = ks
	return ks, nil
}
