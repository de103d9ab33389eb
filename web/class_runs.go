package web

import (
	"context"
	"log/slog"

	"github.com/leaselab/playground/engine"
)

// noteClassRun records, for a class learner (their session token), that
// they ran sc, when sc is the very scenario of predictions of their
// variant (lessons.Catalog.PredictionsRunBy): their answers from now on
// are marked after_run, for the teacher's predictions chart and
// attempts.csv. Nothing is scored by it, and nothing about the run
// depends on it: a failure is logged, not told. A run by anyone outside
// a class costs nothing here.
func (s *Server) noteClassRun(ctx context.Context, token string, sc engine.Scenario) {
	if token == "" || s.cfg.Classroom == nil || s.cfg.Lessons == nil {
		return
	}
	l, cl, err := s.cfg.Classroom.Learner(ctx, token)
	if err != nil {
		return // not (or no longer) a learner: nothing to note
	}
	ids := s.cfg.Lessons.PredictionsRunBy(sc, learnerVariant(l, cl))
	if len(ids) == 0 {
		return
	}
	if err := s.cfg.Classroom.NoteRun(ctx, token, ids); err != nil {
		s.log.LogAttrs(ctx, slog.LevelInfo, "a prediction's run was not noted",
			slog.Int64("learner", l.ID), slog.Any("exercises", ids), slog.String("error", err.Error()))
	}
}
