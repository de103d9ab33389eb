package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/leaselab/playground/classroom"
)

const classColumns = `id, code, name, teacher_key_hash, join_open, scenario_preset, scenario_json, scenario_at, created_at, archived_at, active_at, variants, variant_secret, scenario_lesson, scenario_exercise, settings`

type rowScanner interface{ Scan(...any) error }

// scanClass reads a row of classColumns and works out when the class
// expires and when it is deleted, from the store's retention and grace.
func (s *DB) scanClass(r rowScanner) (*classroom.Class, error) {
	var c classroom.Class
	var sc classroom.Scenario
	var scAt, created, archived, active int64
	var settings string
	if err := r.Scan(&c.ID, &c.Code, &c.Name, &c.TeacherKeyHash, &c.JoinOpen, &sc.Preset, &sc.JSON, &scAt, &created, &archived, &active, &c.Variants, &c.VariantSecret,
		&sc.Lesson, &sc.Exercise, &settings); err != nil {
		return nil, err
	}
	// Settings are only ever written by SetSettings, checked: a row that
	// does not read keeps the defaults rather than lock the teacher out.
	c.Settings, _ = classroom.DecodeSettings(settings)
	c.CreatedAt, c.ArchivedAt, c.ActiveAt = fromMS(created), fromMS(archived), fromMS(max(active, created))
	c.ExpiresAt = c.ActiveAt.Add(s.opts.Retention)
	if c.ArchivedAt.IsZero() {
		c.DeleteAt = c.ExpiresAt.Add(s.opts.Grace)
	} else {
		c.DeleteAt = c.ArchivedAt.Add(s.opts.Grace)
	}
	if sc.Preset != "" || sc.JSON != "" || sc.Lesson != "" || sc.Exercise != "" {
		sc.PushedAt = fromMS(scAt)
		c.Scenario = &sc
	}
	return &c, nil
}

// codeTries bounds the retries when a fresh join code is taken: with a
// billion codes, even one retry is rare.
const codeTries = 10

// CreateClass implements classroom.Store.
func (s *DB) CreateClass(ctx context.Context, name string) (*classroom.NewClass, error) {
	name, err := classroom.CleanName("name", name)
	if err != nil {
		return nil, err
	}
	key := classroom.NewSecret()
	creator := boundAddr(classroom.Creator(ctx))
	var c *classroom.Class
	for try := 0; ; try++ {
		code := classroom.NewCode()
		err = s.write(ctx, func(tx *sql.Tx, _ func(classroom.Change)) error {
			if s.d.LockClasses != "" {
				if _, err := tx.ExecContext(ctx, s.d.LockClasses); err != nil {
					return err
				}
			}
			now := s.nowMS()
			if err := s.checkClassLimits(ctx, tx, creator, now); err != nil {
				return err
			}
			row := tx.QueryRowContext(ctx, s.d.q(`INSERT INTO classes (code, name, teacher_key_hash, join_open, created_at, active_at, creator_addr, variant_secret)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING `+classColumns), code, name, classroom.HashSecret(key), true, now, now, creator, classroom.NewSecretBytes(32))
			c, err = s.scanClass(row)
			return err
		})
		if err != nil && s.d.IsUnique(err) && try < codeTries {
			continue
		}
		if err != nil {
			return nil, wrap("create the class", err)
		}
		return &classroom.NewClass{Class: c, TeacherKey: key}, nil
	}
}

// classByCode reads a class by join code, or ENOTFOUND.
func (s *DB) classByCode(ctx context.Context, q querier, code, lock string) (*classroom.Class, error) {
	code = classroom.NormalizeCode(code)
	if code == "" {
		return nil, classroom.Errorf(classroom.EINVALID, "code: must not be empty")
	}
	if len(code) > 4*classroom.CodeLen || strings.Trim(code, classroom.CodeAlphabet) != "" {
		// No such code exists: a megabyte of URL need not reach the
		// database, nor a code with characters no code has reach a page.
		return nil, classroom.Errorf(classroom.ENOTFOUND, "no class has that code (a code is %d letters and digits, without 0, O, 1 or I); check it with your teacher", classroom.CodeLen)
	}
	c, err := s.scanClass(q.QueryRowContext(ctx, s.d.q(`SELECT `+classColumns+` FROM classes WHERE code = ?`+lock), code))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, classroom.Errorf(classroom.ENOTFOUND, "no class has the code %s; check it with your teacher", code)
	}
	return c, wrap("read the class", err)
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Teacher implements classroom.Store.
func (s *DB) Teacher(ctx context.Context, code, key string) (*classroom.Class, error) {
	if key == "" {
		return nil, classroom.Errorf(classroom.EUNAUTHORIZED, "this needs the class's teacher key")
	}
	c, err := s.classByCode(ctx, s.db, code, "")
	if err != nil {
		return nil, err
	}
	if !classroom.SecretMatches(key, c.TeacherKeyHash) {
		return nil, classroom.Errorf(classroom.EFORBIDDEN, "this is not the teacher key of class %s", c.Code)
	}
	return c, nil
}

// TeacherClass implements classroom.Store.
func (s *DB) TeacherClass(ctx context.Context, key string) (*classroom.Class, error) {
	if key == "" {
		return nil, classroom.Errorf(classroom.EUNAUTHORIZED, "this needs the class's teacher key")
	}
	// The lookup is by hash, so timing reveals nothing about the key; the
	// constant-time comparison after it is belt and braces.
	c, err := s.scanClass(s.db.QueryRowContext(ctx, s.d.q(`SELECT `+classColumns+` FROM classes WHERE teacher_key_hash = ?`), classroom.HashSecret(key)))
	if errors.Is(err, sql.ErrNoRows) || err == nil && !classroom.SecretMatches(key, c.TeacherKeyHash) {
		return nil, classroom.Errorf(classroom.EUNAUTHORIZED, "this teacher key belongs to no class")
	}
	return c, wrap("read the class", err)
}

// updateClass authenticates the teacher, runs f on the class and
// returns the class as it is after. It counts as use: the class's
// retention starts again. A closed (archived or expired) class refuses
// every change but restoring it, so that a teacher sees why rather than a
// change that no learner can act on.
func (s *DB) updateClass(ctx context.Context, code, key, kind string, f func(tx *sql.Tx, c *classroom.Class, now int64) error) (*classroom.Class, error) {
	c, err := s.Teacher(ctx, code, key)
	if err != nil {
		return nil, err
	}
	now := s.nowMS()
	if kind != classroom.ChangeArchive {
		if err := c.ClosedError(fromMS(now), "changes"); err != nil {
			return nil, err
		}
	}
	var out *classroom.Class
	err = s.write(ctx, func(tx *sql.Tx, changed func(classroom.Change)) error {
		if err := f(tx, c, now); err != nil {
			return err
		}
		if err := s.touch(ctx, tx, c.ID, now, 0); err != nil {
			return err
		}
		out, err = s.scanClass(tx.QueryRowContext(ctx, s.d.q(`SELECT `+classColumns+` FROM classes WHERE id = ?`), c.ID))
		changed(classroom.Change{ClassID: c.ID, Kind: kind})
		return err
	})
	return out, wrap("change the class", err)
}

// SetArchived implements classroom.Store.
func (s *DB) SetArchived(ctx context.Context, code, key string, archived bool) (*classroom.Class, error) {
	return s.updateClass(ctx, code, key, classroom.ChangeArchive, func(tx *sql.Tx, c *classroom.Class, now int64) error {
		at := int64(0)
		if archived {
			at = now
			if !c.ArchivedAt.IsZero() {
				at = c.ArchivedAt.UnixMilli() // archiving twice keeps the first date
			}
		}
		_, err := tx.ExecContext(ctx, s.d.q(`UPDATE classes SET archived_at = ? WHERE id = ?`), at, c.ID)
		return err
	})
}

// purgeBatch bounds the classes one purge transaction deletes, so that a
// backlog never holds SQLite's single writer for long.
const purgeBatch = 20

// Purge implements classroom.Store. It deletes in small transactions, each
// of which publishes a ChangeDeleted for its classes.
func (s *DB) Purge(ctx context.Context) (int, error) {
	total := 0
	for {
		now := s.nowMS()
		archivedBefore := now - s.opts.Grace.Milliseconds()
		activeBefore := now - (s.opts.Retention + s.opts.Grace).Milliseconds()
		// A class nobody joined has nothing to export: it goes at the end
		// of its EmptyRetention, without a grace.
		emptyBefore := now - s.opts.EmptyRetention.Milliseconds()
		n := 0
		err := s.write(ctx, func(tx *sql.Tx, changed func(classroom.Change)) error {
			rows, err := tx.QueryContext(ctx, s.d.q(`SELECT id FROM classes
				WHERE (archived_at > 0 AND archived_at < ?) OR (archived_at = 0 AND active_at < ?)
					OR (created_at < ? AND NOT `+hasLearner+`)
				ORDER BY id LIMIT ?`), archivedBefore, activeBefore, emptyBefore, purgeBatch)
			if err != nil {
				return err
			}
			var ids []int64
			for rows.Next() {
				var id int64
				if err := rows.Scan(&id); err != nil {
					rows.Close()
					return err
				}
				ids = append(ids, id)
			}
			if err := rows.Close(); err != nil {
				return err
			}
			for _, id := range ids {
				// Learners, attempts and progress go with it (ON DELETE CASCADE).
				if _, err := tx.ExecContext(ctx, s.d.q(`DELETE FROM classes WHERE id = ?`), id); err != nil {
					return err
				}
				changed(classroom.Change{ClassID: id, Kind: classroom.ChangeDeleted})
			}
			n = len(ids)
			return nil
		})
		if err != nil {
			return total, wrap("delete expired classes", err)
		}
		total += n
		if n < purgeBatch {
			return total, nil
		}
	}
}

// PushScenario implements classroom.Store.
func (s *DB) PushScenario(ctx context.Context, code, key string, sc classroom.Scenario) (*classroom.Class, error) {
	if err := classroom.CheckScenario(sc); err != nil {
		return nil, err
	}
	return s.updateClass(ctx, code, key, classroom.ChangeScenario, func(tx *sql.Tx, c *classroom.Class, now int64) error {
		_, err := tx.ExecContext(ctx, s.d.q(`UPDATE classes SET scenario_preset = ?, scenario_json = ?, scenario_lesson = ?, scenario_exercise = ?, scenario_at = ? WHERE id = ?`),
			sc.Preset, sc.JSON, sc.Lesson, sc.Exercise, now, c.ID)
		return err
	})
}

// SetVariants implements classroom.Store.
func (s *DB) SetVariants(ctx context.Context, code, key, variants string) (*classroom.Class, error) {
	mode, err := classroom.CheckVariants(variants)
	if err != nil {
		return nil, err
	}
	return s.updateClass(ctx, code, key, classroom.ChangeVariants, func(tx *sql.Tx, c *classroom.Class, now int64) error {
		_, err := tx.ExecContext(ctx, s.d.q(`UPDATE classes SET variants = ? WHERE id = ?`), mode, c.ID)
		return err
	})
}

// SetJoinOpen implements classroom.Store.
func (s *DB) SetJoinOpen(ctx context.Context, code, key string, open bool) (*classroom.Class, error) {
	return s.updateClass(ctx, code, key, classroom.ChangeJoining, func(tx *sql.Tx, c *classroom.Class, now int64) error {
		_, err := tx.ExecContext(ctx, s.d.q(`UPDATE classes SET join_open = ? WHERE id = ?`), open, c.ID)
		return err
	})
}

// RotateCode implements classroom.Store.
func (s *DB) RotateCode(ctx context.Context, code, key string) (*classroom.Class, error) {
	for try := 0; ; try++ {
		c, err := s.updateClass(ctx, code, key, classroom.ChangeCode, func(tx *sql.Tx, c *classroom.Class, now int64) error {
			_, err := tx.ExecContext(ctx, s.d.q(`UPDATE classes SET code = ? WHERE id = ?`), classroom.NewCode(), c.ID)
			return err
		})
		if err != nil && s.d.IsUnique(err) && try < codeTries {
			continue
		}
		return c, err
	}
}

// SetSettings implements classroom.Store.
func (s *DB) SetSettings(ctx context.Context, code, key string, set classroom.Settings) (*classroom.Class, error) {
	return s.UpdateSettings(ctx, code, key, func(classroom.Settings) (classroom.Settings, error) { return set, nil })
}

// UpdateSettings implements classroom.Store. change runs on the settings
// as they stand inside the write, their row locked until it commits: a
// teacher's two tabs, or two teachers, never undo each other's change.
func (s *DB) UpdateSettings(ctx context.Context, code, key string, change func(classroom.Settings) (classroom.Settings, error)) (*classroom.Class, error) {
	var changeErr error
	c, err := s.updateClass(ctx, code, key, classroom.ChangeSettings, func(tx *sql.Tx, c *classroom.Class, now int64) error {
		var was string
		if err := tx.QueryRowContext(ctx, s.d.q(`SELECT settings FROM classes WHERE id = ?`+s.d.LockRow), c.ID).Scan(&was); err != nil {
			return err
		}
		cur, _ := classroom.DecodeSettings(was) // as scanClass: an unreadable row keeps the defaults
		set, err := change(cur)
		if err == nil {
			err = classroom.CheckSettings(set)
		}
		if err != nil {
			changeErr = err
			return err
		}
		text, err := classroom.EncodeSettings(set)
		if err != nil {
			return err
		}
		if _, err = tx.ExecContext(ctx, s.d.q(`UPDATE classes SET settings = ? WHERE id = ?`), text, c.ID); err != nil {
			return err
		}
		revealed := newlyRevealed(cur.Revealed, set.Revealed)
		if err := s.markRevealedToClass(ctx, tx, c.ID, 0, revealed, now); err != nil {
			return err
		}
		if err := s.retryReveals(ctx, tx, c.ID); err != nil {
			return err
		}
		return s.queueReveals(ctx, tx, c.ID, 0, revealed)
	})
	if changeErr != nil {
		return nil, changeErr // the change's own error, as it made it
	}
	return c, err
}
