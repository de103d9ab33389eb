package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/leaselab/playground/classroom"
)

var _ classroom.LTIStore = (*DB)(nil)

const platformColumns = `p.id, p.issuer, p.client_id, p.deployment_ids, p.auth_url, p.token_url, p.jwks_url, p.frame_origins, p.created_at`

// platformRow is a row of platformColumns being scanned, alone or after
// other columns.
type platformRow struct {
	p            classroom.LTIPlatform
	deps, frames string
	created      int64
}

func (r *platformRow) dest() []any {
	return []any{&r.p.ID, &r.p.Issuer, &r.p.ClientID, &r.deps, &r.p.AuthURL, &r.p.TokenURL, &r.p.JWKSURL, &r.frames, &r.created}
}

func (r *platformRow) platform() classroom.LTIPlatform {
	p := r.p
	p.DeploymentIDs, p.FrameOrigins, p.CreatedAt = lines(r.deps), lines(r.frames), fromMS(r.created)
	return p
}

func scanPlatform(r rowScanner, extra ...any) (*classroom.LTIPlatform, error) {
	var pr platformRow
	if err := r.Scan(append(pr.dest(), extra...)...); err != nil {
		return nil, err
	}
	p := pr.platform()
	return &p, nil
}

func lines(s string) []string {
	if s == "" {
		return []string{}
	}
	return strings.Split(s, "\n")
}

// AddLTIPlatform implements classroom.LTIStore.
func (s *DB) AddLTIPlatform(ctx context.Context, p classroom.LTIPlatform) (*classroom.LTIPlatform, error) {
	var out *classroom.LTIPlatform
	err := s.write(ctx, func(tx *sql.Tx, _ func(classroom.Change)) error {
		var one int
		err := tx.QueryRowContext(ctx, s.d.q(`SELECT 1 FROM lti_platforms WHERE issuer = ? AND client_id = ?`), p.Issuer, p.ClientID).Scan(&one)
		if err == nil {
			return classroom.Errorf(classroom.ECONFLICT, "issuer: a platform with issuer %s and client ID %s is registered already; remove it first", p.Issuer, p.ClientID)
		} else if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		out, err = scanPlatform(tx.QueryRowContext(ctx, s.d.q(`INSERT INTO lti_platforms
			(issuer, client_id, deployment_ids, auth_url, token_url, jwks_url, frame_origins, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING `+strings.ReplaceAll(platformColumns, "p.", "")),
			p.Issuer, p.ClientID, strings.Join(p.DeploymentIDs, "\n"), p.AuthURL, p.TokenURL, p.JWKSURL,
			strings.Join(p.FrameOrigins, "\n"), s.nowMS()))
		return err
	})
	return out, wrap("register the platform", err)
}

// LTIPlatforms implements classroom.LTIStore.
func (s *DB) LTIPlatforms(ctx context.Context) ([]classroom.LTIPlatform, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+platformColumns+` FROM lti_platforms p ORDER BY p.id`)
	if err != nil {
		return nil, wrap("list the platforms", err)
	}
	defer rows.Close()
	out := []classroom.LTIPlatform{}
	for rows.Next() {
		p, err := scanPlatform(rows)
		if err != nil {
			return nil, wrap("list the platforms", err)
		}
		out = append(out, *p)
	}
	return out, wrap("list the platforms", rows.Err())
}

// RemoveLTIPlatform implements classroom.LTIStore.
func (s *DB) RemoveLTIPlatform(ctx context.Context, id int64) error {
	err := s.write(ctx, func(tx *sql.Tx, _ func(classroom.Change)) error {
		res, err := tx.ExecContext(ctx, s.d.q(`DELETE FROM lti_platforms WHERE id = ?`), id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return classroom.Errorf(classroom.ENOTFOUND, "id: no platform has ID %d; see playground lti list", id)
		}
		return nil
	})
	return wrap("remove the platform", err)
}

// LTIKeys implements classroom.LTIStore.
func (s *DB) LTIKeys(ctx context.Context, retiredSince time.Time) ([]classroom.LTIKey, error) {
	rows, err := s.db.QueryContext(ctx, s.d.q(`SELECT kid, private_pem, created_at, retired_at FROM lti_keys
		WHERE retired_at = 0 OR retired_at > ? ORDER BY retired_at = 0 DESC, retired_at DESC`), retiredSince.UnixMilli())
	if err != nil {
		return nil, wrap("read the tool's keys", err)
	}
	defer rows.Close()
	var out []classroom.LTIKey
	for rows.Next() {
		var k classroom.LTIKey
		var created, retired int64
		if err := rows.Scan(&k.KID, &k.PrivatePEM, &created, &retired); err != nil {
			return nil, wrap("read the tool's keys", err)
		}
		k.CreatedAt, k.RetiredAt = fromMS(created), fromMS(retired)
		out = append(out, k)
	}
	return out, wrap("read the tool's keys", rows.Err())
}

// AddLTIKey implements classroom.LTIStore.
func (s *DB) AddLTIKey(ctx context.Context, k classroom.LTIKey, rotate bool) error {
	err := s.write(ctx, func(tx *sql.Tx, _ func(classroom.Change)) error {
		// The lock on the current key's row (PostgreSQL) makes replicas
		// adding a first key or rotating take turns.
		if s.d.LockClasses != "" {
			if _, err := tx.ExecContext(ctx, s.d.LockClasses); err != nil {
				return err
			}
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM lti_keys WHERE retired_at = 0`).Scan(&n); err != nil {
			return err
		}
		if n > 0 && !rotate {
			return nil
		}
		now := s.nowMS()
		if _, err := tx.ExecContext(ctx, s.d.q(`UPDATE lti_keys SET retired_at = ? WHERE retired_at = 0`), now); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.d.q(`INSERT INTO lti_keys (kid, private_pem, created_at) VALUES (?, ?, ?)`), k.KID, k.PrivatePEM, now)
		return err
	})
	return wrap("store the tool's key", err)
}

// SaveLTILogin implements classroom.LTIStore.
func (s *DB) SaveLTILogin(ctx context.Context, stateHash []byte, platformID int64, nonce string, expires time.Time) error {
	err := s.write(ctx, func(tx *sql.Tx, _ func(classroom.Change)) error {
		now := s.nowMS()
		// Expired logins and nonces go here, a few at a time, rather
		// than in a loop of their own.
		if _, err := tx.ExecContext(ctx, s.d.q(`DELETE FROM lti_logins WHERE expires_at < ?`), now); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.d.q(`DELETE FROM lti_nonces WHERE expires_at < ?`), now); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.d.q(`INSERT INTO lti_logins (state_hash, platform_id, nonce, expires_at) VALUES (?, ?, ?, ?)`),
			stateHash, platformID, nonce, expires.UnixMilli())
		return err
	})
	return wrap("start the login", err)
}

// LTILogin implements classroom.LTIStore.
func (s *DB) LTILogin(ctx context.Context, stateHash []byte) (int64, string, error) {
	var id int64
	var nonce string
	err := s.db.QueryRowContext(ctx, s.d.q(`SELECT platform_id, nonce FROM lti_logins WHERE state_hash = ? AND expires_at >= ?`),
		stateHash, s.nowMS()).Scan(&id, &nonce)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, "", classroom.Errorf(classroom.ENOTFOUND, "state: no login in flight has this state, or it expired")
	}
	return id, nonce, wrap("read the login", err)
}

// UseLTINonce implements classroom.LTIStore.
func (s *DB) UseLTINonce(ctx context.Context, platformID int64, nonce string, expires time.Time) error {
	err := s.write(ctx, func(tx *sql.Tx, _ func(classroom.Change)) error {
		res, err := tx.ExecContext(ctx, s.d.q(`INSERT INTO lti_nonces (platform_id, nonce, expires_at) VALUES (?, ?, ?)
			ON CONFLICT (platform_id, nonce) DO NOTHING`), platformID, nonce, expires.UnixMilli())
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return classroom.Errorf(classroom.ECONFLICT, "nonce: was used already (a replayed launch)")
		}
		return nil
	})
	return wrap("record the nonce", err)
}

// SaveLTIDeepLink implements classroom.LTIStore.
func (s *DB) SaveLTIDeepLink(ctx context.Context, tokenHash []byte, d classroom.LTIDeepLink, expires time.Time) error {
	err := s.write(ctx, func(tx *sql.Tx, _ func(classroom.Change)) error {
		if _, err := tx.ExecContext(ctx, s.d.q(`DELETE FROM lti_deep_links WHERE expires_at < ?`), s.nowMS()); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.d.q(`INSERT INTO lti_deep_links (token_hash, platform_id, deployment_id, return_url, data, expires_at)
			VALUES (?, ?, ?, ?, ?, ?)`), tokenHash, d.PlatformID, d.DeploymentID, d.ReturnURL, d.Data, expires.UnixMilli())
		return err
	})
	return wrap("keep the deep-linking request", err)
}

// LTIDeepLink implements classroom.LTIStore.
func (s *DB) LTIDeepLink(ctx context.Context, tokenHash []byte) (*classroom.LTIDeepLink, error) {
	var d classroom.LTIDeepLink
	err := s.db.QueryRowContext(ctx, s.d.q(`SELECT platform_id, deployment_id, return_url, data FROM lti_deep_links
		WHERE token_hash = ? AND expires_at >= ?`), tokenHash, s.nowMS()).Scan(&d.PlatformID, &d.DeploymentID, &d.ReturnURL, &d.Data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, classroom.Errorf(classroom.ENOTFOUND, "this content picker has expired: start again from the course")
	}
	if err != nil {
		return nil, wrap("read the deep-linking request", err)
	}
	return &d, nil
}
