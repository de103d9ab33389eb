package classroom_test

import (
	"strings"
	"testing"

	"github.com/leaselab/playground/classroom"
)

func TestDeviceCodesAreReadBackAsTyped(t *testing.T) {
	seen := map[string]bool{}
	for range 2000 {
		c := classroom.NewDeviceCode()
		if len(c) != classroom.DeviceCodeLen || strings.Trim(c, classroom.CodeAlphabet) != "" {
			t.Fatalf("device code %q: want %d symbols of the join code alphabet", c, classroom.DeviceCodeLen)
		}
		seen[c] = true
		typed := strings.ToLower(classroom.FormatDeviceCode(c))
		got, err := classroom.CheckDeviceCode(" " + typed + " ")
		if err != nil || got != c {
			t.Fatalf("%q typed as %q reads back as %q, %v", c, typed, got, err)
		}
	}
	if len(seen) < 2000 {
		t.Fatalf("only %d distinct device codes in 2000", len(seen))
	}
}

func TestDeviceCodeErrorsNameTheField(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"ABCDE-FGHJ", "has 10 letters and digits"},
		{"ABCDE-FGHJ0", `"0" is not in a device code`},
		{"ABCDE-FGHJÉ", `"É" is not in a device code`},
		{strings.Repeat("A", 41), "this has 41 characters"},
	} {
		_, err := classroom.CheckDeviceCode(tc.in)
		msg := classroom.ErrorMessage(err)
		if err == nil || !strings.HasPrefix(msg, "code: ") || !strings.Contains(msg, tc.want) {
			t.Errorf("CheckDeviceCode(%q) = %v, want an error on code: saying %q", tc.in, err, tc.want)
		}
	}
}
