// Package classroom is the model of a class run on the playground: classes,
// learners, their attempts at exercises and the progress those add up to,
// and the scenario a teacher pushes. It holds the domain types, the Store
// interface, the error codes, the secrets, the name rules and the CSV
// exports; besides the standard library it imports only golang.org/x/text
// and the Unicode confusables table (for names). The stores are
// subpackages, one per database, and pass one test suite (storetest):
//
//   - classroom/sqlite: a file, classroom.db in the data folder (--data,
//     PLAYGROUND_DATA, default ./playground-data), WAL mode, synchronous
//     FULL, created on first start. The default: nothing to install. One
//     server per folder: Open holds classroom.lock (an flock the system
//     drops when the process ends, however it ends), and a second server
//     on the same folder refuses to start, naming the folder, since its
//     dashboards would miss the first one's changes.
//   - classroom/postgres: DATABASE_URL=postgres://..., shared by several
//     replicas; changes reach them all through LISTEN/NOTIFY.
//   - classroom/store: Open(ctx, Config) picks one of the two and migrates
//     it; this is what a server calls at start-up.
//
// Schema migrations are embedded .sql files per dialect, recorded in a
// schema_migrations table, applied in one transaction at start-up, and
// skipped when already there; a database from a newer binary is refused.
//
// # Who may do what
//
// Every Store method that reveals or changes a class checks the credential
// it is handed, so a handler passes on what the request carried and maps
// the error's code; it decides nothing itself.
//
//   - A teacher key is 256 random bits, given once by CreateClass and kept
//     only as its SHA-256 (see HashSecret for why not bcrypt), compared in
//     constant time. Only it opens the class's dashboard and exports, and
//     only it rotates the code, closes joining, removes a learner or
//     pushes a scenario.
//   - A learner's session token (the session cookie) is 256 random bits,
//     also kept hashed. It records checks and reads that learner's own
//     progress, nobody else's.
//   - A join code is CodeLen characters from CodeAlphabet (no 0, O, 1, I),
//     from crypto/rand, unique. Codes are read case-insensitively.
//
// Names (class and learner) are trimmed, 1 to MaxNameLen characters, with
// no control, invisible or text-direction characters (zero-width spaces,
// bidi overrides, fillers), and stored as typed otherwise, composed (NFC)
// with runs of spaces made one: "<script>" is a name like any other, and
// escaping it is the job of whatever displays it. The CSV writers
// neutralise names that a spreadsheet would run as formulas. A learner's
// name also writes each word in one script ("Аna" with a Cyrillic А is
// refused), and is unique in its class by NameKey, a confusables skeleton
// after NFKC and case folding, so that no two dashboard rows look alike:
// "ANA", "Ａｎａ" and a Cyrillic "Аре" for "Ape" clash (ECONFLICT names the
// learner it looks like). names.go says why these rules and not others. A
// learner who lost their cookie joins under another name, or the teacher
// removes the old one.
//
// # Errors
//
// Errors meant for users are *Error values with a code and a message that
// names the field and the limit ("name: must be at most 40 characters (it
// has 52)"). ErrorCode and ErrorMessage read any error; anything that is
// not an *Error is EINTERNAL with the message "Internal error.", so a SQL
// error never reaches a page (the stores return none: see EUNAVAILABLE). The statuses to map them to:
//
//	EINVALID 400, EUNAUTHORIZED 401, EFORBIDDEN 403, ENOTFOUND 404,
//	ECONFLICT 409, ELIMIT 403 (a storage limit: retrying later does not
//	help, unlike the web layer's rate limits, which are 429),
//	EUNAVAILABLE 503 (the database failed or did not answer: every
//	database error a store method meets is one, with a message saying
//	what could not be done and to try again, the cause kept for logs),
//	EINTERNAL 500
//
// # For the web layer: one call per endpoint
//
//	store.Open(ctx, store.Config{DatabaseURL, DataDir})  at start-up; Close on shutdown
//	POST /api/classes {"name", "variants"}  CreateClass -> {"code": nc.Class.Code, "teacher_key": nc.TeacherKey},
//	                                      then SetVariants(code, key, VariantsShared) for a shared class
//	POST /api/classes/{code}/join {"name"}  Join -> set sess.Token as the HttpOnly, SameSite session cookie
//	any learner page                      Learner(token) -> the learner, their class, its pushed Scenario;
//	                                      lessons.ClassVariant(c.VariantSecret, l.VariantKey()) is their
//	                                      variant (never shown to them), or 0 when Class.Variants is
//	                                      VariantsShared
//	POST /api/exercises/{id}/check        LearnerProgress for the tries so far, Catalog.Check, then
//	                                      Record(token, Attempt{Exercise, Variant, Answer, Correct, Graded,
//	                                      Feedback, FormatError, Mistake, Parsed, Rule, Share, Reveals} from
//	                                      the Result); its Score, AfterReveal and BestChange come back
//	POST /api/exercises/{id}/give-up      GiveUp(token, exercise, variant)
//	POST /api/classes/{code}/reviews      Review(code, key, Review{LearnerID, Exercise, Score, Comment})
//	GET .../answers.csv                   Answers(code, key), then WriteAnswersCSV
//	GET .../mistakes                      Mistakes(code, key)
//	GET .../attempts.csv                  Attempts(code, key, ""), then WriteAttemptsCSV
//	POST .../regrade                      Attempts(code, key, exercise), recheck each, then
//	                                      Rescore(code, key, exercise, rule, verdicts)
//	POST .../late-credit                  CreditLate(code, key, learnerID, exercise, rule, on, verdicts)
//	anonymous practice cookies            ServerSecret(ctx, "practice-cookie") signs them
//	a learner's own progress              LearnerProgress(code, Credentials{Session: token}, learnerID)
//	teacher requests                      Teacher(code, key) to authenticate; TeacherClass(key) finds the
//	                                      class of a teacher link after its code was rotated
//	/class/{code}/teacher                 Dashboard(code, key): learners, progress, Stats(exercises) for
//	                                      attempted/correct/tries/gave up, Mistakes, open Answers
//	live updates                          Subscribe(ctx, class.ID), after Teacher; reload Dashboard on each
//	                                      Change (a slow reader's changes merge; never blocks writers)
//	push a scenario                       PushScenario(code, key, Scenario{Preset} or {JSON}); {} clears
//	GET .../progress.csv and wide CSV     Dashboard, then WriteProgressCSV / WriteWideCSV(w, d, catalog order)
//	rotate the code, close joining        RotateCode(code, key), SetJoinOpen(code, key, open)
//	archive or restore the class          SetArchived(code, key, archived)
//	remove a learner                      RemoveLearner(code, key, learnerID)
//	/healthz                              Ping
//
// # Attempts and progress
//
// Record stores an attempt and bumps the learner's progress on that
// exercise in one transaction, and returns only once it is durable: an
// acknowledged check survives a SIGKILL of the server (tested by killing a
// child process mid-stream). A check with a FormatError ("forty" for a
// number) costs no try, so it is neither stored nor counted: Record
// authenticates the learner and returns it with Try 0. Storing it would
// also let a client fill the database outside the attempt limit.
//
// An ungraded attempt (an open text answer) counts as attempted, never as
// correct or wrong. Progress keeps the tries, whether any was correct, the
// number of the first correct try and the times of the first and last.
//
// # Text answers, reviews and mistakes (migration 0002)
//
// An open answer is recorded ungraded; Answers lists them for the teacher,
// who scores each learner's answers to an exercise with Review (0 to 1 and
// a comment, the latest wins); the review rides on the learner's Progress,
// the dashboard, progress.csv (score, comment) and answers.csv. GiveUp
// marks a learner's progress (gave_up in progress.csv) without a try: the
// web shows the solution from then on. A graded wrong attempt keeps the
// checker's Mistake and Parsed answer, and Mistakes groups a class's wrong
// answers by named mistake across variants, or by parsed value
// (GroupMistakes), each learner once with their last answer. A class's
// Variants says whether learners get their own numbers or all the
// lesson's. ServerSecret keeps random keys that replicas share.
//
// # Credit (migration 0004)
//
// Record scores each graded attempt with AttemptScore from where the
// learner stood before it (graded tries, wrong ones, whether the answer
// had been shown), by the exercise's rule and the check's share, and keeps
// the best per learner and exercise. The answer counts as shown once the
// learner gave up, or a check that showed it (Attempt.Reveals: the last
// wrong try, a submitted open answer) was recorded; an attempt after that
// is AfterReveal and earns 0, and a right one does not make the exercise
// Solved. Progress.Status is the one word every view shows (solved,
// revealed, partial, wrong, submitted, scored), BestScore the score (the
// teacher's for an open answer) and Done what "Solved" counts. Mistakes
// leaves out wrong answers given after the learner's first right one.
// Attempts lists every attempt (attempts.csv); Rescore reworks an
// exercise's scores in try order from new verdicts after its key was
// fixed; an attempt's AnswerFormat says how its letters name a choice's
// options, so the web reads old ones as they were meant. CreditLate is the
// teacher's extension: a learner's late attempts at an exercise score as
// if on time (Progress.LateCredit). Each class has a random VariantSecret from which the web draws
// its learners' variants, so nobody outside the class can work them out.
//
// # Limits
//
// Limits (DefaultLimits: 1000 classes, 500 learners a class, 200 attempts
// per learner and exercise) bound what a shared server stores; reaching
// one is an ELIMIT error saying which limit and its value. Limits are
// exact under concurrency: SQLite writes one transaction at a time, and on
// PostgreSQL joins lock the class row, creations take an advisory lock and
// attempts lock their progress row.
//
// # Archived and expired classes
//
// So that a public server does not fill up with classes nobody uses, a
// class is closed when its teacher archives it (SetArchived) or when it
// has gone unused (no join, answer or teacher change) for
// Options.Retention, default 180 days: it then expires. A closed class
// refuses joins, answers and teacher changes with an ECONFLICT that says
// since when and until when; its teacher still reads it, exports it and
// can restore it (which also revives an expired class). Options.Grace
// (default 30 days) after it closed, Purge deletes it with everything in
// it; the stores run Purge every Options.PurgeEvery (an hour) and publish
// ChangeDeleted. Class carries ArchivedAt, ActiveAt, ExpiresAt and
// DeleteAt, and Status(now) says which state it is in. Classes from
// before migration 0003 count their retention from the upgrade.
//
// # Live updates
//
// Subscribe delivers a Change (class, kind, learner) after every committed
// write to the class. On SQLite the store publishes it in-process after
// commit; on PostgreSQL the writing transaction sends it with pg_notify, so
// it reaches every replica on commit and never for a rolled-back write, and
// a listener on each replica hands it to local subscribers. After the
// listener loses its connection and reconnects it sends ChangeResync,
// since notifications may have been missed.
package classroom
