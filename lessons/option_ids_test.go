package lessons_test

import (
	"context"
	"fmt"
	"hash/fnv"
	"testing"

	"github.com/leaselab/playground/lessons"
)

// TestOptionIDsLookUnrelated: the ids a page gives one exercise's options
// must look unrelated to each other. Ids that differ in one or two hex
// digits ("option-a5bfc6c7", "option-a5bfc8c7", "option-a5bfc9c7") read
// as a sequence: sorted, they give the options' order in the file, and
// with it the key the right option is filed under in most exercises.
func TestOptionIDsLookUnrelated(t *testing.T) {
	c := mustCatalog(t)
	for _, ex := range c.Exercises() {
		s, err := ex.Serve(0, lessons.Standing{})
		if err != nil {
			t.Fatal(err)
		}
		for i, a := range s.Options {
			for _, b := range s.Options[i+1:] {
				if d := hexDigitsApart(a.ID, b.ID); d < 3 {
					t.Errorf("%s: %s and %s differ in %d hex digit(s)", ex.ID, a.ID, b.ID, d)
				}
			}
		}
	}
}

// TestOldOptionIDsStillRead: attempts kept from when ids were FNV hashes
// are read as the option they named, so a regrade scores them as before.
func TestOldOptionIDsStillRead(t *testing.T) {
	c := mustCatalog(t)
	ex, err := c.Exercise("renew-faster")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"a", "b", "c"} {
		h := fnv.New64a()
		h.Write([]byte("option/" + ex.ID + "/" + k))
		old := fmt.Sprintf("option-%08x", h.Sum64()>>32)
		r, err := ex.Check(context.Background(), lessons.Attempt{Exercise: ex.ID, Answer: old})
		if err != nil {
			t.Fatal(err)
		}
		if r.Read != "option-"+k {
			t.Errorf("the old id %s of option %s is read %q", old, k, r.Read)
		}
	}
}

func hexDigitsApart(a, b string) int {
	n := 0
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			n++
		}
	}
	return n + max(len(a), len(b)) - min(len(a), len(b))
}
