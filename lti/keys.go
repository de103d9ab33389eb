package lti

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/leaselab/playground/classroom"
)

// KeyGrace is how long a rotated-out key stays published: a platform
// caches the tool's JWKS, and a token signed just before the rotation
// must still check.
const KeyGrace = 24 * time.Hour

// keysFresh is how long a replica trusts the keys it read: a rotation by
// the command or another replica is picked up within it.
const keysFresh = time.Minute

// keyBits is the size of the tool's RSA keys, what platforms expect.
const keyBits = 2048

type signingKey struct {
	kid string
	key *rsa.PrivateKey
}

type signingKeys struct {
	current signingKey
	all     []signingKey // current first, then the retired ones in grace
	readAt  time.Time
}

// NewKey makes an RSA key for the tool, with a kid from its public key.
func NewKey() (classroom.LTIKey, error) {
	k, err := rsa.GenerateKey(rand.Reader, keyBits)
	if err != nil {
		return classroom.LTIKey{}, err
	}
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		return classroom.LTIKey{}, err
	}
	pub, _ := x509.MarshalPKIXPublicKey(&k.PublicKey)
	sum := sha256.Sum256(pub)
	return classroom.LTIKey{
		KID:        base64.RawURLEncoding.EncodeToString(sum[:12]),
		PrivatePEM: string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
	}, nil
}

// RotateKey makes a new current key; the old one stays published for
// KeyGrace.
func RotateKey(ctx context.Context, s classroom.LTIStore) (string, error) {
	k, err := NewKey()
	if err != nil {
		return "", err
	}
	return k.KID, s.AddLTIKey(ctx, k, true)
}

func parseKey(k classroom.LTIKey) (signingKey, error) {
	b, _ := pem.Decode([]byte(k.PrivatePEM))
	if b == nil {
		return signingKey{}, fmt.Errorf("key %s: not PEM", k.KID)
	}
	key, err := x509.ParsePKCS8PrivateKey(b.Bytes)
	if err != nil {
		return signingKey{}, fmt.Errorf("key %s: %w", k.KID, err)
	}
	rk, ok := key.(*rsa.PrivateKey)
	if !ok {
		return signingKey{}, fmt.Errorf("key %s: not an RSA key", k.KID)
	}
	return signingKey{kid: k.KID, key: rk}, nil
}

// keys returns the tool's keys, making the first one if there is none.
func (t *Tool) keys(ctx context.Context) (*signingKeys, error) {
	now := t.now()
	t.mu.Lock()
	if sk := t.signing; sk != nil && now.Sub(sk.readAt) < keysFresh && !now.Before(sk.readAt) {
		t.mu.Unlock()
		return sk, nil
	}
	t.mu.Unlock()
	ks, err := t.store.LTIKeys(ctx, now.Add(-KeyGrace))
	if err != nil {
		return nil, err
	}
	if len(ks) == 0 || !ks[0].RetiredAt.IsZero() {
		k, err := NewKey()
		if err != nil {
			return nil, err
		}
		if err := t.store.AddLTIKey(ctx, k, false); err != nil {
			return nil, err
		}
		if ks, err = t.store.LTIKeys(ctx, now.Add(-KeyGrace)); err != nil {
			return nil, err
		}
	}
	sk := &signingKeys{readAt: now}
	for _, k := range ks {
		p, err := parseKey(k)
		if err != nil {
			return nil, err
		}
		sk.all = append(sk.all, p)
	}
	sk.current = sk.all[0]
	t.mu.Lock()
	t.signing = sk
	t.mu.Unlock()
	return sk, nil
}

// ForgetKeys makes the next signature or JWKS read the keys again (after
// a rotation in this process).
func (t *Tool) ForgetKeys() {
	t.mu.Lock()
	t.signing = nil
	t.mu.Unlock()
}

// JWK is one public key of a JWKS.
type JWK struct {
	KTY string `json:"kty"`
	Alg string `json:"alg"`
	Use string `json:"use"`
	KID string `json:"kid"`
	N   string `json:"n"`
	E   string `json:"e"`
}

// JWKS returns the tool's public keys: the current one and those
// retired within KeyGrace.
func (t *Tool) JWKS(ctx context.Context) ([]byte, error) {
	sk, err := t.keys(ctx)
	if err != nil {
		return nil, err
	}
	out := struct {
		Keys []JWK `json:"keys"`
	}{Keys: []JWK{}}
	for _, k := range sk.all {
		out.Keys = append(out.Keys, PublicJWK(k.kid, &k.key.PublicKey))
	}
	return json.Marshal(out)
}

// PublicJWK is an RSA public key as a JWK for RS256 signatures.
func PublicJWK(kid string, pub *rsa.PublicKey) JWK {
	return JWK{KTY: "RSA", Alg: "RS256", Use: "sig", KID: kid,
		N: base64.RawURLEncoding.EncodeToString(pub.N.Bytes()),
		E: base64.RawURLEncoding.EncodeToString(big.NewInt(int64(pub.E)).Bytes())}
}

// sign signs claims with the tool's current key (RS256, with its kid).
func (t *Tool) sign(ctx context.Context, claims jwt.Claims) (string, error) {
	sk, err := t.keys(ctx)
	if err != nil {
		return "", err
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, claims)
	tok.Header["kid"] = sk.current.kid
	return tok.SignedString(sk.current.key)
}
