package web

import (
	"context"
	"strings"
	"testing"

	"github.com/leaselab/playground/classroom"
)

// FuzzLateCreditBody reads a body, anything at all, as POST
// .../late-credit does before the store: strictly decoded, then checked
// against its bounds and the catalog. Every input is either accepted,
// naming a catalog exercise, a positive learner id and an exercise id the
// store takes, or refused with a 400 naming the field in a short message.
func FuzzLateCreditBody(f *testing.F) {
	s, err := NewServer(Config{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Shutdown(context.Background()) })
	w := s.newClassWeb()
	ex := s.cfg.Lessons.Exercises()[0].ID
	for _, body := range []string{
		``, `{}`, `{"learner_id":1,"exercise":"` + ex + `"}`, `{"learner_id":1,"exercise":"` + ex + `","credit":false}`,
		`{"learner_id":0,"exercise":"x"}`, `{"learner_id":-1}`, `{"learner_id":1e30,"exercise":"` + ex + `"}`,
		`{"learner_id":"1"}`, `{"credit":"yes"}`, `{"exercise":"` + strings.Repeat("a", 300) + `"}`, `[]`, `{"other":1}`,
	} {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var in lateCreditRequest
		err := decodeStrict(body, &in)
		if err == nil {
			got, cerr := w.checkLateCredit(in)
			if cerr == nil {
				if in.LearnerID <= 0 || got.ID != in.Exercise || len(got.ID) > classroom.MaxExerciseLen {
					t.Fatalf("%q: accepted %+v as %s", body, in, got.ID)
				}
				return
			}
			err = cerr
		}
		refusedNamingField(t, string(body), err)
	})
}
