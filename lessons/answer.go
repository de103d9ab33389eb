package lessons

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// MaxAnswerLen bounds an answer in characters; a longer one is refused with a
// clear error before anything reads it.
const MaxAnswerLen = 2000

// Units an exercise's number is measured in. A learner may type the unit or
// leave it out (except where a bare number could mean two things); a unit
// of another kind ("50 s" for a count) is a format error, not a wrong
// answer, because the learner misread the question.
const (
	UnitCount     = "count"      // runs, locks, grants; also a ratio: 45x, ×45, 45 times, 45-fold
	UnitSeconds   = "seconds"    // 20 s, 15 min, 400 ms, 1 h, 15:00, 1 min 30 s
	UnitRupees    = "rupees"     // Rs 42,000, ₹42000, Rs 1,00,000, Rs 45,000/-, 42k rupees
	UnitPerSecond = "per_second" // 2,000, 2,000 writes/s, 120,000 a minute
)

// formatError is an answer the checker could not read, or could read two
// ways: it costs no try, and its message says what to write instead.
type formatError struct{ msg string }

func (e *formatError) Error() string { return e.msg }

func formatErrorf(format string, args ...any) error {
	return &formatError{fmt.Sprintf(format, args...)}
}

// numberOptions say how an exercise's answer is read.
type numberOptions struct {
	unit string
	// words are unit words the exercise accepts after the number ("runs",
	// "writes"): they name what is counted and change nothing.
	words []string
	// bareUnit is the unit a number without one is read in, for a time
	// whose question says which unit it wants ("in seconds"). Empty for
	// seconds means a bare number could be seconds or minutes, and the
	// learner is asked which.
	bareUnit string
	// ratio says the answer is a factor (45x): a percentage is read as
	// one (4500% is 45x) instead of as a share.
	ratio bool
}

// parsedNumber is what the checker read from an answer.
type parsedNumber struct {
	value float64 // in the exercise's canonical unit; a range's middle
	// lo and hi are the ends of a range ("40 to 50 s"); both are value for
	// a single number.
	lo, hi float64
	read   string  // how it was read, for feedback ("900 s")
	step   float64 // the precision typed (0.001 for "0.022"), in the canonical unit
	// percent is set for "1%" or "1 percent": a share, which is a mistake
	// where a count is asked (the checker says so).
	percent bool
	// bare is set for a number typed without a unit, which a neighbouring
	// unit could have been meant for.
	bare bool
	// of holds a fraction's two whole numbers ("2/5", "two of five"),
	// which may be a count out of a total rather than a share.
	of *[2]float64
}

// isRange reports whether the answer was a range rather than one number.
func (p parsedNumber) isRange() bool { return p.lo != p.hi }

// parseNumber reads a numeric answer the way people write it, in the unit
// of the exercise. What it reads (each is in the tests):
//
//   - digit groups: 2,000 and 2 000 (also with a no-break space), Indian
//     1,00,000, European 1.000.000 and 1.000,5; decimals 0.8, .8 and the
//     decimal comma 0,8 and 1,5;
//   - 42k, 1.5 thousand, 2 lakh, 1 crore, 3 million; fractions 4/5;
//   - ratios 45x, x45, ×45, 45 times (longer), 45-fold;
//   - money Rs 42,000, Rs. 42000, ₹42,000, INR 42000, 42,000 rupees,
//     Rs 45,000/-;
//   - times 20 s, 20 seconds, 15 min, 400 ms, 1 h, 1m30s, 1 min 30 s, 15:00
//     (minutes and seconds), 1:00:00; rates 2,000/s, 2,000 a second,
//     120,000 per minute;
//   - ranges: 40-50, 40 to 50 s, between 40 and 50;
//   - hedges before the number: about, around, roughly, ~, ≈, =.
//
// Questions instead of guesses, each a formatError that costs no try:
// 42.000 (forty-two, or forty-two thousand written the European way?), a
// bare 15 for a time when the question allows seconds or minutes, a unit of
// the wrong kind, two numbers, and numbers in words ("forty").
func parseNumber(answer string, opts numberOptions) (parsedNumber, error) {
	s := normalizeAnswer(answer)
	if s == "" {
		return parsedNumber{}, formatErrorf("The answer is empty: type a number, like %s.", example(opts.unit))
	}
	if lo, hi, ok := splitRange(s); ok {
		a, err := parseQuantity(lo, opts)
		if err != nil {
			return parsedNumber{}, err
		}
		b, err := parseQuantity(hi, opts)
		if err != nil {
			return parsedNumber{}, err
		}
		if a.kind == unitNone && b.kind != unitNone {
			// "40-50 s": the unit after the second number is the range's.
			if a, err = parseQuantity(lo+" "+b.unitText, opts); err != nil {
				return parsedNumber{}, err
			}
		}
		pa, err := a.in(opts, lo)
		if err != nil {
			return parsedNumber{}, err
		}
		pb, err := b.in(opts, hi)
		if err != nil {
			return parsedNumber{}, err
		}
		if pa.percent != pb.percent {
			return parsedNumber{}, formatErrorf("One end of %q is a percentage and the other is not: give one number.", clip(answer))
		}
		if pa.value > pb.value {
			pa, pb = pb, pa
		}
		if pa.value == pb.value {
			return pa, nil // "40-40" is just 40
		}
		return parsedNumber{value: (pa.value + pb.value) / 2, lo: pa.value, hi: pb.value,
			read: rangeRead(pa, pb, opts.unit), step: math.Max(pa.step, pb.step), percent: pa.percent}, nil
	}
	q, err := parseQuantity(s, opts)
	if err != nil {
		return parsedNumber{}, err
	}
	return q.in(opts, s)
}

// unitKind is the kind of unit an answer wrote after (or before) its number.
type unitKind int

const (
	unitNone unitKind = iota
	unitTime
	unitRate
	unitMoney
	unitRatio
	unitPercent
	unitClock // 15:00
	unitOther // words this exercise does not know
)

// quantity is one number with the unit written beside it, before it is
// checked against the exercise's unit.
type quantity struct {
	num      float64
	step     float64
	digits   string   // the number as typed, for messages
	kind     unitKind // what kind of unit came with it
	factor   float64  // time to seconds, rate to per second
	unitText string   // the unit as typed, for messages
	of       *[2]float64
}

var (
	spacesRE = regexp.MustCompile(`\s+`)
	// numberRE is the number at the start of a quantity: digits with
	// separators (classified by readDigits), or a decimal that starts with
	// its point. Space-grouped thousands ("2 000") are joined before.
	numberRE = regexp.MustCompile(`^[-+]?(?:\d[\d,.]*\d|\d|[.,]\d+)`)
	// spaceGroupRE finds "2 000" and "1 000 000": groups of exactly three
	// digits after a space.
	spaceGroupRE = regexp.MustCompile(`(^|[^\d.,])(\d{1,3}(?: \d{3})+)(?:$|[^\d.,])`)
	fractionRE   = regexp.MustCompile(`^(\d+(?:\.\d+)?)\s*/\s*(\d+(?:\.\d+)?)($|[^\d])`)
	clockRE      = regexp.MustCompile(`^(\d{1,3}):([0-5]\d)(?::([0-5]\d))?($|[^\d])`)
	rangeRE      = regexp.MustCompile(`^(.*?\d.*?)\s*(?:-|–|—|\bto\b|\.\.)\s*([-+]?[\d.,].*)$`)
	betweenRE    = regexp.MustCompile(`^(?:between|from)\s+(.+?)\s+(?:and|to)\s+(.+)$`)
	digitRE      = regexp.MustCompile(`\d`)
	westernRE    = regexp.MustCompile(`^\d{1,3}(,\d{3})+$`)
	indianRE     = regexp.MustCompile(`^\d{1,2}(,\d{2})*,\d{3}$`)
	europeanRE   = regexp.MustCompile(`^\d{1,3}(\.\d{3})+$`)
	sciRE        = regexp.MustCompile(`^e[-+]?\d+\b`)
	outOfRE      = regexp.MustCompile(`^([a-z]+|\d+) (?:of|out of) ([a-z]+|\d+)((?: [a-z]+)?)$`)
)

// smallWords are the numbers people write in words in "two of five".
var smallWords = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
	"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"}

// smallNumber reads a whole number in digits, or in words up to twenty.
func smallNumber(s string) (float64, bool) {
	if n, err := strconv.Atoi(s); err == nil && n >= 0 && n <= 1_000_000 {
		return float64(n), true
	}
	for i, w := range smallWords {
		if s == w {
			return float64(i), true
		}
	}
	return 0, false
}

// normalizeAnswer lower-cases an answer, makes every kind of space one
// space, and drops what people put around a number that says nothing: a
// full stop, the "/-" after an Indian amount, hedges like "about".
func normalizeAnswer(answer string) string {
	s := strings.ToLower(strings.TrimSpace(answer))
	s = strings.NewReplacer("\u00a0", " ", "\u202f", " ", "\u2009", " ", "\u2007", " ", "−", "-").Replace(s)
	s = spacesRE.ReplaceAllString(s, " ")
	for changed := true; changed; {
		changed = false
		trimmed := strings.TrimSpace(strings.TrimRight(s, ".!"))
		trimmed = strings.TrimSpace(strings.TrimSuffix(trimmed, "/-"))
		if trimmed != s {
			s, changed = trimmed, true
		}
		for _, w := range hedgeWords {
			if strings.HasPrefix(s, w) {
				s, changed = strings.TrimSpace(s[len(w):]), true
			}
		}
	}
	return s
}

// hedgeWords are put before a number and mean nothing for grading.
var hedgeWords = []string{"about ", "around ", "approximately ", "approx. ", "approx ", "roughly ",
	"nearly ", "almost ", "~", "≈", "= ", "=",
	// Bounds: the question asks for the most, and "up to 15 minutes" gives it.
	"up to ", "at most ", "no more than ", "not more than ", "maximum ", "max. ", "max ", "within ",
	"<= ", "<=", "≤ ", "≤"}

// splitRange splits "40-50", "40 to 50 s" or "between 40 and 50" into its
// two ends. A leading minus is a sign, not a range; "45-fold" is no range.
func splitRange(s string) (lo, hi string, ok bool) {
	if m := betweenRE.FindStringSubmatch(s); m != nil && digitRE.MatchString(m[1]) && digitRE.MatchString(m[2]) {
		return m[1], m[2], true
	}
	m := rangeRE.FindStringSubmatch(s)
	if m == nil || strings.HasSuffix(m[1], "x") && len(m[1]) == 1 {
		return "", "", false
	}
	return m[1], m[2], true
}

// parseQuantity reads one number and the unit written with it.
func parseQuantity(s string, opts numberOptions) (quantity, error) {
	s = strings.TrimSpace(s)
	q := quantity{factor: 1}
	// Prefixes: a ratio's x or ×, a currency.
	for _, p := range []string{"x ", "×", "x"} {
		if rest, ok := strings.CutPrefix(s, p); ok && rest != "" && (digitRE.MatchString(rest[:1]) || rest[0] == '.') {
			s, q.kind, q.unitText = strings.TrimSpace(rest), unitRatio, "x"
			break
		}
	}
	for _, c := range []string{"rs.", "rs", "inr", "₹", "rupees", "rupee"} {
		if rest, ok := strings.CutPrefix(s, c); ok {
			rest = strings.TrimSpace(rest)
			if rest != "" && (digitRE.MatchString(rest[:1]) || strings.ContainsRune(".-+", rune(rest[0]))) {
				s, q.kind, q.unitText = rest, unitMoney, "Rs"
				break
			}
		}
	}
	if opts.unit == UnitSeconds && q.kind == unitNone {
		if secs, ok := parseDurationWords(s); ok {
			return quantity{num: secs, step: 0.001, digits: s, kind: unitTime, factor: 1, unitText: "s"}, nil
		}
	}
	if m := clockRE.FindStringSubmatch(s); m != nil && strings.TrimSpace(s[len(m[0])-len(m[4]):]) == "" {
		a, _ := strconv.Atoi(m[1])
		b, _ := strconv.Atoi(m[2])
		secs := float64(a*60 + b)
		if m[3] != "" { // h:mm:ss
			c, _ := strconv.Atoi(m[3])
			secs = float64(a*3600+b*60) + float64(c)
		}
		return quantity{num: secs, step: 1, digits: strings.TrimSpace(s), kind: unitClock, factor: 1, unitText: ":"}, nil
	}
	s = joinSpaceGroups(s)
	if m := outOfRE.FindStringSubmatch(s); m != nil {
		// "2 of 5", "two out of five servers": a count out of a total.
		a, okA := smallNumber(m[1])
		b, okB := smallNumber(m[2])
		if okA && okB && b >= 2 && a <= b {
			q.num, q.digits, q.of = a/b, fmt.Sprintf("%g of %g", a, b), &[2]float64{a, b}
			return q, q.readUnit(strings.TrimSpace(m[3]), opts)
		}
	}
	var rest string
	if m := fractionRE.FindStringSubmatch(s); m != nil {
		a, _ := strconv.ParseFloat(m[1], 64)
		b, _ := strconv.ParseFloat(m[2], 64)
		if b == 0 {
			return q, formatErrorf("%s divides by zero: give the number itself.", clip(m[1]+"/"+m[2]))
		}
		q.num, q.step, q.digits = a/b, 0, m[1]+"/"+m[2]
		rest = s[len(m[0])-len(m[3]):]
		if a == math.Trunc(a) && b == math.Trunc(b) && b >= 2 && a <= b {
			q.of = &[2]float64{a, b}
		}
	} else {
		m := numberRE.FindString(s)
		if m == "" {
			if numberWordRE.MatchString(s) {
				return q, formatErrorf("Type the number in digits, like %s: %q is a number in words.", example(opts.unit), clip(s))
			}
			return q, formatErrorf("I could not read a number in %q. Type it in digits, like %s.", clip(s), example(opts.unit))
		}
		v, step, err := readDigits(m)
		if err != nil {
			return q, err
		}
		q.num, q.step, q.digits = v, step, m
		rest = s[len(m):]
		if e := sciRE.FindString(rest); e != "" {
			// 4.5e1: scientific notation.
			x, err := strconv.Atoi(strings.TrimPrefix(e[1:], "+"))
			if err != nil || x > maxExponent || x < -maxExponent {
				return q, formatErrorf("%s is out of reach: no answer here needs an exponent past %d either way (1e5 is 100,000).", clip(m+e), maxExponent)
			}
			q.num *= math.Pow(10, float64(x))
			q.step *= math.Pow(10, float64(x))
			q.digits += e
			rest = rest[len(e):]
		}
	}
	rest = strings.TrimSpace(rest)
	// Multipliers: 42k, 2 lakh, 1.5 thousand.
	for _, mul := range multipliers {
		if r, ok := strings.CutPrefix(rest, mul.word); ok && (r == "" || !isLetter(r[0])) {
			q.num *= mul.factor
			q.step *= mul.factor
			q.digits += mul.word
			rest = strings.TrimSpace(r)
			break
		}
	}
	if digitRE.MatchString(rest) {
		return q, formatErrorf("Give one number, not several: I read %s and then more digits.", clip(q.digits))
	}
	return q, q.readUnit(rest, opts)
}

// maxExponent bounds scientific notation's exponent: past any answer an
// exercise asks for (the universe's age in seconds is about 4e17), so a
// number beyond it is a slip, said as one, not a number read and written
// back digit by digit.
const maxExponent = 18

// numberWordRE spots numbers written in words, to say why they are not read.
var numberWordRE = regexp.MustCompile(`^(zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|half|a hundred|a thousand)\b`)

// multipliers are the words people put after a number for its size.
var multipliers = []struct {
	word   string
	factor float64
}{
	{"thousand", 1e3}, {"lakhs", 1e5}, {"lakh", 1e5}, {"lacs", 1e5}, {"lac", 1e5},
	{"crores", 1e7}, {"crore", 1e7}, {"million", 1e6}, {"mn", 1e6}, {"k", 1e3},
}

func isLetter(b byte) bool { return b >= 'a' && b <= 'z' }

// readDigits reads a number's digits and separators. The separators say
// which convention was used: commas between groups of three (or the
// Indian 1,00,000), dots between groups of three (European), a single
// comma before other than three digits (a decimal comma: 0,8), or both
// (1,000.5 and 1.000,5). A single dot before exactly three digits is the
// one case that could be either, and is asked about.
func readDigits(m string) (float64, float64, error) {
	sign := ""
	if m[0] == '-' || m[0] == '+' {
		sign, m = m[:1], m[1:]
	}
	if strings.HasPrefix(m, ",") { // ",5"
		m = "." + m[1:]
	}
	commas, dots := strings.Count(m, ","), strings.Count(m, ".")
	intPart, frac := m, ""
	switch {
	case commas == 0 && dots == 0:
	case commas > 0 && dots > 0:
		lastComma, lastDot := strings.LastIndex(m, ","), strings.LastIndex(m, ".")
		if lastDot > lastComma && dots == 1 { // 1,000.5
			intPart, frac = m[:lastDot], m[lastDot+1:]
			if !westernRE.MatchString(intPart) && !indianRE.MatchString(intPart) {
				return 0, 0, formatErrorf("I could not read the digit groups of %q: write it like 1,000.5 or 1000.5.", clip(m))
			}
		} else if lastComma > lastDot && commas == 1 { // 1.000,5
			intPart, frac = m[:lastComma], m[lastComma+1:]
			if !europeanRE.MatchString(intPart) {
				return 0, 0, formatErrorf("I could not read the digit groups of %q: write it like 1000.5.", clip(m))
			}
		} else {
			return 0, 0, formatErrorf("I could not read %q as one number: write it like 1,000.5 or 1000.5.", clip(m))
		}
	case commas == 1:
		before, after, _ := strings.Cut(m, ",")
		if len(after) == 3 && before != "0" && before != "" {
			intPart = m // 2,000
		} else {
			intPart, frac = before, after // 0,8 and 1,5: a decimal comma
		}
	case commas > 1:
		if !westernRE.MatchString(m) && !indianRE.MatchString(m) {
			return 0, 0, formatErrorf("I could not read the digit groups of %q: write it like 1,000,000 or 10,00,000.", clip(m))
		}
	case dots == 1:
		before, after, _ := strings.Cut(m, ".")
		if len(after) == 3 && before != "0" && before != "" {
			dec, _ := strconv.ParseFloat(before+"."+after, 64)
			whole, _ := strconv.ParseFloat(before+after, 64)
			return 0, 0, formatErrorf("Did you mean %s or %s? A point before three digits can be either: write it without the point, or with a comma for thousands.",
				clip(formatNumber(dec)), clip(formatNumber(whole)))
		}
		intPart, frac = before, after
	default: // several dots: 1.000.000
		if !europeanRE.MatchString(m) {
			return 0, 0, formatErrorf("I could not read %q as a number: write it like 1000000 or 1,000,000.", clip(m))
		}
		intPart = strings.ReplaceAll(m, ".", "")
	}
	intPart = strings.NewReplacer(",", "", ".", "").Replace(intPart)
	if intPart == "" {
		intPart = "0"
	}
	src := sign + intPart
	step := 1.0
	if frac != "" {
		src += "." + frac
		step = math.Pow(10, -float64(len(frac)))
	}
	v, err := strconv.ParseFloat(src, 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, 0, formatErrorf("I could not read %q as a number.", clip(m))
	}
	return v, step, nil
}

// joinSpaceGroups writes "2 000" and "1 000 000" without their spaces, so
// they read as one number.
func joinSpaceGroups(s string) string {
	var b strings.Builder
	last := 0
	for _, m := range spaceGroupRE.FindAllStringSubmatchIndex(s, -1) {
		b.WriteString(s[last:m[4]])
		b.WriteString(strings.ReplaceAll(s[m[4]:m[5]], " ", ""))
		last = m[5]
	}
	b.WriteString(s[last:])
	return b.String()
}

// timeUnits converts a time unit to seconds.
var timeUnits = map[string]float64{
	"ms": 0.001, "msec": 0.001, "millisecond": 0.001, "milliseconds": 0.001,
	"s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1,
	"m": 60, "min": 60, "mins": 60, "minute": 60, "minutes": 60,
	"h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600, "hours": 3600,
}

// rateUnits converts "per time" tails to per second.
var rateUnits = map[string]float64{}

func init() {
	for per, f := range map[string]float64{"second": 1, "sec": 1, "s": 1, "minute": 60, "min": 60, "hour": 3600, "hr": 3600, "h": 3600} {
		for _, pre := range []string{"/", "/ ", "per ", "a ", "an ", "each ", "every "} {
			rateUnits[pre+per] = 1 / f
		}
	}
	rateUnits["ps"] = 1
	// Rates named for what is counted: queries, requests, transactions,
	// operations a second.
	for _, w := range []string{"qps", "rps", "tps", "ops", "iops", "op/s", "ops/s", "ops/sec", "req/s", "requests/s", "writes/s", "w/s"} {
		rateUnits[w] = 1
	}
}

// ratioWords follow a count that is a ratio: 45x, 45 times longer.
var ratioWords = []string{"x", "×", "times", "times longer", "times as long", "times more", "fold", "-fold", "fold longer", "-fold longer"}

// percentWords follow a percentage.
var percentWords = []string{"%", "percent", "per cent", "pc"}

// moneyWords follow an amount in rupees.
var moneyWords = []string{"rupees", "rupee", "rs", "rs.", "inr", "₹"}

// readUnit reads what follows the number: a unit of some kind, perhaps
// after the exercise's own words ("2,000 writes/s", "50 runs").
func (q *quantity) readUnit(tail string, opts numberOptions) error {
	if tail == "" {
		return nil
	}
	found, factor := unitOf(tail)
	if found == unitOther {
		if tail = stripWords(tail, opts.words); tail == "" {
			return nil
		}
		found, factor = unitOf(tail)
	}
	q.unitText = tail
	if q.kind != unitNone && q.kind != found {
		return formatErrorf("I read %s with two units, %q and %q: give one.", clip(q.digits), q.unitTextBefore(), clip(tail))
	}
	q.kind, q.factor = found, factor
	return nil
}

// unitOf names the kind of unit a tail is, and its factor to seconds or
// to per second.
func unitOf(tail string) (unitKind, float64) {
	switch {
	case contains(percentWords, tail):
		return unitPercent, 1
	case contains(ratioWords, tail):
		return unitRatio, 1
	case contains(moneyWords, tail):
		return unitMoney, 1
	}
	if f, ok := timeUnits[tail]; ok {
		return unitTime, f
	}
	if f, ok := rateUnits[tail]; ok {
		return unitRate, f
	}
	return unitOther, 1
}

// unitTextBefore names the unit written before the number.
func (q *quantity) unitTextBefore() string {
	if q.kind == unitMoney {
		return "Rs"
	}
	return "x"
}

// in checks a quantity against the exercise's unit and converts it.
func (q quantity) in(opts numberOptions, typed string) (parsedNumber, error) {
	v := q.num
	p := parsedNumber{step: q.step}
	switch q.kind {
	case unitPercent:
		if opts.ratio {
			// 4500% of the short wait is 45 times it.
			v /= 100
			p.step /= 100
			break
		}
		if opts.unit != UnitCount && opts.unit != "" {
			return p, formatErrorf("%s%% is a percentage, but this answer is %s.", formatNumber(v), describeUnit(opts.unit))
		}
		p.percent = true
		p.value, p.lo, p.hi, p.read = v, v, v, formatNumber(v)+"%"
		return p, nil
	case unitMoney:
		if opts.unit != UnitRupees {
			return p, formatErrorf("This answer is %s, not an amount of money.", describeUnit(opts.unit))
		}
	case unitRatio:
		if opts.unit != UnitCount && opts.unit != "" {
			return p, formatErrorf("%q reads as a ratio, but this answer is %s, like %s.", clip(typed), describeUnit(opts.unit), example(opts.unit))
		}
	case unitTime, unitClock:
		if opts.unit != UnitSeconds {
			return p, formatErrorf("%q is a length of time, but this answer is %s.", clip(typed), describeUnit(opts.unit))
		}
		v *= q.factor
		p.step *= q.factor
	case unitRate:
		if opts.unit != UnitPerSecond {
			return p, formatErrorf("%q is a rate, but this answer is %s.", clip(q.unitText), describeUnit(opts.unit))
		}
		v *= q.factor
		p.step *= q.factor
	case unitOther:
		return p, formatErrorf("I read the number %s but not the unit %q: this answer is %s, like %s.", clip(q.digits), clip(q.unitText), describeUnit(opts.unit), example(opts.unit))
	case unitNone:
		if opts.unit == UnitSeconds && v != 0 {
			f, ok := timeUnits[opts.bareUnit]
			if !ok {
				if len(q.digits) > 12 {
					return p, formatErrorf("%s what: seconds or minutes? Add the unit, like 20 s or 15 min.", clip(q.digits))
				}
				return p, formatErrorf("%s what: seconds or minutes? Write %s s or %s min.", q.digits, q.digits, q.digits)
			}
			v *= f
			p.step *= f
		}
	}
	p.value, p.lo, p.hi, p.read = v, v, v, formatIn(v, opts.unit)
	p.bare, p.of = q.kind == unitNone, q.of
	return p, nil
}

// parseDurationWords reads a time made of number-unit pairs: "1m30s",
// "1 min 30 s", "2 hours 15 minutes", "900s". It reports false for
// anything else, including a bare number.
func parseDurationWords(s string) (float64, bool) {
	s = strings.ReplaceAll(s, " ", "")
	if s == "" || !digitRE.MatchString(s[:1]) && s[0] != '.' {
		return 0, false
	}
	total, pairs := 0.0, 0
	for s != "" {
		i := 0
		for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
			i++
		}
		if i == 0 {
			return 0, false
		}
		v, err := strconv.ParseFloat(s[:i], 64)
		if err != nil {
			return 0, false
		}
		j := i
		for j < len(s) && isLetter(s[j]) {
			j++
		}
		f, ok := timeUnits[s[i:j]]
		if !ok {
			return 0, false
		}
		total += v * f
		pairs++
		s = s[j:]
	}
	// One pair ("900s") is read the same way by the general reader; two or
	// more are what only this reads.
	return total, pairs >= 2
}

// rangeRead writes a range the way the checker read it.
func rangeRead(a, b parsedNumber, unit string) string {
	switch {
	case a.percent:
		return formatNumber(a.value) + "% to " + formatNumber(b.value) + "%"
	case unit == UnitRupees:
		return formatIn(a.value, unit) + " to " + formatIn(b.value, unit)
	}
	return formatNumber(a.value) + " to " + formatIn(b.value, unit)
}

// stripWords removes the exercise's own unit words ("runs", "writes") from
// a unit tail, so "2,000 writes/s" and "50 runs" read cleanly.
func stripWords(tail string, words []string) string {
	// Longest first, so "lock writes" wins over "writes".
	sorted := append([]string(nil), words...)
	sort.Slice(sorted, func(i, j int) bool { return len(sorted[i]) > len(sorted[j]) })
	for _, w := range sorted {
		w = strings.ToLower(w)
		switch {
		case tail == w:
			return ""
		case strings.HasPrefix(tail, w+" "):
			return strings.TrimSpace(tail[len(w):])
		case strings.HasPrefix(tail, w+"/"):
			return tail[len(w):]
		}
	}
	return tail
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func describeUnit(unit string) string {
	switch unit {
	case UnitSeconds:
		return "a length of time"
	case UnitRupees:
		return "an amount in rupees"
	case UnitPerSecond:
		return "a number per second"
	}
	return "a plain number"
}

func example(unit string) string {
	switch unit {
	case UnitSeconds:
		return `"20 s" or "15 min"`
	case UnitRupees:
		return `"Rs 42,000"`
	case UnitPerSecond:
		return `"2,000" or "2,000 writes/s"`
	}
	return `"50" or "45x"`
}

// clip shortens what is quoted back to the learner.
func clip(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}

// formatNumber writes a number the way the lessons do: thousands
// separators, no trailing zeros, and at most three decimals below 1 and two
// from 1 on. Two, because 8.571 would read as the ambiguous "point before
// three digits" (8.571 or 8,571?) that the answer reader asks about.
func formatNumber(v float64) string {
	if v == 0 {
		v = 0 // not -0
	}
	neg := v < 0
	if neg {
		v = -v
	}
	decimals := 3
	if v >= 1 {
		decimals = 2
	}
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "0" {
		neg = false
	}
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, r := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if frac != "" {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}

// formatIn writes a value with its unit, as the checker's own answer would
// be typed.
func formatIn(v float64, unit string) string {
	switch unit {
	case UnitSeconds:
		return formatNumber(v) + " s"
	case UnitRupees:
		return "Rs " + formatNumber(v)
	case UnitPerSecond:
		return formatNumber(v) + " a second"
	}
	return formatNumber(v)
}
