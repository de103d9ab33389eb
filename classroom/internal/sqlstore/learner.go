package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/leaselab/playground/classroom"
)

// Join implements classroom.Store.
func (s *DB) Join(ctx context.Context, code, name string) (*classroom.Session, error) {
	return s.JoinAs(ctx, code, classroom.Profile{Name: name})
}

// JoinAs implements classroom.Store.
func (s *DB) JoinAs(ctx context.Context, code string, p classroom.Profile) (*classroom.Session, error) {
	p, err := classroom.CleanProfile(p)
	if err != nil {
		return nil, err
	}
	name := p.Name
	key := classroom.NameKey(name)
	token := classroom.NewSecret()
	sess := &classroom.Session{Token: token}
	err = s.write(ctx, func(tx *sql.Tx, changed func(classroom.Change)) error {
		// The locked class row makes joins to one class take turns, so the
		// count and the name check below cannot race another join.
		c, err := s.classByCode(ctx, tx, code, s.d.LockRow)
		if err != nil {
			return err
		}
		now := s.nowMS()
		if err := c.ClosedError(fromMS(now), "learners or answers"); err != nil {
			return err
		}
		if !c.JoinOpen {
			return classroom.Errorf(classroom.ECONFLICT, "class %s is closed for joining; ask your teacher", c.Code)
		}
		var n int
		if err := tx.QueryRowContext(ctx, s.d.q(`SELECT COUNT(*) FROM learners WHERE class_id = ?`), c.ID).Scan(&n); err != nil {
			return err
		}
		if n >= s.opts.Limits.MaxLearnersPerClass {
			return classroom.Errorf(classroom.ELIMIT, "class %s is full: it has %d learners, the limit", c.Code, s.opts.Limits.MaxLearnersPerClass)
		}
		var taken string
		err = tx.QueryRowContext(ctx, s.d.q(`SELECT name FROM learners WHERE class_id = ? AND name_key = ?`), c.ID, key).Scan(&taken)
		if err == nil {
			return nameTaken(name, taken)
		} else if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		// One row per student ID: a gradebook import matches rows by it,
		// and keeps one of two.
		if p.StudentID != "" {
			var one int
			err = tx.QueryRowContext(ctx, s.d.q(`SELECT 1 FROM learners WHERE class_id = ? AND LOWER(student_id) = LOWER(?)`), c.ID, p.StudentID).Scan(&one)
			if err == nil {
				return classroom.Errorf(classroom.ECONFLICT, "student_id: another learner of this class has the student ID %q; if it is yours, ask your teacher (a class keeps one row per student ID)", p.StudentID)
			} else if !errors.Is(err, sql.ErrNoRows) {
				return err
			}
		}
		// And per email, which Moodle's import matches rows by.
		if p.Email != "" {
			var one int
			err = tx.QueryRowContext(ctx, s.d.q(`SELECT 1 FROM learners WHERE class_id = ? AND LOWER(email) = LOWER(?)`), c.ID, p.Email).Scan(&one)
			if err == nil {
				return classroom.Errorf(classroom.ECONFLICT, "email: another learner of this class has the email %q; if it is yours, ask your teacher (a class keeps one row per email)", p.Email)
			} else if !errors.Is(err, sql.ErrNoRows) {
				return err
			}
		}
		l := &classroom.Learner{ClassID: c.ID, Name: name, JoinedAt: fromMS(now), StudentID: p.StudentID, Email: p.Email}
		if err := tx.QueryRowContext(ctx, s.d.q(`INSERT INTO learners (class_id, name, name_key, session_hash, joined_at, student_id, email)
			VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`), c.ID, name, key, classroom.HashSecret(token), now, p.StudentID, p.Email).Scan(&l.ID); err != nil {
			return err
		}
		// What the teacher showed the class before this learner came is
		// shown to the class they join.
		if err := s.markRevealedToClass(ctx, tx, c.ID, l.ID, c.Settings.Revealed, now); err != nil {
			return err
		}
		if err := s.touch(ctx, tx, c.ID, now, 0); err != nil {
			return err
		}
		sess.Learner, sess.Class = l, c
		changed(classroom.Change{ClassID: c.ID, Kind: classroom.ChangeJoin, LearnerID: l.ID})
		return nil
	})
	if err != nil {
		return nil, wrap("add you to the class", err)
	}
	return sess, nil
}

// nameTaken is the error for a name whose key another learner of the
// class has: the same name, or one that would look the same on the
// dashboard, in which case it says which, so the learner sees why.
func nameTaken(name, taken string) error {
	if strings.EqualFold(name, taken) {
		return classroom.Errorf(classroom.ECONFLICT, "name: %q is already taken in this class; choose another", name)
	}
	return classroom.Errorf(classroom.ECONFLICT, "name: %q looks too much like %q, who is already in this class; add an initial or choose another name", name, taken)
}

// touch records use of a class for its retention. Answers pass an hour
// as every, so a busy class writes its row once an hour, not once per
// answer; other changes pass 0.
func (s *DB) touch(ctx context.Context, tx *sql.Tx, classID, now int64, every time.Duration) error {
	_, err := tx.ExecContext(ctx, s.d.q(`UPDATE classes SET active_at = ? WHERE id = ? AND active_at < ?`),
		now, classID, now-every.Milliseconds())
	return err
}

// learnerBySession reads the learner of a session token, or EUNAUTHORIZED.
func (s *DB) learnerBySession(ctx context.Context, q querier, token, lock string) (*classroom.Learner, error) {
	if token == "" {
		return nil, classroom.Errorf(classroom.EUNAUTHORIZED, "join a class first")
	}
	var l classroom.Learner
	var joined int64
	err := q.QueryRowContext(ctx, s.d.q(`SELECT id, class_id, name, joined_at, student_id, email FROM learners WHERE session_hash = ?`+lock),
		classroom.HashSecret(token)).Scan(&l.ID, &l.ClassID, &l.Name, &joined, &l.StudentID, &l.Email)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, classroom.Errorf(classroom.EUNAUTHORIZED, "your class session has ended (you went on in another browser, or the teacher removed you): continue here with a device code from that browser, or join the class again with its code")
	}
	if err != nil {
		return nil, wrap("read the learner's session", err)
	}
	l.JoinedAt = fromMS(joined)
	return &l, nil
}

// Learner implements classroom.Store.
func (s *DB) Learner(ctx context.Context, token string) (*classroom.Learner, *classroom.Class, error) {
	l, err := s.learnerBySession(ctx, s.db, token, "")
	if err != nil {
		return nil, nil, err
	}
	c, err := s.scanClass(s.db.QueryRowContext(ctx, s.d.q(`SELECT `+classColumns+` FROM classes WHERE id = ?`), l.ClassID))
	if err != nil {
		return nil, nil, wrap("read the class", err)
	}
	return l, c, nil
}

// RemoveLearner implements classroom.Store.
func (s *DB) RemoveLearner(ctx context.Context, code, key string, learnerID int64) error {
	c, err := s.Teacher(ctx, code, key)
	if err != nil {
		return err
	}
	err = s.write(ctx, func(tx *sql.Tx, changed func(classroom.Change)) error {
		// Their answers' bytes leave the class's storage budget with them,
		// the class's row changed after the learner's, as Record does.
		var freed int64
		if err := tx.QueryRowContext(ctx, s.d.q(`SELECT COALESCE(SUM(stored_bytes), 0) FROM progress WHERE learner_id = ? AND class_id = ?`), learnerID, c.ID).Scan(&freed); err != nil {
			return err
		}
		if err := s.withdrawScores(ctx, tx, c.ID, learnerID, changed); err != nil {
			return err
		}
		// Attempts and progress go with the learner (ON DELETE CASCADE).
		res, err := tx.ExecContext(ctx, s.d.q(`DELETE FROM learners WHERE id = ? AND class_id = ?`), learnerID, c.ID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return classroom.Errorf(classroom.ENOTFOUND, "learner %d is not in class %s", learnerID, c.Code)
		}
		if _, err := tx.ExecContext(ctx, s.d.q(`UPDATE classes SET stored_bytes = stored_bytes - ? WHERE id = ?`), freed, c.ID); err != nil {
			return err
		}
		changed(classroom.Change{ClassID: c.ID, Kind: classroom.ChangeRemove, LearnerID: learnerID})
		return s.touch(ctx, tx, c.ID, s.nowMS(), 0)
	})
	return wrap("remove the learner", err)
}

// LearnerProgress implements classroom.Store.
func (s *DB) LearnerProgress(ctx context.Context, code string, creds classroom.Credentials, learnerID int64) ([]classroom.Progress, error) {
	if creds.TeacherKey == "" && creds.Session == "" {
		return nil, classroom.Errorf(classroom.EUNAUTHORIZED, "join the class, or use its teacher key")
	}
	c, err := s.classByCode(ctx, s.db, code, "")
	if err != nil {
		return nil, err
	}
	allowed := classroom.SecretMatches(creds.TeacherKey, c.TeacherKeyHash)
	if !allowed && creds.Session != "" {
		l, err := s.learnerBySession(ctx, s.db, creds.Session, "")
		if err != nil && classroom.ErrorCode(err) != classroom.EUNAUTHORIZED {
			return nil, err
		}
		allowed = err == nil && l.ClassID == c.ID && l.ID == learnerID
	}
	if !allowed {
		return nil, classroom.Errorf(classroom.EFORBIDDEN, "only the teacher and the learner themselves may see a learner's progress")
	}
	ps, err := s.progress(ctx, `p.class_id = ? AND p.learner_id = ?`, c.ID, learnerID)
	if err != nil {
		return nil, err
	}
	if len(ps) == 0 {
		var one int
		err := s.db.QueryRowContext(ctx, s.d.q(`SELECT 1 FROM learners WHERE id = ? AND class_id = ?`), learnerID, c.ID).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, classroom.Errorf(classroom.ENOTFOUND, "learner %d is not in class %s", learnerID, c.Code)
		} else if err != nil {
			return nil, wrap("read the learner's session", err)
		}
	}
	return ps, nil
}
