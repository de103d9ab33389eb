package classroom

import (
	"strings"
	"time"
)

// A learner's session lives in one browser's cookie. To go on in another
// browser (a laptop after a phone, a lab machine after home), the learner
// asks the first for a device code and enters it in the second: that one
// takes over the learner's row, answers and all, and the first is signed
// out, as a session belongs to one browser. Without it a learner would join
// again, as a new row the teacher has to remove.

// DeviceCodeLen is the length of a device code, from CodeAlphabet: 32^10,
// about 10^15 codes, for a code that lives DeviceCodeTTL, is used once, and
// is guessed through the web layer's per-address limits.
const DeviceCodeLen = 10

// DeviceCodeTTL is how long a device code can be used.
const DeviceCodeTTL = 10 * time.Minute

// NewDeviceCode returns a random device code from crypto/rand.
func NewDeviceCode() string {
	return randomCode(DeviceCodeLen)
}

// FormatDeviceCode writes a device code in two groups, as it is read out
// and typed: "ABCDE-FGHJK".
func FormatDeviceCode(code string) string {
	if len(code) != DeviceCodeLen {
		return code
	}
	return code[:DeviceCodeLen/2] + "-" + code[DeviceCodeLen/2:]
}

// CheckDeviceCode validates a device code as typed and returns it
// normalised (NormalizeCode).
func CheckDeviceCode(code string) (string, error) {
	if len(code) > 4*DeviceCodeLen {
		return "", Errorf(EINVALID, "code: a device code has %d letters and digits (this has %d characters)", DeviceCodeLen, len(code))
	}
	c := NormalizeCode(code)
	for _, r := range c {
		if !strings.ContainsRune(CodeAlphabet, r) {
			return "", Errorf(EINVALID, "code: %q is not in a device code (no 0, O, 1 or I)", string(r))
		}
	}
	if len(c) != DeviceCodeLen {
		return "", Errorf(EINVALID, "code: a device code has %d letters and digits, like ABCDE-FGHJK (this has %d)", DeviceCodeLen, len(c))
	}
	return c, nil
}
