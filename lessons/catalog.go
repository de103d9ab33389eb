package lessons

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

//go:embed content/*.md content/*.yaml
var embedded embed.FS

// Lesson is one lesson: its front matter, its rendered body and what the
// page embeds.
type Lesson struct {
	Slug     string   `json:"slug"`
	Title    string   `json:"title"`
	Order    int      `json:"order"`
	Summary  string   `json:"summary"`
	Question string   `json:"question"` // the question the lesson answers; it opens the page
	Presets  []string `json:"presets"`
	// ExerciseIDs are the lesson's exercises, in the order they close it.
	ExerciseIDs []string     `json:"exercises"`
	Playgrounds []Playground `json:"playgrounds"`
	Headings    []Heading    `json:"headings"`
	// HTML is the rendered body: the question, the text and the playground
	// figures. Segments is the same cut where exercises are placed in the
	// text (Inline lists them in order); the web puts each exercise's
	// form there, and the lesson's other exercises after the text.
	HTML     string    `json:"-"`
	Segments []Segment `json:"-"`
	Inline   []string  `json:"inline_exercises"`
	Markdown string    `json:"-"`
	File     string    `json:"-"`

	exercisesLine int
}

// Catalog is every lesson, in teaching order, and every exercise. It is
// read-only once loaded and safe for concurrent use.
type Catalog struct {
	lessons   []*Lesson
	bySlug    map[string]*Lesson
	exercises map[string]*Exercise
	order     []string // exercise ids in lesson order
	runs      predictionRuns
}

// ErrUnknown is wrapped by errors for a lesson or exercise that does not
// exist (a 404 on the web).
var ErrUnknown = errors.New("not found")

type frontMatter struct {
	Title     string   `yaml:"title"`
	Order     int      `yaml:"order"`
	Summary   string   `yaml:"summary"`
	Question  string   `yaml:"question"`
	Presets   []string `yaml:"presets"`
	Exercises []string `yaml:"exercises"`
}

var (
	defaultOnce    sync.Once
	defaultCatalog *Catalog
	defaultErr     error
	orderPrefixRE  = regexp.MustCompile(`^\d+-`)
)

// Default returns the catalog embedded in the binary, loaded once.
func Default() (*Catalog, error) {
	defaultOnce.Do(func() {
		sub, err := fs.Sub(embedded, "content")
		if err != nil {
			defaultErr = err
			return
		}
		defaultCatalog, defaultErr = load(sub, "lessons/content")
	})
	return defaultCatalog, defaultErr
}

// Open returns the catalog in dir, or the embedded one when dir is empty.
// It is what a command calls with its --lessons flag or PLAYGROUND_LESSONS.
func Open(dir string) (*Catalog, error) {
	if dir == "" {
		return Default()
	}
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("lessons folder: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("lessons folder %s: not a directory", dir)
	}
	return load(os.DirFS(dir), dir)
}

// Load reads a catalog from a folder: every *.md file is a lesson and every
// *.yaml file an exercise. All problems are reported together, each naming
// its file and line, so a broken file fails at start-up rather than as a
// broken page.
func Load(fsys fs.FS) (*Catalog, error) { return load(fsys, "") }

func load(fsys fs.FS, prefix string) (*Catalog, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("lessons: %w", err)
	}
	c := &Catalog{bySlug: map[string]*Lesson{}, exercises: map[string]*Exercise{}}
	var errs []error
	name := func(f string) string {
		if prefix == "" {
			return f
		}
		return path.Join(prefix, f)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		fn := e.Name()
		switch {
		case strings.HasSuffix(fn, ".md"):
			data, err := readBounded(fsys, fn)
			if err != nil {
				errs = append(errs, &LoadError{File: name(fn), Msg: err.Error()})
				continue
			}
			l, lerrs := parseLesson(name(fn), strings.TrimSuffix(fn, ".md"), data)
			errs = append(errs, lerrs...)
			if l != nil {
				if other, dup := c.bySlug[l.Slug]; dup {
					errs = append(errs, &LoadError{File: l.File, Msg: fmt.Sprintf("lesson %q is also %s", l.Slug, other.File)})
					continue
				}
				c.bySlug[l.Slug] = l
				c.lessons = append(c.lessons, l)
			}
		case strings.HasSuffix(fn, ".yaml") || strings.HasSuffix(fn, ".yml"):
			data, err := readBounded(fsys, fn)
			if err != nil {
				errs = append(errs, &LoadError{File: name(fn), Msg: err.Error()})
				continue
			}
			ex, xerrs := parseExercise(name(fn), data)
			errs = append(errs, xerrs...)
			if ex != nil {
				if other, dup := c.exercises[ex.ID]; dup {
					errs = append(errs, &LoadError{File: ex.File, Line: 1, Msg: fmt.Sprintf("exercise %q is also defined in %s", ex.ID, other.File)})
					continue
				}
				c.exercises[ex.ID] = ex
			}
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if len(c.lessons) == 0 {
		return nil, fmt.Errorf("lessons: no lesson (*.md) found in %s", name("."))
	}
	sort.SliceStable(c.lessons, func(i, j int) bool {
		if c.lessons[i].Order != c.lessons[j].Order {
			return c.lessons[i].Order < c.lessons[j].Order
		}
		return c.lessons[i].Slug < c.lessons[j].Slug
	})
	listed := map[string]string{}
	for _, l := range c.lessons {
		for _, id := range l.ExerciseIDs {
			ex, ok := c.exercises[id]
			switch {
			case !ok:
				errs = append(errs, &LoadError{File: l.File, Line: l.exercisesLine, Msg: fmt.Sprintf("exercise %q has no file (expected an exercise with id: %s)", id, id)})
			case listed[id] != "":
				errs = append(errs, &LoadError{File: l.File, Line: l.exercisesLine, Msg: fmt.Sprintf("exercise %q is already listed by lesson %s", id, listed[id])})
			default:
				listed[id] = l.Slug
				ex.Lesson = l.Slug
				c.order = append(c.order, id)
			}
		}
	}
	for _, l := range c.lessons {
		errs = append(errs, c.checkPlacements(l)...)
	}
	for _, id := range sortedKeys(c.exercises) {
		if listed[id] == "" {
			errs = append(errs, &LoadError{File: c.exercises[id].File, Line: 1, Msg: fmt.Sprintf("exercise %q is not listed in any lesson's exercises", id)})
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return c, nil
}

// maxFileSize bounds one lesson or exercise file.
const maxFileSize = 256 << 10

func readBounded(fsys fs.FS, fn string) ([]byte, error) {
	data, err := fs.ReadFile(fsys, fn)
	if err != nil {
		return nil, err
	}
	if len(data) > maxFileSize {
		return nil, fmt.Errorf("is %d bytes; at most %d are read", len(data), maxFileSize)
	}
	return data, nil
}

// parseLesson reads the front matter and renders the body.
func parseLesson(file, base string, data []byte) (*Lesson, []error) {
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	if !bytes.HasPrefix(data, []byte("---\n")) {
		return nil, []error{&LoadError{File: file, Line: 1, Msg: "a lesson starts with front matter: a line ---, the fields (title, order, summary, question, presets, exercises), and another ---"}}
	}
	rest := data[4:]
	end := bytes.Index(rest, []byte("\n---\n"))
	if end < 0 {
		if bytes.HasSuffix(rest, []byte("\n---")) {
			end = len(rest) - 4
		} else {
			return nil, []error{&LoadError{File: file, Line: 1, Msg: "the front matter is not closed: add a line --- after its fields"}}
		}
	}
	fmSrc := rest[:end+1]
	body := rest[min(len(rest), end+5):]
	bodyLine := 1 + bytes.Count(data[:4+min(len(rest), end+5)], []byte("\n"))

	var fm frontMatter
	dec := yaml.NewDecoder(bytes.NewReader(fmSrc))
	dec.KnownFields(true)
	if err := dec.Decode(&fm); err != nil {
		return nil, yamlErrors(file, 1, err)
	}
	var doc yaml.Node
	_ = yaml.Unmarshal(fmSrc, &doc)
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, &LoadError{File: file, Line: 1 + lineOf(&doc, key), Msg: fmt.Sprintf(format, args...)})
	}
	if fm.Title == "" {
		bad("title", "title is required")
	}
	if fm.Order <= 0 {
		bad("order", "order must be a positive number (it places the lesson in the course)")
	}
	if fm.Summary == "" {
		bad("summary", "summary is required (it is shown in the lesson index)")
	}
	if q := strings.TrimSpace(fm.Question); !strings.HasSuffix(q, "?") {
		bad("question", "question: every lesson opens with the question it answers, ending with ?")
	}
	if len(errs) > 0 {
		return nil, errs
	}
	html, pgs, heads, rerrs := renderLesson(file, body, bodyLine-1, fm.Presets)
	if len(rerrs) > 0 {
		return nil, rerrs
	}
	opening, _ := renderMarkdown(strings.TrimSpace(fm.Question))
	full := `<div class="lesson-question" data-testid="lesson-question">` + opening + "</div>\n" + html
	l := &Lesson{
		Slug: orderPrefixRE.ReplaceAllString(base, ""), Title: fm.Title, Order: fm.Order,
		Summary: fm.Summary, Question: strings.TrimSpace(fm.Question), Presets: fm.Presets,
		ExerciseIDs: fm.Exercises, Playgrounds: pgs, Headings: heads,
		Segments: splitSlots(full), Markdown: string(body), File: file,
		exercisesLine: 1 + lineOf(&doc, "exercises"),
	}
	var plain strings.Builder
	for _, seg := range l.Segments {
		plain.WriteString(seg.HTML)
		if seg.Exercise != "" {
			l.Inline = append(l.Inline, seg.Exercise)
		}
	}
	l.HTML = plain.String()
	return l, nil
}

// checkPlacements checks where a lesson puts its exercises in the text:
// each placed one is the lesson's own and placed once, a playground's
// prediction runs the very scenario the playground shows, and every
// prediction is placed, since a prediction at the end of a lesson comes
// after the text that explained its outcome.
func (c *Catalog) checkPlacements(l *Lesson) []error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, &LoadError{File: l.File, Line: l.exercisesLine, Msg: fmt.Sprintf(format, args...)})
	}
	placed := map[string]bool{}
	for _, id := range l.Inline {
		switch {
		case !slices.Contains(l.ExerciseIDs, id):
			bad("exercise %q is placed in the text but not listed in exercises", id)
		case placed[id]:
			bad("exercise %q is placed in the text twice", id)
		}
		placed[id] = true
	}
	for _, pg := range l.Playgrounds {
		if pg.Predict == "" {
			continue
		}
		ex := c.exercises[pg.Predict]
		if ex == nil || ex.Kind != KindPredict {
			bad("%s predicts with %q, which is not a predict exercise", pg.ID, pg.Predict)
			continue
		}
		if len(ex.spec.Params) > 0 {
			bad("%s predicts with %q, whose numbers change per variant: a playground's prediction needs one scenario for everyone", pg.ID, pg.Predict)
			continue
		}
		if err := samePlayground(pg, ex); err != nil {
			bad("%s predicts with %q, but %v", pg.ID, pg.Predict, err)
		}
	}
	for _, id := range l.ExerciseIDs {
		if ex := c.exercises[id]; ex != nil && ex.Kind == KindPredict && !placed[id] {
			bad("the prediction %q must come before the text that explains its outcome: place it with an exercise marker (```exercise, id: %s) or a playground's predict:", id, id)
		}
	}
	return errs
}

// samePlayground checks that a prediction runs its playground's scenario.
func samePlayground(pg Playground, ex *Exercise) error {
	a, err := pg.scenario()
	if err != nil {
		return err
	}
	env, err := ex.params(0)
	if err != nil {
		return err
	}
	b, err := ex.baseScenario(env)
	if err != nil {
		return err
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		return fmt.Errorf("its scenario is not the playground's (preset and set must match)")
	}
	return nil
}

// GateCaption is the caption of the playground a prediction opens, or "":
// it tells what the run shows, so a page only gets it with the solution.
func (c *Catalog) GateCaption(exerciseID string) string {
	for _, l := range c.lessons {
		for _, pg := range l.Playgrounds {
			if pg.Predict == exerciseID {
				return pg.Caption
			}
		}
	}
	return ""
}

// Lessons returns the lessons in teaching order.
func (c *Catalog) Lessons() []*Lesson { return c.lessons }

// Lesson returns the lesson with that slug.
func (c *Catalog) Lesson(slug string) (*Lesson, error) {
	l, ok := c.bySlug[slug]
	if !ok {
		return nil, fmt.Errorf("lesson %q: %w", slug, ErrUnknown)
	}
	return l, nil
}

// Exercise returns the exercise with that id.
func (c *Catalog) Exercise(id string) (*Exercise, error) {
	ex, ok := c.exercises[id]
	if !ok {
		return nil, fmt.Errorf("exercise %q: %w", id, ErrUnknown)
	}
	return ex, nil
}

// Exercises returns every exercise in lesson order.
func (c *Catalog) Exercises() []*Exercise {
	out := make([]*Exercise, len(c.order))
	for i, id := range c.order {
		out[i] = c.exercises[id]
	}
	return out
}

// LessonExercises returns a lesson's exercises in order.
func (c *Catalog) LessonExercises(l *Lesson) []*Exercise {
	out := make([]*Exercise, 0, len(l.ExerciseIDs))
	for _, id := range l.ExerciseIDs {
		out = append(out, c.exercises[id])
	}
	return out
}
