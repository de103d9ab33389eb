package lessons_test

import (
	"context"
	"strings"
	"testing"

	"github.com/leaselab/playground/lessons"
)

// TestLettersAreTheOnesShown: a typed letter means the option shown under
// it on the learner's variant, a stable id means the same option on every
// variant, and the answer is read (and a wrong one named) by stable id.
// An answer stored before letters followed the shuffle reads as it was
// meant once rewritten with LegacyChoiceAnswer.
func TestLettersAreTheOnesShown(t *testing.T) {
	c := mustCatalog(t)
	ex, err := c.Exercise("redlock-pause")
	if err != nil {
		t.Fatal(err)
	}
	moved := 0
	for v := 0; v < 40; v++ {
		s, err := ex.Serve(v, lessons.Standing{})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range s.Options {
			byLetter, err := ex.Check(context.Background(), lessons.Attempt{Exercise: ex.ID, Answer: o.Key, Variant: v})
			if err != nil {
				t.Fatal(err)
			}
			byID, err := ex.Check(context.Background(), lessons.Attempt{Exercise: ex.ID, Answer: o.ID, Variant: v})
			if err != nil {
				t.Fatal(err)
			}
			if byLetter.Correct != byID.Correct || byLetter.Read != o.Stable || byID.Read != o.Stable {
				t.Fatalf("variant %d: (%s) and %s are read %q and %q, want %q", v, o.Key, o.ID, byLetter.Read, byID.Read, o.Stable)
			}
			if !byID.Correct && byID.Mistake != o.Stable {
				t.Errorf("variant %d: the wrong option %s is named %q", v, o.ID, byID.Mistake)
			}
			if byID.Correct && o.Stable != "option-b" {
				t.Errorf("variant %d: %s passes", v, o.Stable)
			}
			if o.Stable != "option-"+o.Key {
				moved++
			}
		}
		r, err := ex.Reveal(context.Background(), v)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(r.Solution, "**"+r.Expected+".**") {
			t.Errorf("variant %d: the answer is (%s) but the solution begins %.12q", v, r.Expected, r.Solution)
		}
		for _, o := range s.Options {
			if o.Stable == "option-b" && r.Expected != o.Key {
				t.Errorf("variant %d: the answer is shown as (%s), but option b is shown under (%s)", v, r.Expected, o.Key)
			}
		}
	}
	if moved == 0 {
		t.Error("no option is ever lettered other than by its own key")
	}
	if got := ex.LegacyChoiceAnswer("b"); got != "option-b" {
		t.Errorf("an old stored b is rewritten %q", got)
	}
	if got := ex.LegacyChoiceAnswer("the lock service"); got != "the lock service" {
		t.Errorf("an old stored alias is rewritten %q", got)
	}
}

// TestLegacyChoiceAnswerReadsAsTheOldParserDid: an answer kept from before
// the shuffle is rewritten into stable ids the way the parser of that
// time read it: keys typed together in a choose-several, parentheses,
// aliases left as written (they never moved); anything that parser could
// not read stays as it is.
func TestLegacyChoiceAnswerReadsAsTheOldParserDid(t *testing.T) {
	c := mustCatalog(t)
	ex, err := c.Exercise("four-failures")
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"abcd":            "option-a, option-b, option-c, option-d",
		"(a) (c)":         "option-a, option-c",
		"A and D.":        "option-a, option-d",
		"a, clock jump":   "option-a, clock jump",
		"pause":           "pause",
		"option-b":        "option-b",
		"a, z":            "a, z",
		"nothing like it": "nothing like it",
		"":                "",
	} {
		if got := ex.LegacyChoiceAnswer(in); got != want {
			t.Errorf("LegacyChoiceAnswer(%q) = %q, want %q", in, got, want)
		}
	}
	// What the rewrite says is what the old answer meant, on every
	// variant: "abcd" (the four right keys) is right wherever the
	// letters moved.
	for v := 0; v < 30; v++ {
		r, err := ex.Check(context.Background(), lessons.Attempt{Exercise: ex.ID, Answer: ex.LegacyChoiceAnswer("abcd"), Variant: v})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Correct {
			t.Fatalf("variant %d: the old right answer abcd, rewritten, is graded wrong: %+v", v, r)
		}
	}
}

// TestOptionIDsSayNothingOfTheKey: the id a page gives an option must not
// be its file key, since the right option is filed under the same key in
// most exercises (a learner could pick by the id, not the text). Every
// option of every exercise gets an id of its own, the same on every
// variant, and an answer that gives it is read as the option's stable id.
func TestOptionIDsSayNothingOfTheKey(t *testing.T) {
	c := mustCatalog(t)
	checked := 0
	for _, ex := range c.Exercises() {
		first, err := ex.Serve(0, lessons.Standing{})
		if err != nil {
			t.Fatal(err)
		}
		if len(first.Options) == 0 {
			continue
		}
		ids := map[string]string{}
		for _, o := range first.Options {
			if len(o.ID) != len(lessons.OptionIDPrefix)+8 || o.ID == o.Stable {
				t.Errorf("%s: option %s is served as %q", ex.ID, o.Stable, o.ID)
			}
			if other, dup := ids[o.ID]; dup {
				t.Errorf("%s: %s and %s share the id %s", ex.ID, other, o.Stable, o.ID)
			}
			ids[o.ID] = o.Stable
		}
		later, err := ex.Serve(7, lessons.Standing{})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range later.Options {
			if ids[o.ID] != o.Stable {
				t.Errorf("%s: variant 7 serves %s as %s, variant 0 as another id", ex.ID, o.Stable, o.ID)
			}
			r, err := ex.Check(context.Background(), lessons.Attempt{Exercise: ex.ID, Answer: o.ID, Variant: 7})
			if err != nil {
				t.Fatal(err)
			}
			if !later.Multiple && r.Read != o.Stable {
				t.Errorf("%s: the answer %s is read %q, want %s", ex.ID, o.ID, r.Read, o.Stable)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no option was checked")
	}
}
