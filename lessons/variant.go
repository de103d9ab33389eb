package lessons

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash/fnv"
)

// VariantFor returns the variant a learner gets, from any stable key (a
// learner id, a class code and a name). It is never 0: variant 0 is the
// notes' own numbers, which a learner studying alone sees by default.
// It is a practice variant: anyone who knows the key can work it out, so
// a class draws its learners' numbers with ClassVariant instead.
func VariantFor(key string) int {
	h := fnv.New32a()
	h.Write([]byte(key))
	return 1 + int(h.Sum32()%MaxVariant)
}

// Class variants are drawn from ClassVariantBase to ClassVariantBase +
// ClassVariantSpan - 1: above every variant the practice API accepts (0
// to MaxVariant), so no practice request, give-up or solution can name
// one, and within a 32-bit integer, as the stores keep variants.
const (
	ClassVariantBase = 1 << 30
	ClassVariantSpan = 1<<31 - 1 - ClassVariantBase
)

// ClassVariant is the variant of a learner in a class: a keyed hash
// (HMAC-SHA256) of the learner's key under the class's secret, in the
// class space. Without the secret, which stays on the server, nobody can
// work out a learner's numbers, nor ask the practice API about them.
func ClassVariant(secret []byte, learnerKey string) int {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("class-variant/v1\n"))
	m.Write([]byte(learnerKey))
	sum := m.Sum(nil)
	return ClassVariantBase + int(binary.BigEndian.Uint64(sum[:8])%uint64(ClassVariantSpan))
}

// IsClassVariant reports whether v is in the class space.
func IsClassVariant(v int) bool {
	return v >= ClassVariantBase && v < ClassVariantBase+ClassVariantSpan
}

// CheckPracticeVariant refuses a variant a request may not name: one
// outside 0 to MaxVariant, which includes every class variant.
func CheckPracticeVariant(v int) error {
	if v < 0 || v > MaxVariant {
		return &InputError{Field: "variant", Msg: fmt.Sprintf("must be between 0 and %d, not %d", MaxVariant, v)}
	}
	return nil
}
