package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/leaselab/playground/classroom"
)

// DeviceCode implements classroom.Store.
func (s *DB) DeviceCode(ctx context.Context, token string) (string, time.Time, error) {
	code := classroom.NewDeviceCode()
	var expires int64
	err := s.write(ctx, func(tx *sql.Tx, _ func(classroom.Change)) error {
		l, err := s.learnerBySession(ctx, tx, token, s.d.ShareRow)
		if err != nil {
			return err
		}
		now := s.nowMS()
		expires = now + classroom.DeviceCodeTTL.Milliseconds()
		_, err = tx.ExecContext(ctx, s.d.q(`INSERT INTO device_codes (code_hash, learner_id, expires_at) VALUES (?, ?, ?)
			ON CONFLICT (learner_id) DO UPDATE SET code_hash = excluded.code_hash, expires_at = excluded.expires_at`),
			classroom.HashSecret(code), l.ID, expires)
		return err
	})
	if err != nil {
		return "", time.Time{}, wrap("make a device code", err)
	}
	return code, fromMS(expires), nil
}

// ContinueSession implements classroom.Store.
func (s *DB) ContinueSession(ctx context.Context, code string) (*classroom.Session, error) {
	code, err := classroom.CheckDeviceCode(code)
	if err != nil {
		return nil, err
	}
	token := classroom.NewSecret()
	var learnerID int64
	var l *classroom.Learner
	var c *classroom.Class
	err = s.write(ctx, func(tx *sql.Tx, changed func(classroom.Change)) error {
		err := tx.QueryRowContext(ctx, s.d.q(`DELETE FROM device_codes WHERE code_hash = ? AND expires_at > ? RETURNING learner_id`),
			classroom.HashSecret(code), s.nowMS()).Scan(&learnerID)
		if errors.Is(err, sql.ErrNoRows) {
			return classroom.Errorf(classroom.ENOTFOUND, "code: no device code %s, or it was used or has expired (they last %s): ask your other browser for a new one",
				classroom.FormatDeviceCode(code), classroom.DeviceCodeTTL)
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.d.q(`UPDATE learners SET session_hash = ? WHERE id = ?`), classroom.HashSecret(token), learnerID); err != nil {
			return err
		}
		// Read back in the same transaction, so the code is spent only
		// for a session the learner gets.
		if l, err = s.learnerBySession(ctx, tx, token, ""); err != nil {
			return err
		}
		if c, err = s.scanClass(tx.QueryRowContext(ctx, s.d.q(`SELECT `+classColumns+` FROM classes WHERE id = ?`), l.ClassID)); err != nil {
			return err
		}
		// The pages following the class with the old session stop.
		changed(classroom.Change{ClassID: c.ID, Kind: classroom.ChangeSession, LearnerID: learnerID})
		return nil
	})
	if err != nil {
		return nil, wrap("continue the session", err)
	}
	return &classroom.Session{Learner: l, Class: c, Token: token}, nil
}
