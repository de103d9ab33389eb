package lessons

import (
	"errors"
	"testing"
)

func TestParseNumberReadsWhatPeopleType(t *testing.T) {
	tests := []struct {
		answer string
		unit   string
		words  []string
		want   float64
	}{
		{"50", UnitCount, nil, 50},
		{"50 runs", UnitCount, []string{"runs"}, 50},
		{"  about 50 runs. ", UnitCount, []string{"runs"}, 50},
		{"45x", UnitCount, nil, 45},
		{"45 x", UnitCount, nil, 45},
		{"45 times", UnitCount, nil, 45},
		{"45 times longer", UnitCount, nil, 45},
		{"2,000", UnitPerSecond, nil, 2000},
		{"2000 writes/s", UnitPerSecond, []string{"writes", "lock writes"}, 2000},
		{"2,000 lock writes a second", UnitPerSecond, []string{"writes", "lock writes"}, 2000},
		{"120,000 per minute", UnitPerSecond, nil, 2000},
		{"2k", UnitPerSecond, nil, 2000},
		{"Rs 42,000", UnitRupees, nil, 42000},
		{"rs. 42000", UnitRupees, nil, 42000},
		{"₹42,000", UnitRupees, nil, 42000},
		{"42,000 rupees", UnitRupees, nil, 42000},
		{"0.8", UnitCount, nil, 0.8},
		{".8 grants", UnitCount, []string{"grants"}, 0.8},
		{"20 s", UnitSeconds, nil, 20},
		{"20", UnitSeconds, nil, 20},
		{"15 min", UnitSeconds, nil, 900},
		{"15 minutes", UnitSeconds, nil, 900},
		{"400 ms", UnitSeconds, nil, 0.4},
		{"1 h", UnitSeconds, nil, 3600},
		{"1m30s", UnitSeconds, nil, 90},
		{"15m", UnitSeconds, nil, 900},
	}
	for _, tt := range tests {
		got, err := parseNumber(tt.answer, tt.unit, tt.words)
		if err != nil {
			t.Errorf("parseNumber(%q, %s): %v", tt.answer, tt.unit, err)
			continue
		}
		if got.value < tt.want-1e-9 || got.value > tt.want+1e-9 {
			t.Errorf("parseNumber(%q, %s) = %v, want %v", tt.answer, tt.unit, got.value, tt.want)
		}
	}
}

func TestParseNumberRejectsWhatItCannotRead(t *testing.T) {
	tests := []struct {
		answer, unit string
	}{
		{"forty", UnitCount},
		{"", UnitCount},
		{"20 s and 900 s", UnitCount},    // several numbers
		{"50 s", UnitCount},              // a time where a count is asked
		{"Rs 50", UnitCount},             // money where a count is asked
		{"2,000 bananas", UnitPerSecond}, // an unknown unit
		{"15 parsecs", UnitSeconds},      // not a time unit
		{"2,000 writes/s", UnitRupees},   // a rate where money is asked
	}
	for _, tt := range tests {
		_, err := parseNumber(tt.answer, tt.unit, nil)
		var fe *formatError
		if !errors.As(err, &fe) {
			t.Errorf("parseNumber(%q, %s) = %v, want a format error", tt.answer, tt.unit, err)
		}
	}
}

func TestFormatNumberWritesLikeTheLessons(t *testing.T) {
	for v, want := range map[float64]string{42000: "42,000", 0.8: "0.8", 45: "45", 1234567.5: "1,234,567.5", -3000: "-3,000"} {
		if got := formatNumber(v); got != want {
			t.Errorf("formatNumber(%v) = %q, want %q", v, got, want)
		}
	}
}
