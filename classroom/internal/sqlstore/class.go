package sqlstore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/leaselab/playground/classroom"
)

const classColumns = `id, code, name, teacher_key_hash, join_open, scenario_preset, scenario_json, scenario_at, created_at`

type rowScanner interface{ Scan(...any) error }

func scanClass(r rowScanner) (*classroom.Class, error) {
	var c classroom.Class
	var sc classroom.Scenario
	var scAt, created int64
	if err := r.Scan(&c.ID, &c.Code, &c.Name, &c.TeacherKeyHash, &c.JoinOpen, &sc.Preset, &sc.JSON, &scAt, &created); err != nil {
		return nil, err
	}
	c.CreatedAt = fromMS(created)
	if sc.Preset != "" || sc.JSON != "" {
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
	var c *classroom.Class
	for try := 0; ; try++ {
		code := classroom.NewCode()
		err = s.write(ctx, func(tx *sql.Tx, _ func(classroom.Change)) error {
			if s.d.LockClasses != "" {
				if _, err := tx.ExecContext(ctx, s.d.LockClasses); err != nil {
					return err
				}
			}
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM classes`).Scan(&n); err != nil {
				return err
			}
			if n >= s.limits.MaxClasses {
				return classroom.Errorf(classroom.ELIMIT, "this server already holds %d classes, its limit; ask its operator to raise it", s.limits.MaxClasses)
			}
			row := tx.QueryRowContext(ctx, s.d.q(`INSERT INTO classes (code, name, teacher_key_hash, join_open, created_at)
				VALUES (?, ?, ?, ?, ?) RETURNING `+classColumns), code, name, classroom.HashSecret(key), true, s.nowMS())
			c, err = scanClass(row)
			return err
		})
		if err != nil && s.d.IsUnique(err) && try < codeTries {
			continue
		}
		if err != nil {
			return nil, wrap("create class", err)
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
	if len(code) > 4*classroom.CodeLen {
		// No such code exists; a megabyte of URL need not reach the database.
		return nil, classroom.Errorf(classroom.ENOTFOUND, "no class has that code; check it with your teacher")
	}
	c, err := scanClass(q.QueryRowContext(ctx, s.d.q(`SELECT `+classColumns+` FROM classes WHERE code = ?`+lock), code))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, classroom.Errorf(classroom.ENOTFOUND, "no class has the code %s; check it with your teacher", code)
	}
	return c, wrap("read class", err)
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
	c, err := scanClass(s.db.QueryRowContext(ctx, s.d.q(`SELECT `+classColumns+` FROM classes WHERE teacher_key_hash = ?`), classroom.HashSecret(key)))
	if errors.Is(err, sql.ErrNoRows) || err == nil && !classroom.SecretMatches(key, c.TeacherKeyHash) {
		return nil, classroom.Errorf(classroom.EUNAUTHORIZED, "this teacher key belongs to no class")
	}
	return c, wrap("read class", err)
}

// updateClass authenticates the teacher, runs f on the locked class row
// and returns the class as it is after.
func (s *DB) updateClass(ctx context.Context, code, key, kind string, f func(tx *sql.Tx, c *classroom.Class) error) (*classroom.Class, error) {
	c, err := s.Teacher(ctx, code, key)
	if err != nil {
		return nil, err
	}
	var out *classroom.Class
	err = s.write(ctx, func(tx *sql.Tx, changed func(classroom.Change)) error {
		if err := f(tx, c); err != nil {
			return err
		}
		out, err = scanClass(tx.QueryRowContext(ctx, s.d.q(`SELECT `+classColumns+` FROM classes WHERE id = ?`), c.ID))
		changed(classroom.Change{ClassID: c.ID, Kind: kind})
		return err
	})
	return out, wrap("update class", err)
}

// PushScenario implements classroom.Store.
func (s *DB) PushScenario(ctx context.Context, code, key string, sc classroom.Scenario) (*classroom.Class, error) {
	if err := classroom.CheckScenario(sc); err != nil {
		return nil, err
	}
	return s.updateClass(ctx, code, key, classroom.ChangeScenario, func(tx *sql.Tx, c *classroom.Class) error {
		_, err := tx.ExecContext(ctx, s.d.q(`UPDATE classes SET scenario_preset = ?, scenario_json = ?, scenario_at = ? WHERE id = ?`),
			sc.Preset, sc.JSON, s.nowMS(), c.ID)
		return err
	})
}

// SetJoinOpen implements classroom.Store.
func (s *DB) SetJoinOpen(ctx context.Context, code, key string, open bool) (*classroom.Class, error) {
	return s.updateClass(ctx, code, key, classroom.ChangeJoining, func(tx *sql.Tx, c *classroom.Class) error {
		_, err := tx.ExecContext(ctx, s.d.q(`UPDATE classes SET join_open = ? WHERE id = ?`), open, c.ID)
		return err
	})
}

// RotateCode implements classroom.Store.
func (s *DB) RotateCode(ctx context.Context, code, key string) (*classroom.Class, error) {
	for try := 0; ; try++ {
		c, err := s.updateClass(ctx, code, key, classroom.ChangeCode, func(tx *sql.Tx, c *classroom.Class) error {
			_, err := tx.ExecContext(ctx, s.d.q(`UPDATE classes SET code = ? WHERE id = ?`), classroom.NewCode(), c.ID)
			return err
		})
		if err != nil && s.d.IsUnique(err) && try < codeTries {
			continue
		}
		return c, err
	}
}
