package sqlstore

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"

	"github.com/leaselab/playground/classroom"
)

// ltiTeacherSecret names the server secret that a course's teacher key
// is derived from: the key is never stored, and every instructor launch
// of the course gets the same one, on any replica.
const ltiTeacherSecret = "lti-teacher-keys"

func ltiTeacherKey(secret []byte, platformID int64, contextID string) string {
	m := hmac.New(sha256.New, secret)
	fmt.Fprintf(m, "%d\x00%s", platformID, contextID)
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// LTILaunch implements classroom.LTIStore.
func (s *DB) LTILaunch(ctx context.Context, l classroom.LTILaunch) (*classroom.LTILaunchResult, error) {
	secret, err := s.ServerSecret(ctx, ltiTeacherSecret)
	if err != nil {
		return nil, err
	}
	key := ltiTeacherKey(secret, l.PlatformID, l.ContextID)
	title, err := classroom.CleanName("context.title", l.ContextTitle)
	if err != nil {
		title = "Course " + excerptID(l.ContextID)
	}
	name, err := classroom.CleanLearnerName("name", l.Name)
	if err != nil {
		name = "Learner " + excerptID(l.Sub)
	}
	studentID, _ := classroom.CleanStudentID(l.StudentID)
	email, _ := classroom.CleanEmail(l.Email)
	res := &classroom.LTILaunchResult{}
	for try := 0; ; try++ {
		err = s.write(ctx, func(tx *sql.Tx, changed func(classroom.Change)) error {
			c, err := s.ltiClass(ctx, tx, l, title, key)
			if err != nil {
				return err
			}
			res.Class = c
			if l.ResourceLinkID != "" {
				// A launch without the grades claim (an instructor's, on
				// some platforms) says nothing of the line item: the one a
				// graded launch stored stays, or passback would stop until
				// the next graded launch. So for one whose target the tool
				// could not tell (no custom target, a target_link_uri
				// elsewhere). A link that now opens something else leaves
				// the line item: that column was the other target's.
				if _, err := tx.ExecContext(ctx, s.d.q(`INSERT INTO lti_links (platform_id, resource_link_id, class_id, target, lineitem_url)
					VALUES (?, ?, ?, ?, ?) ON CONFLICT (platform_id, resource_link_id) DO UPDATE SET
					class_id = excluded.class_id,
					target = CASE WHEN excluded.target <> '' THEN excluded.target ELSE lti_links.target END,
					lineitem_url = CASE
						WHEN excluded.lineitem_url <> '' THEN excluded.lineitem_url
						WHEN excluded.target <> '' AND excluded.target <> lti_links.target THEN ''
						ELSE lti_links.lineitem_url END`),
					l.PlatformID, l.ResourceLinkID, c.ID, l.Target, l.LineItemURL); err != nil {
					return err
				}
			}
			if l.Instructor {
				res.TeacherKey = key
				if l.ResourceLinkID != "" {
					// The link may grade into another line item now: the
					// scores given up on the old one are no longer the
					// class's to send (a learner's launch is a join, which
					// has the panel read again as well).
					changed(classroom.Change{ClassID: c.ID, Kind: classroom.ChangeGrades})
				}
				return nil
			}
			sess, err := s.ltiLearner(ctx, tx, c, l, name, studentID, email)
			if err != nil {
				return err
			}
			res.Session = sess
			changed(classroom.Change{ClassID: c.ID, Kind: classroom.ChangeJoin, LearnerID: sess.Learner.ID})
			return nil
		})
		// Two first launches of one course at once: one makes the class,
		// the other runs again and finds it.
		if err != nil && s.d.IsUnique(err) && try < 3 {
			continue
		}
		if err != nil {
			return nil, wrap("start the launch", err)
		}
		return res, nil
	}
}

// ltiClass finds the course's class, or makes it at the first launch.
func (s *DB) ltiClass(ctx context.Context, tx *sql.Tx, l classroom.LTILaunch, title, key string) (*classroom.Class, error) {
	var classID int64
	err := tx.QueryRowContext(ctx, s.d.q(`SELECT class_id FROM lti_contexts WHERE platform_id = ? AND context_id = ?`),
		l.PlatformID, l.ContextID).Scan(&classID)
	now := s.nowMS()
	switch {
	case err == nil:
		if l.MembershipsURL != "" {
			if _, err := tx.ExecContext(ctx, s.d.q(`UPDATE lti_contexts SET memberships_url = ? WHERE class_id = ?`), l.MembershipsURL, classID); err != nil {
				return nil, err
			}
		}
		return s.scanClass(tx.QueryRowContext(ctx, s.d.q(`SELECT `+classColumns+` FROM classes WHERE id = ?`+s.d.LockRow), classID))
	case !errors.Is(err, sql.ErrNoRows):
		return nil, err
	}
	if s.d.LockClasses != "" {
		if _, err := tx.ExecContext(ctx, s.d.LockClasses); err != nil {
			return nil, err
		}
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM classes`).Scan(&n); err != nil {
		return nil, err
	}
	if n >= s.opts.Limits.MaxClasses {
		return nil, classroom.Errorf(classroom.ELIMIT, "this server already holds %d classes, its limit; ask its operator to raise it", s.opts.Limits.MaxClasses)
	}
	var c *classroom.Class
	for try := 0; ; try++ {
		c, err = s.scanClass(tx.QueryRowContext(ctx, s.d.q(`INSERT INTO classes (code, name, teacher_key_hash, join_open, created_at, active_at, variant_secret)
			VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (code) DO NOTHING RETURNING `+classColumns), classroom.NewCode(), title, classroom.HashSecret(key), true, now, now,
			classroom.NewSecretBytes(32)))
		if errors.Is(err, sql.ErrNoRows) && try < codeTries {
			continue // the code was taken
		}
		if err != nil {
			return nil, err
		}
		break
	}
	_, err = tx.ExecContext(ctx, s.d.q(`INSERT INTO lti_contexts (platform_id, context_id, class_id, title, memberships_url) VALUES (?, ?, ?, ?, ?)`),
		l.PlatformID, l.ContextID, c.ID, title, l.MembershipsURL)
	return c, err
}

// ltiLearner starts a session for the learner of this sub in the class:
// joining them at their first launch, under their LMS name (with a number
// after it if another learner of the class looks the same).
func (s *DB) ltiLearner(ctx context.Context, tx *sql.Tx, c *classroom.Class, l classroom.LTILaunch, name, studentID, email string) (*classroom.Session, error) {
	now := s.nowMS()
	if err := c.ClosedError(fromMS(now), "learners or answers"); err != nil {
		return nil, err
	}
	token := classroom.NewSecret()
	var id int64
	err := tx.QueryRowContext(ctx, s.d.q(`SELECT learner_id FROM lti_users WHERE class_id = ? AND sub = ?`), c.ID, l.Sub).Scan(&id)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	// The platform says whose student ID and email these are: another
	// row of the class that has them (joined by code with them, this
	// learner's own or a classmate's) gives them up, so that a gradebook
	// import matching rows by them finds this one.
	if err := s.takeIdentifiers(ctx, tx, c.ID, id, studentID, email); err != nil {
		return nil, err
	}
	if err == nil {
		// A learner who came before: a new session (the one on another
		// device ends), and what the platform says of them now.
		lr := &classroom.Learner{ID: id, ClassID: c.ID}
		var joined int64
		if err := tx.QueryRowContext(ctx, s.d.q(`SELECT name, joined_at, student_id, email FROM learners WHERE id = ?`), id).
			Scan(&lr.Name, &joined, &lr.StudentID, &lr.Email); err != nil {
			return nil, err
		}
		if studentID != "" {
			lr.StudentID = studentID
		}
		if email != "" {
			lr.Email = email
		}
		if _, err := tx.ExecContext(ctx, s.d.q(`UPDATE learners SET session_hash = ?, student_id = ?, email = ? WHERE id = ?`),
			classroom.HashSecret(token), lr.StudentID, lr.Email, id); err != nil {
			return nil, err
		}
		lr.JoinedAt = fromMS(joined)
		return &classroom.Session{Learner: lr, Class: c, Token: token}, s.touch(ctx, tx, c.ID, now, 0)
	} else if !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	if !c.JoinOpen {
		return nil, classroom.Errorf(classroom.ECONFLICT, "class %s is closed for joining; ask your teacher", c.Code)
	}
	var n int
	if err := tx.QueryRowContext(ctx, s.d.q(`SELECT COUNT(*) FROM learners WHERE class_id = ?`), c.ID).Scan(&n); err != nil {
		return nil, err
	}
	if n >= s.opts.Limits.MaxLearnersPerClass {
		return nil, classroom.Errorf(classroom.ELIMIT, "class %s is full: it has %d learners, the limit", c.Code, s.opts.Limits.MaxLearnersPerClass)
	}
	shown := name
	for i := 2; ; i++ {
		var one int
		err := tx.QueryRowContext(ctx, s.d.q(`SELECT 1 FROM learners WHERE class_id = ? AND name_key = ?`), c.ID, classroom.NameKey(shown)).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			break
		} else if err != nil {
			return nil, err
		}
		suffix := " (" + strconv.Itoa(i) + ")"
		shown = truncateRunes(name, classroom.MaxNameLen-len(suffix)) + suffix
	}
	lr := &classroom.Learner{ClassID: c.ID, Name: shown, JoinedAt: fromMS(now), StudentID: studentID, Email: email}
	if err := tx.QueryRowContext(ctx, s.d.q(`INSERT INTO learners (class_id, name, name_key, session_hash, joined_at, student_id, email)
		VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`), c.ID, shown, classroom.NameKey(shown), classroom.HashSecret(token), now, studentID, email).Scan(&lr.ID); err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, s.d.q(`INSERT INTO lti_users (class_id, sub, learner_id) VALUES (?, ?, ?)`), c.ID, l.Sub, lr.ID); err != nil {
		return nil, err
	}
	if err := s.markRevealedToClass(ctx, tx, c.ID, lr.ID, c.Settings.Revealed, now); err != nil {
		return nil, err
	}
	// The course is told their 0 on what was revealed before they came.
	if err := s.queueReveals(ctx, tx, c.ID, lr.ID, c.Settings.Revealed); err != nil {
		return nil, err
	}
	return &classroom.Session{Learner: lr, Class: c, Token: token}, s.touch(ctx, tx, c.ID, now, 0)
}

// takeIdentifiers clears the student ID and email given from every
// learner of the class but learnerID (0 for one not made yet).
func (s *DB) takeIdentifiers(ctx context.Context, tx *sql.Tx, classID, learnerID int64, studentID, email string) error {
	if studentID != "" {
		if _, err := tx.ExecContext(ctx, s.d.q(`UPDATE learners SET student_id = '' WHERE class_id = ? AND id <> ? AND LOWER(student_id) = LOWER(?)`),
			classID, learnerID, studentID); err != nil {
			return err
		}
	}
	if email != "" {
		if _, err := tx.ExecContext(ctx, s.d.q(`UPDATE learners SET email = '' WHERE class_id = ? AND id <> ? AND LOWER(email) = LOWER(?)`),
			classID, learnerID, email); err != nil {
			return err
		}
	}
	return nil
}

func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		r = r[:n]
	}
	return string(r)
}

// excerptID is the start of a platform's ID, for a name made up when the
// platform gave none.
func excerptID(id string) string { return truncateRunes(id, 12) }

// LTIContext implements classroom.LTIStore.
func (s *DB) LTIContext(ctx context.Context, classID int64) (*classroom.LTIContext, error) {
	var out classroom.LTIContext
	p, err := scanPlatform(s.db.QueryRowContext(ctx, s.d.q(`SELECT `+platformColumns+`, x.context_id, x.title, x.memberships_url
		FROM lti_contexts x JOIN lti_platforms p ON p.id = x.platform_id WHERE x.class_id = ?`), classID),
		&out.ContextID, &out.Title, &out.MembershipsURL)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, classroom.Errorf(classroom.ENOTFOUND, "this class was not made by a launch from a course")
	}
	if err != nil {
		return nil, wrap("read the course", err)
	}
	out.Platform = *p
	rows, err := s.db.QueryContext(ctx, s.d.q(`SELECT sub, learner_id FROM lti_users WHERE class_id = ?`), classID)
	if err != nil {
		return nil, wrap("read the course", err)
	}
	defer rows.Close()
	out.Subs = map[string]int64{}
	for rows.Next() {
		var sub string
		var id int64
		if err := rows.Scan(&sub, &id); err != nil {
			return nil, wrap("read the course", err)
		}
		out.Subs[sub] = id
	}
	return &out, wrap("read the course", rows.Err())
}
