package sqlite_test

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/classroom/sqlite"
)

// FuzzJoin sends join codes and names, as POST /api/classes/{code}/join
// would, to a real store holding one class. Whatever arrives, the answer
// is a learner or a user's error (bad input, no such class, a taken or
// look-alike name, a full class), never a store failure; messages are
// short; a learner who got in is in the class the code names, under the
// name the rules made of what was typed.
func FuzzJoin(f *testing.F) {
	ctx := context.Background()
	s, err := sqlite.Open(ctx, f.TempDir(), classroom.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	nc, err := s.CreateClass(ctx, "Fuzz")
	if err != nil {
		f.Fatal(err)
	}
	code := nc.Class.Code
	for _, seed := range [][2]string{
		{code, "Ana"}, {strings.ToLower(code), "ana"}, {code[:3] + "-" + code[3:], "Bo"}, {code, "\u0410na"},
		{code, "A\u200bna"}, {"ZZZZZZ", "Cy"}, {"", "Dee"}, {"O0O0O0", "Eve"}, {code + "\u202e", "Fay"},
		{strings.Repeat("K", 1000), "Gus"}, {code, strings.Repeat("é", 41)}, {code, "AIice"}, {"\xff", "\xff"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, c, name string) {
		sess, err := s.Join(ctx, c, name)
		if err != nil {
			switch classroom.ErrorCode(err) {
			case classroom.EINVALID, classroom.ENOTFOUND, classroom.ECONFLICT, classroom.ELIMIT:
			default:
				t.Fatalf("join %q as %q: %v", c, name, err)
			}
			if msg := classroom.ErrorMessage(err); utf8.RuneCountInString(msg) > 300 || msg == "" {
				t.Fatalf("join %q as %q: a message of %d characters", c, name, utf8.RuneCountInString(msg))
			}
			return
		}
		if sess.Class.ID != nc.Class.ID || classroom.NormalizeCode(c) != code {
			t.Fatalf("join %q got into class %s", c, sess.Class.Code)
		}
		want, err := classroom.CleanLearnerName("name", name)
		if err != nil || sess.Learner.Name != want {
			t.Fatalf("join as %q: stored %q, the rules make %q (%v)", name, sess.Learner.Name, want, err)
		}
	})
}
