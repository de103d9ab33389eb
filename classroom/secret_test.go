package classroom_test

import (
	"strings"
	"testing"

	"github.com/leaselab/playground/classroom"
)

func TestNewCode(t *testing.T) {
	seen := map[string]bool{}
	for range 2000 {
		c := classroom.NewCode()
		if len(c) != classroom.CodeLen || strings.ContainsAny(c, "0O1Il") || strings.Trim(c, classroom.CodeAlphabet) != "" {
			t.Fatalf("code %q", c)
		}
		seen[c] = true
	}
	if len(seen) < 1990 {
		t.Fatalf("only %d distinct codes in 2000: not random enough", len(seen))
	}
	if got := classroom.NormalizeCode(" ab-c d2 "); got != "ABCD2" {
		t.Fatalf("normalize: %q", got)
	}
}

func TestSecrets(t *testing.T) {
	k := classroom.NewSecret()
	if len(k) != 43 || k == classroom.NewSecret() {
		t.Fatalf("secret %q: want 43 base64url characters (256 bits), different every time", k)
	}
	h := classroom.HashSecret(k)
	if !classroom.SecretMatches(k, h) {
		t.Fatal("a secret does not match its own hash")
	}
	for _, wrong := range []string{"", k[:42], k + "x", strings.ToUpper(k)} {
		if classroom.SecretMatches(wrong, h) {
			t.Fatalf("%q matches", wrong)
		}
	}
	if classroom.SecretMatches(k, nil) || classroom.SecretMatches(k, h[:10]) {
		t.Fatal("a missing or short hash matches")
	}
}

func TestErrors(t *testing.T) {
	err := classroom.Errorf(classroom.ELIMIT, "class %s is full", "ABC")
	if classroom.ErrorCode(err) != classroom.ELIMIT || classroom.ErrorMessage(err) != "class ABC is full" {
		t.Fatalf("%v", err)
	}
	other := strings.NewReader("").UnreadByte() // any error that is not an *Error
	if classroom.ErrorCode(other) != classroom.EINTERNAL || classroom.ErrorMessage(other) != "Internal error." {
		t.Fatalf("a foreign error leaks: %q", classroom.ErrorMessage(other))
	}
	if classroom.ErrorCode(nil) != "" {
		t.Fatal("nil has a code")
	}
}
