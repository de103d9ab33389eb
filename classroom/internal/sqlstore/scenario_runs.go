package sqlstore

import (
	"context"
	"database/sql"
	"strings"

	"github.com/leaselab/playground/classroom"
)

// NoteRun implements classroom.Store. A learner runs the same scenario
// many times, so the runs already noted are read first and a write is
// only paid for a first one.
func (s *DB) NoteRun(ctx context.Context, token string, exercises []string) error {
	if err := classroom.CheckNotedRuns(exercises); err != nil {
		return err
	}
	if len(exercises) == 0 {
		return nil
	}
	l, err := s.learnerBySession(ctx, s.db, token, "")
	if err != nil {
		return err
	}
	noted, err := s.notedRuns(ctx, s.db, l.ID, exercises)
	if err != nil {
		return wrap("note the run", err)
	}
	if len(noted) == len(exercises) {
		return nil
	}
	err = s.write(ctx, func(tx *sql.Tx, _ func(classroom.Change)) error {
		l, err := s.learnerBySession(ctx, tx, token, s.d.ShareRow)
		if err != nil {
			return err
		}
		now := s.nowMS()
		if err := s.classOpen(ctx, tx, l.ClassID, now); err != nil {
			return err
		}
		for _, ex := range exercises {
			if _, err := tx.ExecContext(ctx, s.d.q(`INSERT INTO scenario_runs (learner_id, exercise, at) VALUES (?, ?, ?)
				ON CONFLICT (learner_id, exercise) DO NOTHING`), l.ID, ex, now); err != nil {
				return err
			}
		}
		return nil
	})
	return wrap("note the run", err)
}

// notedRuns returns which of exercises the learner has a noted run of.
func (s *DB) notedRuns(ctx context.Context, q rowsQuerier, learnerID int64, exercises []string) (map[string]bool, error) {
	marks := make([]string, len(exercises))
	args := []any{learnerID}
	for i, ex := range exercises {
		marks[i], args = "?", append(args, ex)
	}
	rows, err := q.QueryContext(ctx, s.d.q(`SELECT exercise FROM scenario_runs
		WHERE learner_id = ? AND exercise IN (`+strings.Join(marks, ", ")+`)`), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var ex string
		if err := rows.Scan(&ex); err != nil {
			return nil, err
		}
		out[ex] = true
	}
	return out, rows.Err()
}
