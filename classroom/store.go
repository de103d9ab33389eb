package classroom

import (
	"context"
	"time"
)

// Store keeps classes, learners, attempts and progress. Every method that
// reveals or changes a class checks the credential it is given, so a
// handler passes along what the request carried and maps the error code;
// it never decides who may see what.
//
// A method that writes returns only once the write is durable (committed,
// and on SQLite synced to the write-ahead log): an acknowledged attempt
// survives a SIGKILL of the server.
type Store interface {
	// CreateClass creates a class open for joining, with a fresh join code
	// and teacher key. EINVALID for a bad name; ELIMIT at Limits.MaxClasses
	// classes in use, at Limits.MaxEmptyClasses classes nobody has joined,
	// or at Limits.MaxClassesPerAddress live classes made from the address
	// in ctx (WithCreator).
	CreateClass(ctx context.Context, name string) (*NewClass, error)

	// Teacher returns the class with this join code if key is its teacher
	// key: EUNAUTHORIZED without a key, ENOTFOUND for an unknown code,
	// EFORBIDDEN for a wrong key or another class's key.
	Teacher(ctx context.Context, code, key string) (*Class, error)
	// TeacherClass returns the class whose teacher key this is, whatever
	// its current code: how a teacher link finds its class after the code
	// was rotated. EUNAUTHORIZED if it is nobody's key.
	TeacherClass(ctx context.Context, key string) (*Class, error)

	// Join adds a learner to the class with this code and starts their
	// session. ENOTFOUND for an unknown code, ECONFLICT when joining is
	// closed or the name is taken in the class, ELIMIT at
	// Limits.MaxLearnersPerClass, EINVALID for a bad name.
	Join(ctx context.Context, code, name string) (*Session, error)
	// JoinAs is Join with the learner's optional student ID and email
	// (CleanProfile's rules; EINVALID names the field). ECONFLICT naming
	// the field when another learner of the class has that student ID or
	// email, which gradebook imports match rows by.
	JoinAs(ctx context.Context, code string, p Profile) (*Session, error)
	// Learner returns the learner whose session token this is and their
	// class: EUNAUTHORIZED for no token, an unknown one, or a removed
	// learner's.
	Learner(ctx context.Context, token string) (*Learner, *Class, error)

	// Record stores a graded check for the learner of this session token
	// and returns it with its ID, time and try number. A check with a
	// FormatError costs no try and is not stored: it is returned as it is
	// with Try 0. ELIMIT once the learner has Limits.MaxAttemptsPerExercise
	// attempts at the exercise.
	Record(ctx context.Context, token string, a Attempt) (*Attempt, error)

	// LearnerProgress returns one learner's progress, in exercise order
	// of first attempt. Allowed to the class's teacher (creds.TeacherKey)
	// and to that learner (creds.Session); EFORBIDDEN for anyone else.
	LearnerProgress(ctx context.Context, code string, creds Credentials, learnerID int64) ([]Progress, error)
	// Dashboard returns the whole class's progress for its teacher: what
	// the live dashboard and both CSV exports show.
	Dashboard(ctx context.Context, code, key string) (*Dashboard, error)

	// PushScenario sets the scenario every learner's playground offers;
	// an empty Scenario clears it.
	PushScenario(ctx context.Context, code, key string, s Scenario) (*Class, error)
	// SetSettings replaces the class's settings (CheckSettings).
	SetSettings(ctx context.Context, code, key string, s Settings) (*Class, error)
	// UpdateSettings changes the class's settings with change, which is
	// given them as they stand when the change is written, so that two
	// changes at once both count: change may run more than once, and
	// its error is returned as it is. Its result is checked
	// (CheckSettings). An exercise revealed anew (Settings.Revealed) to
	// a class of a course is queued, in the same write, for the course's
	// gradebook (LTIStore.ClaimLTIReveal).
	UpdateSettings(ctx context.Context, code, key string, change func(Settings) (Settings, error)) (*Class, error)
	// RotateCode gives the class a new join code; the old one stops
	// working for joining and for teacher URLs, sessions keep working.
	RotateCode(ctx context.Context, code, key string) (*Class, error)
	// SetJoinOpen opens or closes joining.
	SetJoinOpen(ctx context.Context, code, key string, open bool) (*Class, error)
	// SetArchived archives the class (it takes no more joins or answers,
	// and is deleted after the grace period) or restores it (open again,
	// and its retention counts from now, which also revives an expired
	// class).
	SetArchived(ctx context.Context, code, key string, archived bool) (*Class, error)
	// Purge deletes every class past its DeleteAt, with its learners,
	// attempts and progress, and returns how many. Stores also run it on
	// their own every Options.PurgeEvery.
	Purge(ctx context.Context) (int, error)
	// SetVariants chooses how the class's learners get their numbers:
	// VariantsPerLearner or VariantsShared (EINVALID for anything else).
	SetVariants(ctx context.Context, code, key, variants string) (*Class, error)

	// GiveUp records that the learner of this session asked to be shown
	// the answer to an exercise, and returns their progress on it: after
	// this the worked solution is theirs. It costs no try; giving up twice
	// changes nothing.
	GiveUp(ctx context.Context, token, exercise string, variant int) (*Progress, error)
	// NoteRun records that the learner of this session ran the very
	// scenario of these prediction exercises (at most MaxNotedRuns ids),
	// so that their attempts from now on are marked AfterRun. The first
	// run of each is kept; a closed class refuses it, as every change.
	NoteRun(ctx context.Context, token string, exercises []string) error
	// DeviceCode gives the learner of this session a one-time code, valid
	// DeviceCodeTTL, with which another browser takes over their session
	// (ContinueSession); an earlier code of theirs stops working.
	DeviceCode(ctx context.Context, token string) (code string, expires time.Time, err error)
	// ContinueSession uses a device code (CheckDeviceCode's form): the
	// learner gets a new session, which the new browser keeps, and the
	// old one ends. ENOTFOUND for a code that is unknown, used or
	// expired.
	ContinueSession(ctx context.Context, code string) (*Session, error)
	// Review stores the teacher's score (0 to 1) and comment on a
	// learner's open answer to an exercise, or on an exercise revealed to
	// them before any right answer (which needs no attempt), replacing an
	// earlier one. Teacher key only; ENOTFOUND if the learner is not in
	// the class or has neither answered the exercise nor had it revealed;
	// EINVALID naming exercise if r.Graded and it was not revealed.
	Review(ctx context.Context, code, key string, r Review) (*Review, error)
	// Answers returns every open (ungraded) answer in the class, oldest
	// first, each with the teacher's review of that learner and exercise:
	// answers.csv and the dashboard's list to score. Teacher key only.
	Answers(ctx context.Context, code, key string) ([]TextAnswer, error)
	// Mistakes returns the class's graded wrong answers grouped by
	// exercise and named mistake, across variants, or by parsed value for
	// unnamed ones (GroupMistakes). Teacher key only.
	Mistakes(ctx context.Context, code, key string) ([]MistakeGroup, error)
	// Attempts returns every recorded attempt in the class, oldest first,
	// or only those at one exercise when exercise is not empty, each with
	// its learner's name: attempts.csv, and what a regrade rechecks.
	// Teacher key only.
	Attempts(ctx context.Context, code, key, exercise string) ([]ClassAttempt, error)
	// Rescore replaces the verdicts of an exercise's attempts after its
	// key was fixed (the checker's new verdict on each attempt, by ID) and
	// works every score out again in try order with AttemptScore, with
	// the progress they add up to. Attempts not listed keep their
	// verdicts. learners limits it to those learners (nil: everyone who
	// answered). It returns the learners whose best score changed.
	// Teacher key only; EINVALID for a bad exercise or rule.
	Rescore(ctx context.Context, code, key, exercise, rule string, learners []int64, verdicts []Verdict) ([]ScoreChange, error)
	// CreditLate grants (on) or withdraws the teacher's credit for a
	// learner's late work on an exercise, an extension: with it, their
	// attempts after the class's deadline, kept and still marked late,
	// score as if on time, those already made and those to come. The
	// exercise is then rescored in try order as Rescore does (verdicts,
	// which may be empty, are the checker's on attempts whose stored
	// score does not tell their share). It returns the change of the
	// learner's best score, nil if none. Teacher key only; ENOTFOUND if
	// the learner is not in the class or never answered the exercise,
	// EINVALID naming exercise if none of their attempts at it was late.
	CreditLate(ctx context.Context, code, key string, learnerID int64, exercise, rule string, on bool, verdicts []Verdict) (*ScoreChange, error)
	// LiftLate un-marks the class's late attempts made by until (all of
	// them for the zero time), after the teacher moved the deadline later
	// or cleared it: they were on time by the deadline in force. Attempts
	// are never marked late after the fact. It returns each learner and
	// exercise whose attempts it un-marked; the caller rescores those
	// exercises (Rescore), as their stored scores are the late ones.
	// Teacher key only.
	LiftLate(ctx context.Context, code, key string, until time.Time) ([]LearnerExercise, error)
	// ServerSecret returns the 32 random bytes kept under name, made on
	// first use: keys the server's replicas must share and keep across
	// restarts (what signs anonymous practice cookies).
	ServerSecret(ctx context.Context, name string) ([]byte, error)

	// RemoveLearner deletes a learner with their attempts and progress;
	// their session stops working, and the scores of theirs the LTI queue
	// had still to send are withdrawn (LTIScoreJob.Outcome). ENOTFOUND if
	// not in this class.
	RemoveLearner(ctx context.Context, code, key string, learnerID int64) error

	// Subscribe returns a channel that receives a Change whenever the class
	// changes, from this process or (on PostgreSQL) any replica sharing
	// the database. Changes may be merged when the reader is slow. The
	// channel is closed when ctx ends or the store closes. It does not
	// check credentials: a Change carries no data, call Dashboard for it.
	Subscribe(ctx context.Context, classID int64) (<-chan Change, error)

	// Ping checks that the store answers a query, for /healthz.
	Ping(ctx context.Context) error
	// Close stops the change listener, then closes the database.
	Close() error
}

// Credentials is what a request carried: a teacher key (Authorization:
// Bearer, or the teacher link's cookie) and a learner session token (the
// session cookie). Either may be empty.
type Credentials struct {
	TeacherKey string
	Session    string
}

// Limits bound what one shared server stores. Zero values take the
// defaults of DefaultLimits.
type Limits struct {
	// MaxClasses bounds the classes in use: someone has joined them.
	// Archived and expired ones count until they are deleted.
	MaxClasses int
	// MaxEmptyClasses bounds, apart, the classes nobody has joined yet:
	// making classes is cheap for a script, and an empty class is deleted
	// Options.EmptyRetention after it was made, so filling this limit
	// holds nobody off for long, and never the classes in use.
	MaxEmptyClasses int
	// MaxClassesPerAddress bounds the live classes (neither archived nor
	// expired, and for empty ones within their EmptyRetention) made from
	// one address (WithCreator).
	MaxClassesPerAddress   int
	MaxLearnersPerClass    int
	MaxAttemptsPerExercise int
	// MaxBytesPerLearner and MaxBytesPerClass bound the bytes of answers
	// stored (each attempt's answer and a row's overhead): a learner or a
	// class past them is told it is full (ELIMIT).
	MaxBytesPerLearner, MaxBytesPerClass int64
}

// DefaultLimits returns limits for a server a few lectures share: a big
// lecture hall fits in a class, and a learner who sends 200 checks of one
// exercise is stuck or scripting. 2 MiB of answers is a thousand answers
// of 2,000 characters for one learner; 256 MiB a class of 500 with half
// that each. Twenty classes from one address is a
// school's whole staff behind its NAT.
func DefaultLimits() Limits {
	return Limits{MaxClasses: 1000, MaxEmptyClasses: 5000, MaxClassesPerAddress: 20, MaxLearnersPerClass: 500, MaxAttemptsPerExercise: 200,
		MaxBytesPerLearner: 2 << 20, MaxBytesPerClass: 256 << 20}
}

// WithDefaults fills zero fields from DefaultLimits.
func (l Limits) WithDefaults() Limits {
	d := DefaultLimits()
	if l.MaxClasses <= 0 {
		l.MaxClasses = d.MaxClasses
	}
	if l.MaxEmptyClasses <= 0 {
		l.MaxEmptyClasses = d.MaxEmptyClasses
	}
	if l.MaxClassesPerAddress <= 0 {
		l.MaxClassesPerAddress = d.MaxClassesPerAddress
	}
	if l.MaxBytesPerLearner <= 0 {
		l.MaxBytesPerLearner = d.MaxBytesPerLearner
	}
	if l.MaxBytesPerClass <= 0 {
		l.MaxBytesPerClass = d.MaxBytesPerClass
	}
	if l.MaxLearnersPerClass <= 0 {
		l.MaxLearnersPerClass = d.MaxLearnersPerClass
	}
	if l.MaxAttemptsPerExercise <= 0 {
		l.MaxAttemptsPerExercise = d.MaxAttemptsPerExercise
	}
	return l
}

// Options are what both stores take besides where the database is.
type Options struct {
	Limits Limits
	// Now is the clock; nil means time.Now. Tests set it to get fixed
	// times in exports.
	Now func() time.Time
	// Retention is how long a class may go unused (no join, answer or
	// teacher change) before it expires; zero means DefaultRetention.
	Retention time.Duration
	// Grace is how long an archived or expired class is kept, for its
	// teacher to export or restore, before it is deleted; zero means
	// DefaultGrace.
	Grace time.Duration
	// EmptyRetention is how long a class nobody has joined is kept after
	// it was made; then it is deleted (nothing in it to export). Zero
	// means DefaultEmptyRetention.
	EmptyRetention time.Duration
	// PurgeEvery is how often the store deletes classes past their grace;
	// zero means DefaultPurgeEvery, negative never (call Purge).
	PurgeEvery time.Duration
	// Pause, when set, is called at the named points of a store's work
	// where another request may overtake it (PauseQueueScore,
	// PauseQueueScoreRead), so that a test can land that request there.
	// Nil outside tests.
	Pause func(point string)
}

// PauseQueueScore is the point of EnqueueLTIItemScore after it was asked
// to queue a learner's standing and before it writes: an answer landing
// there, with its own standing queued, must be in the standing this one
// queues, or the course's gradebook is left with a score without it.
const PauseQueueScore = "queue-score"

// PauseQueueScoreRead is the point of EnqueueLTIScore and
// EnqueueLTIItemScore, in their transaction, after the score to queue was
// worked out and before it is written: another queuing for the learner
// waits there until this one commits, and then reads what it wrote.
const PauseQueueScoreRead = "queue-score-read"

// Lifecycle defaults: a class lives through a term of use, and for a
// month after it is archived or expires.
const (
	DefaultRetention  = 180 * 24 * time.Hour
	DefaultGrace      = 30 * 24 * time.Hour
	DefaultPurgeEvery = time.Hour
	// DefaultEmptyRetention: a teacher makes a class the day of the
	// lesson, or the day before.
	DefaultEmptyRetention = 24 * time.Hour
)

// WithDefaults fills zero lifecycle fields and limits from the defaults.
func (o Options) WithDefaults() Options {
	o.Limits = o.Limits.WithDefaults()
	if o.Retention <= 0 {
		o.Retention = DefaultRetention
	}
	if o.Grace <= 0 {
		o.Grace = DefaultGrace
	}
	if o.PurgeEvery == 0 {
		o.PurgeEvery = DefaultPurgeEvery
	}
	if o.EmptyRetention <= 0 {
		o.EmptyRetention = DefaultEmptyRetention
	}
	return o
}

// LearnerExercise names one learner's work on one exercise.
type LearnerExercise struct {
	LearnerID int64
	Exercise  string
}
