package classroom

import (
	"fmt"
	"time"
)

// Class is one class: what a teacher creates and learners join.
type Class struct {
	// ID never changes; Code does when the teacher rotates it, so
	// subscriptions and references use the ID.
	ID   int64  `json:"-"`
	Code string `json:"code"`
	Name string `json:"name"`
	// JoinOpen is false once the teacher closes joining; learners already in
	// keep working.
	JoinOpen  bool      `json:"join_open"`
	CreatedAt time.Time `json:"created_at"`
	// Scenario is what the teacher pushed to every learner's playground, or
	// nil.
	Scenario *Scenario `json:"scenario,omitempty"`
	// Settings pace the class: quiz mode, open lessons, a deadline.
	Settings Settings `json:"settings"`
	// TeacherKeyHash is the SHA-256 of the teacher key (see HashSecret).
	TeacherKeyHash []byte `json:"-"`
	// Variants is VariantsPerLearner (each learner their own numbers, the
	// default) or VariantsShared (everyone the notes' numbers).
	Variants string `json:"variants"`
	// VariantSecret is the class's random key to its learners' variants
	// (lessons.ClassVariant): kept on the server, so nobody outside the
	// class can work out a learner's numbers.
	VariantSecret []byte `json:"-"`

	// ArchivedAt is when the teacher archived the class, zero while it is
	// in use. An archived class takes no joins or answers; its teacher
	// still reads it, exports it and may restore it until DeleteAt.
	ArchivedAt time.Time `json:"archived_at,omitzero"`
	// ActiveAt is the last join, answer or teacher change (answers move it
	// at most once an hour).
	ActiveAt time.Time `json:"active_at"`
	// ExpiresAt is when the class expires if nobody uses it: ActiveAt
	// plus the store's retention. An expired class is closed like an
	// archived one.
	ExpiresAt time.Time `json:"expires_at"`
	// DeleteAt is when the store deletes the class with everything in
	// it, if it is still archived or expired then: the grace period after
	// ArchivedAt, or after ExpiresAt.
	DeleteAt time.Time `json:"delete_at"`
}

// Class statuses: whether a class takes joins and answers.
const (
	ClassOpen     = "open"
	ClassArchived = "archived"
	ClassExpired  = "expired"
)

// Status says whether the class is open, archived by its teacher, or
// expired for want of use at now.
func (c *Class) Status(now time.Time) string {
	switch {
	case !c.ArchivedAt.IsZero():
		return ClassArchived
	case !c.ExpiresAt.IsZero() && !now.Before(c.ExpiresAt):
		return ClassExpired
	}
	return ClassOpen
}

// ClosedError is the ECONFLICT error for doing what (e.g. "joins or
// answers") in a class that is archived or expired at now, nil for an
// open class: it says when and what the teacher can do about it.
func (c *Class) ClosedError(now time.Time, what string) error {
	day := func(t time.Time) string { return t.UTC().Format("2 January 2006") }
	switch c.Status(now) {
	case ClassArchived:
		return Errorf(ECONFLICT, "class %s was archived by its teacher on %s and takes no more %s; it is deleted on %s unless the teacher restores it",
			c.Code, day(c.ArchivedAt), what, day(c.DeleteAt))
	case ClassExpired:
		return Errorf(ECONFLICT, "class %s expired on %s after going unused, and takes no more %s; it is deleted on %s unless the teacher restores it",
			c.Code, day(c.ExpiresAt), what, day(c.DeleteAt))
	}
	return nil
}

// How a class's learners get their exercises' numbers.
const (
	// VariantsPerLearner draws each learner's own numbers, so neighbours
	// cannot copy an answer.
	VariantsPerLearner = "per-learner"
	// VariantsShared gives everyone the notes' numbers (variant 0), so a
	// lecture can discuss one question.
	VariantsShared = "shared"
)

// NewClass is a class just created, with the one copy of its teacher key
// that will ever exist outside the teacher's hands.
type NewClass struct {
	Class      *Class
	TeacherKey string
}

// Learner is one person in a class, known by a display name and a session.
type Learner struct {
	ID       int64     `json:"id"`
	ClassID  int64     `json:"-"`
	Name     string    `json:"name"`
	JoinedAt time.Time `json:"joined_at"`
	// StudentID and Email are optional, given at join or by an LMS
	// launch: what a gradebook import matches the learner by.
	StudentID string `json:"student_id,omitempty"`
	Email     string `json:"email,omitempty"`
}

// VariantKey is a stable key to draw this learner's exercise variants from
// (lessons.VariantFor(l.VariantKey())): seeded by class and learner, so two
// learners side by side get different numbers, and the same learner gets
// the same numbers on every page load.
func (l *Learner) VariantKey() string { return fmt.Sprintf("class-%d/learner-%d", l.ClassID, l.ID) }

// Session is a learner who just joined, with their session token: the value
// of the session cookie, which the store keeps only hashed.
type Session struct {
	Learner *Learner
	Class   *Class
	Token   string
}

// Scenario is what a teacher pushes: a preset name, a scenario document
// (JSON, checked by the web layer against the engine), a lesson or an
// exercise, exactly one of them.
type Scenario struct {
	Preset string `json:"preset,omitempty"`
	JSON   string `json:"json,omitempty"`
	// Lesson or Exercise is a pushed lesson page or exercise (the web
	// layer checks it against the catalog).
	Lesson   string    `json:"lesson,omitempty"`
	Exercise string    `json:"exercise,omitempty"`
	PushedAt time.Time `json:"pushed_at"`
}

// Attempt is one recorded check of one exercise by one learner.
type Attempt struct {
	ID        int64  `json:"id"`
	ClassID   int64  `json:"-"`
	LearnerID int64  `json:"learner_id"`
	Exercise  string `json:"exercise"`
	Variant   int    `json:"variant"`
	Answer    string `json:"answer"`
	Correct   bool   `json:"correct"`
	// Graded is false for an open answer that nobody graded (a text
	// exercise): it counts as attempted, never as correct or wrong.
	Graded   bool   `json:"graded"`
	Feedback string `json:"feedback"`
	// FormatError is the checker's complaint about an unreadable answer.
	// Such a check costs no try and is not stored: see Store.Record.
	FormatError string `json:"format_error,omitempty"`
	// Mistake is the checker's name for the misconception a wrong answer
	// shows, the same on every variant ("" for none it knows), and Parsed
	// the answer as the checker read it ("4,950" for "4950 runs"): they
	// group a class's wrong answers (Store.Mistakes).
	Mistake string    `json:"mistake,omitempty"`
	Parsed  string    `json:"parsed,omitempty"`
	At      time.Time `json:"at"`
	// Try is this attempt's number for the learner and exercise, from 1.
	Try int `json:"try"`

	// Rule is the exercise's credit rule (RuleDeclining...) and Share the
	// check's own measure (see AttemptScore): what Record scores the
	// attempt from, given where the learner stood.
	Rule  string  `json:"-"`
	Share float64 `json:"-"`
	// Reveals says this check showed the learner the answer (a wrong try
	// that used the last one, a submitted open answer, a right answer):
	// later attempts earn nothing.
	Reveals bool `json:"-"`
	// StopAfterWrong, when set, refuses the attempt (ErrTriesUsed) once
	// the learner has made that many wrong tries at the exercise and none
	// right: quiz mode takes no guesses after CreditTries. Record checks it
	// in the write that counts the tries, so attempts sent at once cannot
	// all pass it.
	StopAfterWrong int `json:"-"`
	// Score is what the attempt earned (AttemptScore), set by Record; 0
	// for an open answer, which the teacher scores.
	Score float64 `json:"score"`
	// AfterReveal is set when the answer had been shown before this
	// attempt: a right answer then is practice, and an open answer was
	// written after seeing the model answer.
	AfterReveal bool `json:"after_reveal"`
	// AfterRun is set when the learner had run this prediction's very
	// scenario in the playground before this attempt (Store.NoteRun): they
	// may have seen what they were asked to predict. It is for the
	// teacher to read; nothing is scored by it, since a run from the home
	// page or a friend's link is no cheat.
	AfterRun bool `json:"after_run"`
	// Late is set for an attempt after the class's deadline: kept, and
	// worth nothing.
	Late bool `json:"late"`
	// AnswerFormat says how a letter in the answer names a choice's
	// option (AnswerShownLetters, AnswerKeyLetters): Store.Record sets it
	// to AnswerShownLetters whatever the caller says, and attempts kept
	// before the schema recorded it read AnswerKeyLetters, so a regrade
	// reads each answer as it was meant.
	AnswerFormat string `json:"answer_format,omitempty"`
	// BestChange is set by Record when the attempt raised the learner's
	// best score on the exercise.
	BestChange *ScoreChange `json:"-"`
}

// Answer formats of a recorded attempt (Attempt.AnswerFormat).
const (
	// AnswerShownLetters: a letter is the one the learner's variant
	// showed the option under (options are lettered after shuffling), or
	// the answer names options by stable id ("option-b"). Every attempt
	// recorded now is in this format.
	AnswerShownLetters = "shown-letters"
	// AnswerKeyLetters: the attempt was recorded before options were
	// lettered after shuffling, when a letter was the option's own key in
	// the exercise's file on every variant ("b" meant option b). Attempts
	// kept before migration 0008 read this; lessons.Exercise's
	// LegacyChoiceAnswer rewrites such an answer into stable ids.
	AnswerKeyLetters = "key-letters"
)

// Progress is one learner's standing on one exercise.
type Progress struct {
	LearnerID   int64  `json:"learner_id"`
	LearnerName string `json:"learner"`
	Exercise    string `json:"exercise"`
	// Tries counts the recorded attempts (format errors excluded).
	Tries   int  `json:"tries"`
	Correct bool `json:"correct"`
	// TriesToCorrect is the number of the first correct try, 0 if none.
	TriesToCorrect int       `json:"tries_to_correct"`
	LastVariant    int       `json:"last_variant"`
	FirstAt        time.Time `json:"first_at"`
	LastAt         time.Time `json:"last_at"`
	// GaveUp is set once the learner asked to be shown the answer.
	GaveUp bool `json:"gave_up"`
	// Revealed is set once the answer was shown: giving up, a wrong try
	// that used the last one, a submitted open answer, or an attempt after
	// the teacher showed the class the answer (Settings.Revealed).
	Revealed bool `json:"revealed"`
	// Late is set once the learner tried after the class's deadline:
	// those attempts are kept and earn nothing, unless LateCredit.
	Late bool `json:"late"`
	// LateCredit is set when the teacher granted credit for this
	// learner's late work on the exercise (Store.CreditLate): their
	// attempts after the deadline, still marked late, score as if on time.
	LateCredit bool `json:"late_credit"`
	// Solved is set by a right answer given before the answer was shown;
	// a right answer after it is practice and is not.
	Solved bool `json:"solved"`
	// Open is set for an open (text) exercise, scored by the teacher.
	Open bool `json:"open"`
	// Score is the best attempt's score, 0 to 1 (BestScore also reads the
	// teacher's score of an open answer: use it).
	Score float64 `json:"score"`
	// Review is the teacher's score and comment on the learner's open
	// answer, if the teacher gave one.
	Review *Review `json:"review,omitempty"`
}

// Change says that something in a class changed; a subscriber reloads what
// it shows rather than applying the change, so a dropped or merged Change
// loses nothing.
type Change struct {
	ClassID   int64  `json:"class_id"`
	Kind      string `json:"kind"`
	LearnerID int64  `json:"learner_id,omitempty"`
}

// Change kinds.
const (
	ChangeAttempt  = "attempt"
	ChangeJoin     = "join"
	ChangeRemove   = "remove"
	ChangeScenario = "scenario"
	ChangeCode     = "code"
	ChangeJoining  = "joining"
	// ChangeReview follows a teacher's score on an open answer.
	ChangeReview = "review"
	// ChangeVariants follows a switch between shared and per-learner
	// numbers.
	ChangeVariants = "variants"
	// ChangeArchive follows archiving or restoring the class.
	ChangeArchive = "archive"
	// ChangeDeleted says the class is gone (deleted after its grace
	// period): a dashboard that reloads finds nothing.
	ChangeDeleted = "deleted"
	// ChangeSession follows a learner going on in another browser
	// (ContinueSession): the session they had ends.
	ChangeSession = "session"
	// ChangeResync follows a lost connection to the database's
	// notifications: changes may have been missed, reload.
	ChangeResync = "resync"
	// ChangeGrades follows a change of how the class's grades stand with
	// its course (LTIStore.LTIGrades): a score or a reveal queued, sent,
	// tried again later, given up, superseded or re-armed, or an
	// instructor's launch that may have re-pointed a link to another line
	// item. Nothing else of the class changed with it.
	ChangeGrades = "grades"
)
