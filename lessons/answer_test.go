package lessons

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// TestParseNumberReadsWhatPeopleType is the table of the forms people
// write numbers in: every form the reader promises, in the unit it
// belongs to.
func TestParseNumberReadsWhatPeopleType(t *testing.T) {
	count := numberOptions{unit: UnitCount, words: []string{"runs", "grants", "times"}}
	secs := numberOptions{unit: UnitSeconds}
	secsBare := numberOptions{unit: UnitSeconds, bareUnit: "s"}
	rate := numberOptions{unit: UnitPerSecond, words: []string{"writes", "lock writes"}}
	money := numberOptions{unit: UnitRupees}
	tests := []struct {
		answer string
		opts   numberOptions
		want   float64
		read   string
	}{
		// Plain numbers and hedges.
		{"50", count, 50, "50"},
		{"50 runs", count, 50, "50"},
		{"  about 50 runs. ", count, 50, "50"},
		{"~50", count, 50, "50"},
		{"= 50", count, 50, "50"},
		{"-3,000", count, -3000, "-3,000"},
		// Ratios.
		{"45x", count, 45, "45"},
		{"45 x", count, 45, "45"},
		{"x45", count, 45, "45"},
		{"×45", count, 45, "45"},
		{"45×", count, 45, "45"},
		{"45 times", count, 45, "45"},
		{"45 times longer", count, 45, "45"},
		{"45-fold", count, 45, "45"},
		{"45 fold", count, 45, "45"},
		// Decimals, the decimal comma, fractions.
		{"0.8", count, 0.8, "0.8"},
		{".8 grants", count, 0.8, "0.8"},
		{"0,8", count, 0.8, "0.8"},
		{"1,5", count, 1.5, "1.5"},
		{"0,800", count, 0.8, "0.8"},
		{"4/5", count, 0.8, "0.8"},
		{"4 / 5 grants", count, 0.8, "0.8"},
		// Digit groups: western, spaces, Indian, European.
		{"2,000", rate, 2000, "2,000 a second"},
		{"2 000", rate, 2000, "2,000 a second"},
		{"2\u00a0000 writes", rate, 2000, "2,000 a second"},
		{"1 000 000", count, 1e6, "1,000,000"},
		{"Rs 1,00,000", money, 100000, "Rs 100,000"},
		{"Rs 10,00,000", money, 1e6, "Rs 1,000,000"},
		{"1.000.000", count, 1e6, "1,000,000"},
		{"1.000,5", count, 1000.5, "1,000.5"},
		{"1,000.5", count, 1000.5, "1,000.5"},
		// Sizes in words.
		{"42k", money, 42000, "Rs 42,000"},
		{"Rs 42k", money, 42000, "Rs 42,000"},
		{"1.5 thousand", count, 1500, "1,500"},
		{"2 lakh rupees", money, 200000, "Rs 200,000"},
		{"2k writes/s", rate, 2000, "2,000 a second"},
		// Money.
		{"Rs 42,000", money, 42000, "Rs 42,000"},
		{"rs. 42000", money, 42000, "Rs 42,000"},
		{"Rs.42,000", money, 42000, "Rs 42,000"},
		{"₹42,000", money, 42000, "Rs 42,000"},
		{"INR 42000", money, 42000, "Rs 42,000"},
		{"42,000 rupees", money, 42000, "Rs 42,000"},
		{"Rs 45,000/-", money, 45000, "Rs 45,000"},
		{"42000", money, 42000, "Rs 42,000"},
		// Rates.
		{"2000 writes/s", rate, 2000, "2,000 a second"},
		{"2,000 lock writes a second", rate, 2000, "2,000 a second"},
		{"2,000 per second", rate, 2000, "2,000 a second"},
		{"2,000/sec", rate, 2000, "2,000 a second"},
		{"120,000 per minute", rate, 2000, "2,000 a second"},
		{"120000/min", rate, 2000, "2,000 a second"},
		{"7.2 million an hour", rate, 2000, "2,000 a second"},
		// Times.
		{"20 s", secs, 20, "20 s"},
		{"20 seconds", secs, 20, "20 s"},
		{"20", secsBare, 20, "20 s"},
		{"0", secs, 0, "0 s"},
		{"15 min", secs, 900, "900 s"},
		{"15 minutes", secs, 900, "900 s"},
		{"15m", secs, 900, "900 s"},
		{"400 ms", secs, 0.4, "0.4 s"},
		{"1 h", secs, 3600, "3,600 s"},
		{"1 hour", secs, 3600, "3,600 s"},
		{"1m30s", secs, 90, "90 s"},
		{"1 min 30 s", secs, 90, "90 s"},
		{"2 hours 15 minutes", secs, 8100, "8,100 s"},
		{"15:00", secs, 900, "900 s"},
		{"1:30", secs, 90, "90 s"},
		{"1:00:00", secs, 3600, "3,600 s"},
		{"900s", secs, 900, "900 s"},
	}
	for _, tt := range tests {
		got, err := parseNumber(tt.answer, tt.opts)
		if err != nil {
			t.Errorf("parseNumber(%q, %s): %v", tt.answer, tt.opts.unit, err)
			continue
		}
		if math.Abs(got.value-tt.want) > 1e-9*math.Max(1, tt.want) || got.isRange() {
			t.Errorf("parseNumber(%q, %s) = %v (range %v..%v), want %v", tt.answer, tt.opts.unit, got.value, got.lo, got.hi, tt.want)
		}
		if got.read != tt.read {
			t.Errorf("parseNumber(%q, %s) reads as %q, want %q", tt.answer, tt.opts.unit, got.read, tt.read)
		}
	}
}

// TestParseNumberReadsRangesAndPercentages: a range keeps both ends, a
// percentage says it is one.
func TestParseNumberReadsRangesAndPercentages(t *testing.T) {
	count := numberOptions{unit: UnitCount, words: []string{"runs"}}
	secs := numberOptions{unit: UnitSeconds}
	tests := []struct {
		answer  string
		opts    numberOptions
		lo, hi  float64
		percent bool
		read    string
	}{
		{"40-50", count, 40, 50, false, "40 to 50"},
		{"40 – 50 runs", count, 40, 50, false, "40 to 50"},
		{"40 to 50", count, 40, 50, false, "40 to 50"},
		{"between 40 and 50", count, 40, 50, false, "40 to 50"},
		{"50 to 40", count, 40, 50, false, "40 to 50"},
		{"15-20 min", secs, 900, 1200, false, "900 to 1,200 s"},
		{"15 min to 20 min", secs, 900, 1200, false, "900 to 1,200 s"},
		{"1%", count, 1, 1, true, "1%"},
		{"1 %", count, 1, 1, true, "1%"},
		{"99 percent", count, 99, 99, true, "99%"},
		{"1 per cent", count, 1, 1, true, "1%"},
	}
	for _, tt := range tests {
		got, err := parseNumber(tt.answer, tt.opts)
		if err != nil {
			t.Errorf("parseNumber(%q): %v", tt.answer, err)
			continue
		}
		if got.lo != tt.lo || got.hi != tt.hi || got.percent != tt.percent || got.read != tt.read {
			t.Errorf("parseNumber(%q) = %v..%v percent %v read %q; want %v..%v percent %v read %q",
				tt.answer, got.lo, got.hi, got.percent, got.read, tt.lo, tt.hi, tt.percent, tt.read)
		}
	}
}

// TestParseNumberAsksInsteadOfGuessing: what could be read two ways, or
// not at all, comes back as a question that says what to write, and costs
// no try.
func TestParseNumberAsksInsteadOfGuessing(t *testing.T) {
	count := numberOptions{unit: UnitCount}
	secs := numberOptions{unit: UnitSeconds}
	tests := []struct {
		answer string
		opts   numberOptions
		says   string
	}{
		{"42.000", count, "Did you mean 42 or 42,000?"},
		{"1.500", count, "Did you mean 1.5 or 1,500?"},
		{"15", secs, "15 what: seconds or minutes? Write 15 s or 15 min."},
		{"900", secs, "seconds or minutes"},
		{"forty", count, "in digits"},
		{"fifty runs", count, "in digits"},
		{"", count, "empty"},
		{"20 s and 900 s", secs, "one number, not several"},
		{"50 s", count, "length of time"},
		{"15:00", count, "length of time"},
		{"Rs 50", count, "not an amount of money"},
		{"2,000 bananas", numberOptions{unit: UnitPerSecond}, `not the unit "bananas"`},
		{"15 parsecs", secs, `not the unit "parsecs"`},
		{"2,000 writes/s", numberOptions{unit: UnitRupees, words: []string{"writes"}}, "is a rate"},
		{"45x", secs, "ratio"},
		{"1%", secs, "percentage"},
		{"1,2,3", count, "digit groups"},
		{"4/0", count, "divides by zero"},
		{"Rs 40 x", numberOptions{unit: UnitRupees}, "two units"},
		// An exponent past any answer is a slip, said as one: not "1
		// and then more digits", nor a number written back in full.
		{"1e400", count, "1e400 is out of reach: no answer here needs an exponent past 18"},
		{"2e19 runs", count, "out of reach"},
		{"1e99999999999999999999", count, "out of reach"},
	}
	for _, tt := range tests {
		_, err := parseNumber(tt.answer, tt.opts)
		var fe *formatError
		if !errors.As(err, &fe) {
			t.Errorf("parseNumber(%q, %s) = %v, want a question back", tt.answer, tt.opts.unit, err)
			continue
		}
		if !strings.Contains(fe.msg, tt.says) {
			t.Errorf("parseNumber(%q, %s): %q does not say %q", tt.answer, tt.opts.unit, fe.msg, tt.says)
		}
	}
}

func TestFormatNumberWritesLikeTheLessons(t *testing.T) {
	for v, want := range map[float64]string{42000: "42,000", 0.8: "0.8", 45: "45", 1234567.5: "1,234,567.5", -3000: "-3,000", -0.0001: "0"} {
		if got := formatNumber(v); got != want {
			t.Errorf("formatNumber(%v) = %q, want %q", v, got, want)
		}
	}
}

// FuzzParseNumber feeds the answer reader anything: it must never panic,
// a number it reads must be finite with its ends in order, and the way it
// says it read an answer must read back as the same number.
func FuzzParseNumber(f *testing.F) {
	for _, s := range []string{"50", "45x", "×45", "45-fold", "4/5", "0,8", "2 000", "Rs 1,00,000", "Rs 45,000/-",
		"42k", "15:00", "1:00:00", "40-50", "between 40 and 50 runs", "1%", "42.000", "1m30s", "2,000 writes/s",
		"120,000 a minute", "~ .5", "1.000,5", "x", "-", "1e9", "9999999999999999999999", "1/3", "0:99"} {
		f.Add(s)
	}
	units := []numberOptions{
		{unit: UnitCount, words: []string{"runs"}}, {unit: UnitSeconds}, {unit: UnitSeconds, bareUnit: "min"},
		{unit: UnitRupees}, {unit: UnitPerSecond, words: []string{"writes"}},
	}
	f.Fuzz(func(t *testing.T, answer string) {
		if len(answer) > MaxAnswerLen {
			return
		}
		for _, opts := range units {
			got, err := parseNumber(answer, opts)
			if err != nil {
				var fe *formatError
				if !errors.As(err, &fe) || fe.msg == "" {
					t.Fatalf("parseNumber(%q, %s): %v is not a message for the learner", answer, opts.unit, err)
				}
				continue
			}
			for _, v := range []float64{got.value, got.lo, got.hi} {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("parseNumber(%q, %s) = %v", answer, opts.unit, got)
				}
			}
			if got.lo > got.hi || got.read == "" {
				t.Fatalf("parseNumber(%q, %s) = %+v", answer, opts.unit, got)
			}
			if got.isRange() || math.Abs(got.value) >= 1e15 {
				continue
			}
			again, err := parseNumber(got.read, opts)
			if err != nil {
				t.Fatalf("%q reads as %q, which does not read back: %v", answer, got.read, err)
			}
			// The read form rounds to two or three decimals.
			if math.Abs(again.value-got.value) > 0.005*math.Max(1, math.Abs(got.value)) || again.percent != got.percent {
				t.Fatalf("%q reads as %q = %v, which reads back as %v", answer, got.read, got.value, again.value)
			}
		}
	})
}
