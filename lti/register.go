package lti

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/leaselab/playground/classroom"
)

// LTI Dynamic Registration (1EdTech LTI Dynamic Registration 1.0): an
// administrator of the platform pastes one URL of the tool, the platform
// opens it with the address of its OpenID configuration, and the tool
// registers itself there and records the platform, instead of both sides
// copying five URLs and two IDs by hand.
//
// Nobody may register a platform unasked: the URL carries a key that
// `playground lti registration-url` signs with the tool's own key, valid
// for a while (an hour by default). Without a valid key the tool fetches
// nothing, so the registration page cannot be used to make the server
// request addresses of a stranger's choosing.

// Registration limits: how long a registration key may be valid, and how
// much of a platform's answers the tool reads.
const (
	DefaultRegistrationValidity = time.Hour
	MaxRegistrationValidity     = 7 * 24 * time.Hour
	maxPlatformAnswer           = 64 << 10
	// registrationAudience is the aud of a registration key, so that no
	// other token the tool signs (a client assertion, a deep linking
	// answer) can stand in for one.
	registrationAudience = "lti-dynamic-registration"
)

// ToolName is how the tool names itself to a platform.
const ToolName = "Lease & Fence"

// RegistrationKey signs a key that lets a platform register with the
// tool until validFor has passed (1 s to MaxRegistrationValidity).
func (t *Tool) RegistrationKey(ctx context.Context, validFor time.Duration) (string, error) {
	if validFor < time.Second || validFor > MaxRegistrationValidity {
		return "", invalid("valid", "must be from 1s to %s, not %s", MaxRegistrationValidity, validFor)
	}
	now := t.now()
	return t.sign(ctx, jwt.RegisteredClaims{
		Audience: jwt.ClaimStrings{registrationAudience}, IssuedAt: jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(validFor)), ID: classroom.NewSecret(),
	})
}

// CheckRegistrationKey reports whether key is a registration key this
// tool signed that has not expired: a 401 naming "key" if not.
func (t *Tool) CheckRegistrationKey(ctx context.Context, key string) error {
	if key == "" {
		return failed("key", "is missing: ask the server's administrator for a registration URL (playground lti registration-url)")
	}
	if len(key) > MaxIDTokenLen {
		return failed("key", "is not a registration key of this tool")
	}
	sk, err := t.keys(ctx)
	if err != nil {
		return err
	}
	p := jwt.NewParser(jwt.WithValidMethods([]string{"RS256"}), jwt.WithTimeFunc(t.now),
		jwt.WithExpirationRequired(), jwt.WithAudience(registrationAudience))
	_, err = p.ParseWithClaims(key, &jwt.RegisteredClaims{}, func(tok *jwt.Token) (any, error) {
		kid, _ := tok.Header["kid"].(string)
		for _, k := range sk.all {
			if k.kid == kid {
				return &k.key.PublicKey, nil
			}
		}
		return nil, errors.New("unknown kid")
	})
	switch {
	case errors.Is(err, jwt.ErrTokenExpired):
		return failed("key", "has expired: ask the server's administrator for a new registration URL")
	case err != nil:
		return failed("key", "is not a registration key of this tool")
	}
	return nil
}

// PlatformConfig is what registration reads of a platform's OpenID
// configuration.
type PlatformConfig struct {
	Issuer                string `json:"issuer"`
	AuthorizationEndpoint string `json:"authorization_endpoint"`
	TokenEndpoint         string `json:"token_endpoint"`
	JWKSURI               string `json:"jwks_uri"`
	RegistrationEndpoint  string `json:"registration_endpoint"`
	Platform              struct {
		Product string `json:"product_family_code"`
		Version string `json:"version"`
	} `json:"https://purl.imsglobal.org/spec/lti-platform-configuration"`
	// URL is where it was read.
	URL string `json:"-"`
}

// PlatformConfiguration reads and checks the OpenID configuration a
// platform's registration request points at.
func (t *Tool) PlatformConfiguration(ctx context.Context, configURL string) (*PlatformConfig, error) {
	if err := platformURL("openid_configuration", configURL); err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, configURL, nil)
	if err != nil {
		return nil, invalid("openid_configuration", "is not a URL the tool can read")
	}
	req.Header.Set("Accept", "application/json")
	var c PlatformConfig
	if err := t.platformJSON(req, "openid_configuration", &c); err != nil {
		return nil, err
	}
	c.URL = configURL
	for _, f := range []struct{ name, v string }{
		{"issuer", c.Issuer}, {"authorization_endpoint", c.AuthorizationEndpoint},
		{"token_endpoint", c.TokenEndpoint}, {"jwks_uri", c.JWKSURI}, {"registration_endpoint", c.RegistrationEndpoint},
	} {
		if err := platformURL(f.name, f.v); err != nil {
			var le *Error
			errors.As(err, &le)
			return nil, invalid("openid_configuration", "the platform's %s %s", f.name, le.Msg)
		}
	}
	c.Platform.Product = boundASCII(c.Platform.Product, 80)
	c.Platform.Version = boundASCII(c.Platform.Version, 80)
	return &c, nil
}

// platformJSON does a request to a platform and reads its JSON answer,
// bounded; a failure names field and says what the platform answered.
func (t *Tool) platformJSON(req *http.Request, field string, v any) error {
	resp, err := t.client.Do(req)
	if err != nil {
		return invalid(field, "the platform could not be reached at %s: %s", boundASCII(req.URL.String(), 200), boundASCII(err.Error(), 200))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxPlatformAnswer+1))
	if err != nil {
		return invalid(field, "the platform's answer could not be read: %s", boundASCII(err.Error(), 200))
	}
	if len(body) > maxPlatformAnswer {
		return invalid(field, "the platform's answer is over %d bytes", maxPlatformAnswer)
	}
	if resp.StatusCode/100 != 2 {
		return invalid(field, "the platform answered %d: %s", resp.StatusCode, boundASCII(string(body), 200))
	}
	if err := json.Unmarshal(body, v); err != nil {
		return invalid(field, "the platform's answer is not the JSON expected: %s", boundASCII(err.Error(), 200))
	}
	return nil
}

// toolConfiguration is the tool as it describes itself to a platform.
type toolConfiguration struct {
	Domain        string        `json:"domain"`
	TargetLinkURI string        `json:"target_link_uri"`
	Description   string        `json:"description"`
	Claims        []string      `json:"claims"`
	Messages      []toolMessage `json:"messages"`
	DeploymentID  string        `json:"deployment_id,omitempty"`
}

type toolMessage struct {
	Type          string `json:"type"`
	TargetLinkURI string `json:"target_link_uri,omitempty"`
	Label         string `json:"label,omitempty"`
}

// clientRegistration is the registration request (OpenID Connect
// Dynamic Client Registration with LTI's tool configuration) and, with
// client_id filled in, the platform's answer.
type clientRegistration struct {
	ClientID                string            `json:"client_id,omitempty"`
	ApplicationType         string            `json:"application_type"`
	ResponseTypes           []string          `json:"response_types"`
	GrantTypes              []string          `json:"grant_types"`
	InitiateLoginURI        string            `json:"initiate_login_uri"`
	RedirectURIs            []string          `json:"redirect_uris"`
	ClientName              string            `json:"client_name"`
	JWKSURI                 string            `json:"jwks_uri"`
	TokenEndpointAuthMethod string            `json:"token_endpoint_auth_method"`
	Scope                   string            `json:"scope"`
	Tool                    toolConfiguration `json:"https://purl.imsglobal.org/spec/lti-tool-configuration"`
}

// Register registers the tool with the platform c describes, as
// toolOrigin (scheme://host of the tool as the platform reaches it),
// with the platform's registration token (may be empty), and records
// the platform the way `playground lti add-platform` does. The
// platform's answer must give a client ID and a deployment ID.
func (t *Tool) Register(ctx context.Context, c *PlatformConfig, registrationToken, toolOrigin string) (*classroom.LTIPlatform, error) {
	u, err := url.Parse(toolOrigin)
	if err != nil || u.Host == "" {
		return nil, invalid("origin", "the tool's own address %q is not a URL", toolOrigin)
	}
	launch := toolOrigin + "/lti/launch"
	reg := clientRegistration{
		ApplicationType: "web", ResponseTypes: []string{"id_token"}, GrantTypes: []string{"implicit", "client_credentials"},
		InitiateLoginURI: toolOrigin + "/lti/login", RedirectURIs: []string{launch}, ClientName: ToolName,
		JWKSURI: toolOrigin + "/lti/jwks", TokenEndpointAuthMethod: "private_key_jwt",
		Scope: strings.Join([]string{ScopeLineItem, ScopeScore, ScopeMembership}, " "),
		Tool: toolConfiguration{
			Domain: u.Host, TargetLinkURI: launch,
			Description: "Lessons, exercises and a playground on distributed locks, leases and fencing tokens.",
			Claims:      []string{"iss", "sub", "name", "email"},
			Messages: []toolMessage{
				{Type: MessageResourceLink},
				{Type: MessageDeepLinking, TargetLinkURI: launch, Label: ToolName},
			},
		},
	}
	body, err := json.Marshal(reg)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.RegistrationEndpoint, bytes.NewReader(body))
	if err != nil {
		return nil, invalid("registration_endpoint", "is not a URL the tool can post to")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if registrationToken != "" {
		req.Header.Set("Authorization", "Bearer "+registrationToken)
	}
	var got clientRegistration
	if err := t.platformJSON(req, "registration_endpoint", &got); err != nil {
		return nil, err
	}
	if got.ClientID == "" {
		return nil, invalid("registration_endpoint", "the platform's answer has no client_id")
	}
	if got.Tool.DeploymentID == "" {
		return nil, invalid("registration_endpoint", "the platform's answer has no deployment_id: once the tool is deployed there, add it with playground lti add-platform --client-id %s", boundASCII(got.ClientID, 100))
	}
	p, err := CheckPlatform(classroom.LTIPlatform{
		Issuer: c.Issuer, ClientID: got.ClientID, DeploymentIDs: []string{got.Tool.DeploymentID},
		AuthURL: c.AuthorizationEndpoint, TokenURL: c.TokenEndpoint, JWKSURL: c.JWKSURI,
	})
	if err != nil {
		var le *Error
		errors.As(err, &le)
		return nil, invalid("registration_endpoint", "the platform's answer gives a %s that %s", le.Field, le.Msg)
	}
	saved, err := t.store.AddLTIPlatform(ctx, p)
	if err != nil {
		var ce *classroom.Error
		if errors.As(err, &ce) && ce.Code == classroom.ECONFLICT {
			return nil, &Error{Status: http.StatusConflict, Field: "client_id",
				Msg: fmt.Sprintf("the platform %s with client ID %s is registered already", boundASCII(p.Issuer, 200), boundASCII(p.ClientID, 100))}
		}
		return nil, err
	}
	t.ForgetFrames()
	return saved, nil
}
