package classroom

import (
	"context"
	"time"
)

// LTIStore keeps what the playground needs as an LTI 1.3 tool (see the
// lti package): the registered platforms, the tool's keys, logins in
// flight and used nonces (shared, so that any replica can finish a login
// another started and none accepts a nonce twice), the class of each
// course, the learners who came by launch, and the durable queue of
// scores to send back. The sqlite and postgres stores implement it.
type LTIStore interface {
	// AddLTIPlatform registers a platform; ECONFLICT if its issuer and
	// client ID are registered already.
	AddLTIPlatform(ctx context.Context, p LTIPlatform) (*LTIPlatform, error)
	// LTIPlatforms lists the registered platforms, oldest first.
	LTIPlatforms(ctx context.Context) ([]LTIPlatform, error)
	// RemoveLTIPlatform forgets a platform, its logins, links and queued
	// scores (its courses' classes stay); ENOTFOUND for an unknown ID.
	RemoveLTIPlatform(ctx context.Context, id int64) error

	// LTIKeys returns the tool's signing keys, the current one first,
	// then those retired after retiredSince, newest first.
	LTIKeys(ctx context.Context, retiredSince time.Time) ([]LTIKey, error)
	// AddLTIKey makes k the current key. Unless rotate is set it does so
	// only when there is no current key (replicas starting together make
	// one key between them); with rotate the current key is retired.
	AddLTIKey(ctx context.Context, k LTIKey, rotate bool) error

	// SaveLTILogin keeps a login in flight until expires, under the hash
	// of its state, and deletes the expired ones.
	SaveLTILogin(ctx context.Context, stateHash []byte, platformID int64, nonce string, expires time.Time) error
	// LTILogin returns the platform and nonce of a login in flight;
	// ENOTFOUND for an unknown or expired state.
	LTILogin(ctx context.Context, stateHash []byte) (platformID int64, nonce string, err error)
	// UseLTINonce records a nonce as used until expires; ECONFLICT if it
	// was used already.
	UseLTINonce(ctx context.Context, platformID int64, nonce string, expires time.Time) error

	// LTILaunch makes the course's class at its first launch, records the
	// resource link, and for a learner joins them (or starts a new
	// session for one who came before).
	LTILaunch(ctx context.Context, l LTILaunch) (*LTILaunchResult, error)
	// LTIContext returns how the class with this ID came from a course,
	// ENOTFOUND if it did not.
	LTIContext(ctx context.Context, classID int64) (*LTIContext, error)

	// EnqueueLTIScore queues the learner's score on target ("exercise:ID"
	// or "lesson:SLUG") for every graded link of the class that opens it,
	// when it differs from the last one queued and not given up on (a
	// platform keeps the last score posted, so a lowered standing is sent
	// too, and one never delivered is sent again), and returns how
	// many it queued. pending marks a partial score that waits for the
	// teacher (AwaitsTeacher).
	EnqueueLTIScore(ctx context.Context, classID, learnerID int64, target string, given, maximum float64, pending bool) (int, error)
	// EnqueueLTIItemScore queues the learner's score on a gradebook item
	// (an exercise's, or a lesson's) for target, as EnqueueLTIScore does:
	// their points on it (GradeCell) of what it is worth
	// (GradeItem.Points), pending while it AwaitsTeacher; the same figures
	// as the item's column of the gradebook.
	EnqueueLTIItemScore(ctx context.Context, classID, learnerID int64, target string, item GradeItem) (int, error)
	// ClaimLTIScore takes the next score due at now for lease (so that
	// one replica sends it), or nil when none is due. A learner's scores
	// on a line item go one at a time, oldest first, and never an older
	// after a newer: one is not claimed while another of theirs is
	// claimed and its claim stands, and one with a newer queued after it
	// is superseded instead of claimed.
	ClaimLTIScore(ctx context.Context, now time.Time, lease time.Duration) (*LTIScoreJob, error)
	// FinishLTIScore records job's send: done (outcome "sent" or
	// "failed"), or to be tried again at retryAt with lastError. A failure
	// counts only while job's claim stands (job.ClaimedUntil) and the
	// score is not done: one whose claim ran out and was taken is another
	// replica's to send, and neither given up nor re-armed under it. "sent"
	// always holds, since the course has the score, but it ends only the
	// worker's own claim, never another replica's; and when a newer score
	// of the learner on the line item had reached the course before it,
	// that newer one is re-armed, so that it is the last the course gets.
	FinishLTIScore(ctx context.Context, job *LTIScoreJob, outcome, lastError string, retryAt time.Time) error
	// LTIScoreJobs lists the queue, newest first, at most limit.
	LTIScoreJobs(ctx context.Context, limit int) ([]LTIScoreJob, error)

	// ClaimLTIReveal takes the next reveal to pass on to a course's
	// gradebook for lease (so that one replica passes it on), or nil when
	// none waits. A reveal is queued, in the same write, when the settings
	// of a class of a course reveal an exercise anew (UpdateSettings), and
	// for a learner who first launches into a class with exercises
	// revealed (LTILaunch).
	ClaimLTIReveal(ctx context.Context, now time.Time, lease time.Duration) (*LTIRevealJob, error)
	// RenewLTIReveal extends job's claim to lease from now, so that no
	// other replica takes a reveal still being worked on, when the claim
	// is still job's (job.ClaimedUntil, which it then moves on); false
	// when it is not: it ran out, and another replica may have it.
	RenewLTIReveal(ctx context.Context, job *LTIRevealJob, now time.Time, lease time.Duration) (bool, error)
	// FinishLTIReveal forgets a reveal whose learners' standings are
	// queued, while job's claim stands (else it changes nothing: the
	// reveal is another replica's now).
	FinishLTIReveal(ctx context.Context, job *LTIRevealJob) error
	// FailLTIReveal records a reveal whose learners' standings could not
	// all be queued: to be claimed again from retryAt, or given up for
	// good when retryAt is zero (kept, with lastError, and claimed no
	// more until the teacher changes the class's settings or reveals an
	// exercise to it again, which queues it anew); while job's claim
	// stands, as FinishLTIReveal.
	FailLTIReveal(ctx context.Context, job *LTIRevealJob, lastError string, retryAt time.Time) error

	// LTIGrades sums up how the class's grades are reaching its course
	// at now: the scores sent, those waiting and the reveals waiting (with
	// the next try), and those given up (with the last error); ENOTFOUND
	// for a class that came from no course.
	LTIGrades(ctx context.Context, classID int64, now time.Time) (*LTIGrades, error)
	// RetryLTIGrades re-arms, to be tried from now, the class's scores
	// and reveals the queue gave up on (as LTIGrades counts them), at
	// most limit of each, and returns how many of each it re-armed. A
	// score is re-armed only while it is the last one queued for its
	// learner on its line item, its learner is still in the class and
	// its line item still linked: an older score never goes after a
	// newer one, and a removed learner is sent nothing more.
	RetryLTIGrades(ctx context.Context, classID int64, now time.Time, limit int) (scores, reveals int, err error)

	// SaveLTIDeepLink keeps a deep-linking request until expires, under
	// the hash of the token of its picker page.
	SaveLTIDeepLink(ctx context.Context, tokenHash []byte, d LTIDeepLink, expires time.Time) error
	// LTIDeepLink returns a deep-linking request; ENOTFOUND for an
	// unknown or expired token.
	LTIDeepLink(ctx context.Context, tokenHash []byte) (*LTIDeepLink, error)
}

// LTIPlatform is a learning management system registered with the tool.
type LTIPlatform struct {
	ID            int64     `json:"id"`
	Issuer        string    `json:"issuer"`
	ClientID      string    `json:"client_id"`
	DeploymentIDs []string  `json:"deployment_ids"`
	AuthURL       string    `json:"auth_url"`
	TokenURL      string    `json:"token_url"`
	JWKSURL       string    `json:"jwks_url"`
	FrameOrigins  []string  `json:"frame_origins"`
	CreatedAt     time.Time `json:"created_at"`
}

// LTIKey is one of the tool's RSA signing keys, as PEM (PKCS #8).
type LTIKey struct {
	KID        string
	PrivatePEM string
	CreatedAt  time.Time
	// RetiredAt is when a rotation replaced it, zero for the current key.
	RetiredAt time.Time
}

// LTILaunch is what a checked resource-link launch brings.
type LTILaunch struct {
	PlatformID     int64
	ContextID      string
	ContextTitle   string
	MembershipsURL string
	// Sub is the platform's ID of the user; Name, Email and StudentID
	// what it says of them.
	Sub, Name, Email, StudentID string
	// Instructor launches join nobody: they get the class's teacher key.
	Instructor bool
	// ResourceLinkID, Target ("exercise:ID", "lesson:SLUG" or "") and
	// LineItemURL (empty when not graded) describe the link launched.
	ResourceLinkID, Target, LineItemURL string
}

// LTILaunchResult is the class of the course, with the teacher key for
// an instructor or the new session of a learner.
type LTILaunchResult struct {
	Class      *Class
	TeacherKey string
	Session    *Session
}

// LTIContext is how a class came from a course of a platform.
type LTIContext struct {
	Platform       LTIPlatform
	ContextID      string
	Title          string
	MembershipsURL string
	// Subs maps the platform's user IDs of the class's learners to their
	// learner IDs.
	Subs map[string]int64
}

// LTIScoreJob is one score waiting to be sent to a line item.
type LTIScoreJob struct {
	ID          int64       `json:"id"`
	Platform    LTIPlatform `json:"-"`
	PlatformID  int64       `json:"platform_id"`
	LineItemURL string      `json:"lineitem_url"`
	UserSub     string      `json:"user_id"`
	Given       float64     `json:"score_given"`
	Maximum     float64     `json:"score_maximum"`
	// Pending is a partial score waiting for the teacher's: sent as
	// gradingProgress "PendingManual".
	Pending  bool      `json:"pending,omitempty"`
	ScoredAt time.Time `json:"scored_at"`
	Tries    int       `json:"tries"`
	NextAt   time.Time `json:"next_at"`
	DoneAt   time.Time `json:"done_at,omitzero"`
	// Outcome, once done: "sent"; "failed" (given up, LastError says
	// why); "superseded" by a later score of the learner on the line item;
	// "withdrawn" when the teacher removed the learner before it was sent.
	Outcome   string `json:"outcome,omitempty"`
	LastError string `json:"last_error,omitempty"`
	// ClaimedUntil is when the claim that took it ends, and another
	// replica may take it (zero when none has).
	ClaimedUntil time.Time `json:"-"`
}

// LTIRevealJob is a teacher's reveal of an exercise to a class of a
// course, waiting for the standing on it of the class's launched
// learners to be queued (a class's reveal stands each of them at 0 if
// they had not solved it).
type LTIRevealJob struct {
	ID       int64
	ClassID  int64
	Exercise string
	// LearnerID is the one learner to pass it on for (one who launched
	// after the reveal), 0 for every learner of the class.
	LearnerID int64
	// Tries counts the claims of it, this one included.
	Tries int
	// ClaimedUntil is when this claim ends, and another replica may
	// take the reveal.
	ClaimedUntil time.Time
}

// LTIGrades is how a class's grades are reaching its course
// (LTIStore.LTIGrades).
type LTIGrades struct {
	// Course is the course's title, as its platform named it.
	Course string `json:"course"`
	// Sent counts the scores the course acknowledged.
	Sent int `json:"sent"`
	// Waiting counts the scores still to be sent (being sent, or to be
	// tried again), RevealsWaiting the reveals whose scores are still to
	// be queued; NextAt is the earliest next try of any of them (zero
	// when none waits; at or before now when one is due or on its way).
	Waiting        int       `json:"waiting"`
	RevealsWaiting int       `json:"reveals_waiting"`
	NextAt         time.Time `json:"next_at,omitzero"`
	// RetryError is the last failure of a score still waiting, "" when
	// none has failed yet.
	RetryError string `json:"retry_error,omitempty"`
	// GivenUp counts the scores the queue gave up on after its last try
	// that still stand for their learner (the last queued on the line
	// item, the learner still in the class, the line item still linked),
	// RevealsGivenUp the reveals given up; LastError is the error of the
	// one given up last, and GivenUpAt when.
	GivenUp        int       `json:"given_up"`
	RevealsGivenUp int       `json:"reveals_given_up"`
	LastError      string    `json:"last_error,omitempty"`
	GivenUpAt      time.Time `json:"given_up_at,omitzero"`
	// Unmatched counts the scores on a line item linked to the class,
	// queued before scores named their class (migration 0014), that the
	// upgrade could match to no one class (the line item linked by
	// several, and the user in several of the platform's classes), and
	// not known to have reached the course: still waiting, or given up
	// while the last queued for their user on the line item. They are in
	// none of the counts above, and "Send again" leaves them alone.
	Unmatched int `json:"unmatched,omitempty"`
}

// LTIDeepLink is a platform's request to pick content, waiting for the
// teacher's choice.
type LTIDeepLink struct {
	PlatformID   int64
	DeploymentID string
	ReturnURL    string
	// Data is the platform's opaque value, returned as it came.
	Data string
}

// Profile is who joins a class: the name shown, and optionally the
// student ID and email a gradebook export matches them by.
type Profile struct {
	Name      string `json:"name"`
	StudentID string `json:"student_id,omitempty"`
	Email     string `json:"email,omitempty"`
}
