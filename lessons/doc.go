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
// is /lessons/fencing-tokens. The question opens the rendered page.
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
// Lesson.Playgrounds. expect (optional, not rendered) states what the text
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
//     rupees, per_second), unit_words the answer may carry ("runs"), and
//     wrong: named mistakes, each a formula with its feedback.
//   - choice: options ({key, text, aliases, feedback}), correct, multiple.
//   - predict: scenario {preset, set} (values may hold {param}), then either
//     measure (a formula over the run, e.g. final_value) with answer, unit
//     and wrong as for number, or options whose when condition is tested on
//     the run. The prediction is read first; only a readable one runs.
//   - scenario: scenario {preset, set}, allowed (the field paths a learner
//     may set), defaults, runs ({name, set, goal, explain}: fault schedules
//     applied after the learner's settings), seeds, solution_answer, and
//     wrong (settings known to fail, with feedback).
//   - text: model_answer and rubric ({point, keywords}).
//
// Goals, measures and when conditions may read the engine summary's fields
// (stale_writes_accepted, final_value, ...), blocked_after_crash_ms,
// locks_lost, gave_up, finished, renewals, lease_ms, fencing, and the
// exercise's parameters.
//
// # Using it from a server
//
// Open (or Default) once at start-up; Lessons, Lesson, LessonExercises,
// PageHTML and Exercise.FormHTML render pages; Catalog.Check or CheckAttempt
// grades a POST /api/exercises/{id}/check body {"answer", "variant"}; the
// Result marshals to the API's JSON. InputError means 400 (413 when
// TooLarge), naming its Field; ErrUnknown means 404.
// VariantFor gives a learner a stable variant.
package lessons
