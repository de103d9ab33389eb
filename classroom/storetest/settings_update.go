package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/leaselab/playground/classroom"
)

// testUpdateSettingsAtOnce: changes of the settings made at the same time
// (a teacher's two tabs, two teachers of one class) each count, however
// their writes interleave; a change's own error comes back as it was made,
// and what it makes is checked.
func testUpdateSettingsAtOnce(t *testing.T, h Harness) {
	ctx := context.Background()
	s := h.MustNew(t, classroom.Options{})
	nc := mustCreate(t, s, "Paced")
	code, key := nc.Class.Code, nc.TeacherKey
	if _, err := s.SetSettings(ctx, code, key, classroom.Settings{ShowMe: true, OpenLessons: []string{"leases"}}); err != nil {
		t.Fatal(err)
	}
	// Each opens one more lesson, from the settings as they stand; a
	// change that read them before another's write landed would drop
	// that lesson again.
	const teachers = 12
	var wg sync.WaitGroup
	errs := make(chan error, teachers)
	for i := range teachers {
		slug := fmt.Sprint("lesson-", i)
		wg.Go(func() {
			_, err := s.UpdateSettings(ctx, code, key, func(cur classroom.Settings) (classroom.Settings, error) {
				cur.OpenLessons = append(slices.Clone(cur.OpenLessons), slug)
				return cur, nil
			})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("a change at once with others: %v", err)
		}
	}
	c, err := s.Teacher(ctx, code, key)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(c.Settings.OpenLessons); got != teachers+1 {
		t.Errorf("after %d teachers each opened a lesson at once, %d lessons are open, want %d: %v", teachers, got, teachers+1, c.Settings.OpenLessons)
	}
	for i := range teachers {
		if !c.Settings.LessonOpen(fmt.Sprint("lesson-", i)) {
			t.Errorf("lesson-%d was opened but is not open: %v", i, c.Settings.OpenLessons)
		}
	}

	// A change that refuses leaves the settings be, and its error is its own.
	refused := errors.New("refused by the change")
	if _, err := s.UpdateSettings(ctx, code, key, func(classroom.Settings) (classroom.Settings, error) {
		return classroom.Settings{}, refused
	}); !errors.Is(err, refused) {
		t.Errorf("a change that refuses: %v, want its own error", err)
	}
	if _, err := s.UpdateSettings(ctx, code, key, func(cur classroom.Settings) (classroom.Settings, error) {
		cur.OpenLessons = []string{"not a slug"}
		return cur, nil
	}); classroom.ErrorCode(err) != classroom.EINVALID {
		t.Errorf("a change to settings out of bounds: %v, want EINVALID", err)
	}
	if _, err := s.UpdateSettings(ctx, code, "wrong", func(cur classroom.Settings) (classroom.Settings, error) { return cur, nil }); err == nil {
		t.Error("settings changed without the teacher key")
	}
	after, err := s.Teacher(ctx, code, key)
	if err != nil || !slices.Equal(after.Settings.OpenLessons, c.Settings.OpenLessons) {
		t.Errorf("refused changes changed the settings: %v, was %v (%v)", after.Settings.OpenLessons, c.Settings.OpenLessons, err)
	}
}
