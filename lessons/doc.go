// Package lessons holds the course: Markdown lessons, the exercises beside
// them, the catalog that loads both, and the checker that grades answers,
// running the engine where an answer is a prediction or a set of scenario
// settings.
//
// # Files
//
// A lesson folder is flat. Every *.md file is a lesson; every *.yaml file is
// one exercise. The embedded folder is content/; Open(dir) or Load(fs) reads
// another one, so a teacher can change material without rebuilding. Loading
// checks everything (front matter, markers, formulas, placeholders, presets)
// and reports every problem as file:line: message.
//
// A lesson starts with YAML front matter between two lines of ---:
//
//	---
//	title: Fencing tokens
//	order: 4                     # its place in the course
//	summary: One line for the lesson index.
//	question: How can the data refuse a holder that lost its lock?
//	presets: [paused-holder]     # the presets its playgrounds may use
//	exercises: [stale-token-write, nightly-total-predict]
//	---
//
// The file name without its leading number is the slug: 04-fencing-tokens.md
// is /lessons/fencing-tokens. The question opens the rendered page. The
// order field alone places a lesson, so a lesson is inserted by giving it
// the next order and moving the later ones up; renaming their files to
// match keeps the folder in course order and changes no URL.
//
// # Playground markers
//
// A fenced code block whose info string is "playground" embeds a live
// playground (see Playground for the fields):
//
//	```playground
//	preset: paused-holder
//	controls: [fencing, "clients[client-1].renew_every"]
//	set: {fencing: false}
//	caption: Run it with fencing off, then on.
//	expect: stale_writes_accepted >= 1
//	```
//
// It renders as <figure class="playground" data-preset data-controls
// data-set> with a caption and a plain-HTML fallback, and is listed in
// Lesson.Playgrounds. predict: <exercise id> makes the playground wait for
// that prediction: the prediction's form goes just above it, its Run
// button works once the prediction is earned, and its caption (which
// tells what the run shows) stays out of the page until then
// (Catalog.GateCaption). The prediction must run the playground's own
// scenario, with no parameters.
//
// An exercise marker places an exercise in the text, where its form goes:
//
//	```exercise
//	id: renew-faster
//	```
//
// Every prediction of a lesson must be placed (by a marker or a
// playground's predict:), since a prediction left for the end of a
// lesson would come after the text that explains its outcome. The other
// exercises close the lesson. Lesson.Segments is the body cut at each
// placed exercise. expect (optional, not rendered) states what the text
// around it claims the run shows, over the same measures as an exercise
// goal; Verify runs the playground and reports a claim the engine does not
// bear out.
//
// # Exercise files
//
// Common fields: id, kind (number, choice, predict, scenario, text), title,
// prompt (Markdown with {param} placeholders), params, let, constraints,
// hints ({after: N, text}), solution, success.
//
// Parameters are drawn per variant: variant 0 takes each default (the
// notes' numbers); other variants draw from choices or from min..max by
// step, seeded by the variant and the exercise id, redrawing until every
// constraint holds. let adds derived values ("long = long_min * 60").
// Formulas are github.com/expr-lang/expr expressions over a typed
// environment: every name is a number (a run's yes/no facts such as
// fencing or safe are 1 or 0). A value formula (answer, let, measure)
// must give a number; a condition (constraint, goal, when, expect) must
// give true or false. They use + - * / ** , comparisons, && || ! (and,
// or, not), a ? b : c, and min, max, round, floor, ceil, abs and mod. A
// misspelt name or a condition that is a number fails at load time with
// its column.
//
//   - number: answer (a formula), tolerance {abs, rel}, unit (count, seconds,
//     rupees, per_second), unit_words the answer may carry ("runs"),
//     bare_unit (s or min: what a number without a unit means when the
//     question says; without it a bare time is asked back), ratio (the
//     answer is a factor, so 4500% reads as 45x), and wrong:
//     named mistakes, each {name, label, answer (a formula), feedback}.
//   - choice: options ({key, text, aliases, feedback}), correct, multiple.
//     Options are shown shuffled and lettered a, b, c... per variant, so
//     a key is an option's stable id ("option-b"), not what a learner
//     sees: a solution, hint or feedback names an option as {@b}, written
//     as the letter it is shown under. An alias may not be a single letter.
//     A prediction with options may give correct too (the option its run
//     makes right on every variant), which spreads the right letter evenly;
//     Verify checks it against the run.
//   - predict: scenario {preset, set} (values may hold {param}), then either
//     measure (a formula over the run, e.g. final_value) with answer, unit
//     and wrong as for number, or options whose when condition is tested on
//     the run. The prediction is read first; only a readable one runs.
//     reveals lists phrases that would state the outcome: Verify reports
//     any of them, and for a prediction that opens a playground the title
//     of the preset, found in what a learner sees before the prediction
//     (the lesson's headings, the text above it, the question, the locked
//     playground), whether a playground or a marker places it.
//   - scenario: scenario {preset, set}, allowed (the field paths a learner
//     may set), fields (per path: label, min, max, choices, empty, over
//     the defaults for the path), defaults, runs ({name, set, goal,
//     explain}: fault schedules applied after the learner's settings),
//     seeds, solution_answer, and wrong (named settings known to fail).
//   - text: model_answer and rubric ({point}). Nothing is matched against
//     an open answer: it is submitted, the learner compares it with the
//     model answer, and a teacher scores it.
//
// Goals, measures and when conditions may read the engine summary's fields
// (stale_writes_accepted, final_value, ...), blocked_after_crash_ms,
// locks_lost, gave_up, finished, renewals, lease_ms, fencing, and the
// exercise's parameters.
//
// # Answers and mistakes
//
// parseNumber (answer.go) reads numbers as people write them and asks back
// (a FormatError, no try) when an answer could mean two things. A wrong
// answer's Result names its Mistake the same on every variant: a wrong
// formula's name, option-<key> for a wrong option, missed-<keys> for
// options left out, run-<n> for the first failing run of a scenario, and
// percent-for-count for a share where a count is asked; MistakeLabel says
// it in words. Read is the answer as understood ("4,950"), the same for
// every way of typing it, so unnamed wrong answers group by it.
//
// # What is shown when
//
// Nothing gives the answer away before it is earned (Standing.Earned): a
// right answer, a submitted text answer, RevealAfter wrong tries, or
// Reveal ("show me"). Until then a wrong prediction is told why its
// reasoning fails, never what the run gave; Serve hands out the exercise
// as data (options shuffled per variant and lettered after shuffling,
// each with a stable id that answers and mistakes use; scenario fields with ranges, hints unlocked so far) with no answer, key
// or solution in it. Solution is for a learner who earned it.
//
// # Using it from a server
//
// Open (or Default) once at start-up; Lessons, Lesson and LessonExercises
// list the course; Exercise.Serve gives an exercise for a variant and a
// learner's Standing; Catalog.Check or CheckAttempt grades a POST
// /api/exercises/{id}/check body {"answer", "variant"}, with Tries from the
// server's own record of the learner; Exercise.Reveal answers a give-up.
// The Result marshals to the API's JSON. InputError means 400 (413 when
// TooLarge), naming its Field; ErrUnknown means 404. VariantFor gives a
// learner a stable variant.
package lessons
