package lti

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/leaselab/playground/classroom"
)

// assertionType is the OAuth 2 client assertion type of LTI services: a
// JWT the tool signs with its key (RFC 7523).
const assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

// token returns an access token for the platform's services with these
// scopes: by client_credentials with a signed client assertion, kept
// until a minute before it expires by the tool's clock.
func (t *Tool) token(ctx context.Context, p classroom.LTIPlatform, scopes ...string) (string, error) {
	key := strconv.FormatInt(p.ID, 10) + " " + strings.Join(scopes, " ")
	now := t.now()
	t.mu.Lock()
	if ct, ok := t.tokens[key]; ok && now.Before(ct.expires) {
		t.mu.Unlock()
		return ct.tok.AccessToken, nil
	}
	t.mu.Unlock()
	assertion, err := t.sign(ctx, jwt.RegisteredClaims{
		Issuer: p.ClientID, Subject: p.ClientID, Audience: jwt.ClaimStrings{p.TokenURL},
		IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(5 * time.Minute)),
		ID: classroom.NewSecret(),
	})
	if err != nil {
		return "", err
	}
	cc := clientcredentials.Config{
		ClientID: p.ClientID, TokenURL: p.TokenURL, Scopes: scopes, AuthStyle: oauth2.AuthStyleInParams,
		EndpointParams: url.Values{"client_assertion_type": {assertionType}, "client_assertion": {assertion}},
	}
	tok, err := cc.Token(context.WithValue(ctx, oauth2.HTTPClient, t.client))
	if err != nil {
		return "", fmt.Errorf("token from %s: %w", p.TokenURL, err)
	}
	life := time.Duration(tok.ExpiresIn) * time.Second
	if life <= 0 {
		life = time.Hour // the platform did not say: LTI tokens live an hour
	}
	t.mu.Lock()
	t.tokens[key] = cachedToken{tok: tok, expires: now.Add(life - time.Minute)}
	t.mu.Unlock()
	return tok.AccessToken, nil
}

// forgetToken drops a token the platform refused, so the next send gets
// a new one.
func (t *Tool) forgetToken(p classroom.LTIPlatform, scopes ...string) {
	t.mu.Lock()
	delete(t.tokens, strconv.FormatInt(p.ID, 10)+" "+strings.Join(scopes, " "))
	t.mu.Unlock()
}
