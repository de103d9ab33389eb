package web

import (
	"context"
	"time"

	"github.com/leaselab/playground/classroom"
)

// The rest of countingStore's methods (see metrics.go): every method of
// classroom.Store is wrapped, so that no store error escapes the metric.
// TestCountingStoreWrapsEveryMethod fails when one is added unwrapped.

func (s countingStore) SetArchived(ctx context.Context, code, key string, archived bool) (*classroom.Class, error) {
	c, err := s.Store.SetArchived(ctx, code, key, archived)
	s.count("set_archived", err)
	return c, err
}

func (s countingStore) Purge(ctx context.Context) (int, error) {
	n, err := s.Store.Purge(ctx)
	s.count("purge", err)
	return n, err
}

func (s countingStore) SetVariants(ctx context.Context, code, key, variants string) (*classroom.Class, error) {
	c, err := s.Store.SetVariants(ctx, code, key, variants)
	s.count("set_variants", err)
	return c, err
}

func (s countingStore) GiveUp(ctx context.Context, token, exercise string, variant int) (*classroom.Progress, error) {
	p, err := s.Store.GiveUp(ctx, token, exercise, variant)
	s.count("give_up", err)
	return p, err
}

func (s countingStore) NoteRun(ctx context.Context, token string, exercises []string) error {
	err := s.Store.NoteRun(ctx, token, exercises)
	s.count("note_run", err)
	return err
}

func (s countingStore) DeviceCode(ctx context.Context, token string) (string, time.Time, error) {
	code, exp, err := s.Store.DeviceCode(ctx, token)
	s.count("device_code", err)
	return code, exp, err
}

func (s countingStore) ContinueSession(ctx context.Context, code string) (*classroom.Session, error) {
	sess, err := s.Store.ContinueSession(ctx, code)
	s.count("continue_session", err)
	return sess, err
}

func (s countingStore) Review(ctx context.Context, code, key string, r classroom.Review) (*classroom.Review, error) {
	got, err := s.Store.Review(ctx, code, key, r)
	s.count("review", err)
	return got, err
}

func (s countingStore) Answers(ctx context.Context, code, key string) ([]classroom.TextAnswer, error) {
	a, err := s.Store.Answers(ctx, code, key)
	s.count("answers", err)
	return a, err
}

func (s countingStore) Mistakes(ctx context.Context, code, key string) ([]classroom.MistakeGroup, error) {
	m, err := s.Store.Mistakes(ctx, code, key)
	s.count("mistakes", err)
	return m, err
}

func (s countingStore) ServerSecret(ctx context.Context, name string) ([]byte, error) {
	b, err := s.Store.ServerSecret(ctx, name)
	s.count("server_secret", err)
	return b, err
}

func (s countingStore) Close() error {
	err := s.Store.Close()
	s.count("close", err)
	return err
}
