package classroom

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"strings"
)

// CodeAlphabet is the join code's alphabet: digits and capitals without 0,
// O, 1 and I, which are read aloud or copied from a projector wrongly.
const CodeAlphabet = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"

// CodeLen is the length of a join code: 32^6 is about a billion codes, so a
// guess hits one of a thousand live classes one time in a million, and the
// per-IP join rate limit of the web layer makes guessing slow besides.
const CodeLen = 6

// NewCode returns a random join code from crypto/rand. Uniqueness is the
// store's job (a unique index and a retry).
func NewCode() string {
	return randomCode(CodeLen)
}

// randomCode returns n symbols of CodeAlphabet from crypto/rand. 32 symbols
// divide 256, so taking each byte mod 32 is unbiased.
func randomCode(n int) string {
	b := NewSecretBytes(n)
	for i := range b {
		b[i] = CodeAlphabet[int(b[i])%len(CodeAlphabet)]
	}
	return string(b)
}

// NormalizeCode reads a join code as a person types it: case, spaces and
// dashes do not matter. It does not check that the code exists.
func NormalizeCode(code string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == ' ' || r == '-' || r == '\t':
			return -1
		case 'a' <= r && r <= 'z':
			return r - 'a' + 'A'
		}
		return r
	}, code)
}

// NewSecret returns 32 random bytes from crypto/rand, base64url-encoded: a
// teacher key or a learner session token.
func NewSecret() string {
	return base64.RawURLEncoding.EncodeToString(NewSecretBytes(32))
}

// NewSecretBytes returns n bytes from crypto/rand, for a key that is kept
// as it is (Store.ServerSecret).
func NewSecretBytes(n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("classroom: crypto/rand failed: " + err.Error())
	}
	return b
}

// HashSecret returns the SHA-256 of a teacher key or session token, the only
// form in which the store keeps them, so a leaked database or backup gives
// nobody a working key.
//
// A fast hash is enough here, and bcrypt or argon2 would only cost CPU on
// every request: those slow down guessing of low-entropy passwords, but
// these secrets are 256 random bits that no amount of guessing finds, and
// they are checked on every check a learner sends.
func HashSecret(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// SecretMatches reports whether secret hashes to hash, comparing in
// constant time so that timing tells nothing about how much matched.
func SecretMatches(secret string, hash []byte) bool {
	if secret == "" || len(hash) != sha256.Size {
		return false
	}
	return subtle.ConstantTimeCompare(HashSecret(secret), hash) == 1
}
