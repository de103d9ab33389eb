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
			if byLetter.Correct != byID.Correct || byLetter.Read != o.ID || byID.Read != o.ID {
				t.Fatalf("variant %d: (%s) and %s are read %q and %q", v, o.Key, o.ID, byLetter.Read, byID.Read)
			}
			if !byID.Correct && byID.Mistake != o.ID {
				t.Errorf("variant %d: the wrong option %s is named %q", v, o.ID, byID.Mistake)
			}
			if byID.Correct && o.ID != "option-b" {
				t.Errorf("variant %d: %s passes", v, o.ID)
			}
			if o.ID != "option-"+o.Key {
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
			if o.ID == "option-b" && r.Expected != o.Key {
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
