package lessons

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/leaselab/playground/engine"
)

// Playground is an embedded playground in a lesson: a preset, the controls
// the lesson wants the learner to touch, and optional starting changes.
//
// In Markdown it is a fenced block with the info string "playground",
// holding YAML:
//
//	```playground
//	preset: paused-holder
//	controls: [fencing, clients[client-1].renew_every]
//	set: {fencing: false}
//	caption: Run it with fencing off, then on.
//	expect: stale_writes_accepted >= 1
//	```
//
// controls and set use the field paths of engine.SetField. expect, if
// given, is what the lesson says the run shows, as a condition over the
// run's measures (the names an exercise goal may read); it is not shown on
// the page, but the catalog's self-check runs the playground and tests it,
// so the text cannot drift from what the engine does. The rendered
// page has, in its place, a <figure class="playground"> with data-preset,
// data-controls (a JSON list) and data-set (a JSON object) for the web layer
// to turn into a live playground.
type Playground struct {
	ID       string            `json:"id"` // playground-1, playground-2... in the lesson
	Preset   string            `json:"preset"`
	Title    string            `json:"title"` // the preset's title
	Controls []string          `json:"controls"`
	Set      map[string]string `json:"set,omitempty"`
	Caption  string            `json:"caption"`
	Expect   string            `json:"-"` // what the lesson claims the run shows
	// Predict names a predict exercise of the lesson whose scenario is
	// this playground's: the learner commits a prediction before the Run
	// button works, and the caption, which tells what the run shows, is
	// not in the page before the answer is earned (Catalog.GateCaption).
	Predict string `json:"predict,omitempty"`

	expect *formula
}

type playgroundSpec struct {
	Preset   string         `yaml:"preset"`
	Controls []string       `yaml:"controls"`
	Set      map[string]any `yaml:"set"`
	Caption  string         `yaml:"caption"`
	Expect   string         `yaml:"expect"`
	Predict  string         `yaml:"predict"`
}

// Command is the command line that runs the playground as the lesson sets
// it up, for readers without JavaScript and for the terminal.
func (pg Playground) Command() string {
	cmd := "playground run --preset " + pg.Preset
	for _, k := range sortedKeys(pg.Set) {
		if k == "fencing" && (pg.Set[k] == "true" || pg.Set[k] == "false") {
			cmd += " --fencing " + map[string]string{"true": "on", "false": "off"}[pg.Set[k]]
			continue
		}
		cmd += " --set '" + k + "=" + pg.Set[k] + "'"
	}
	return cmd
}

// parsePlayground reads and checks one marker: the preset must be one the
// lesson lists and the engine has, and every control and setting must be a
// field the engine accepts.
func parsePlayground(src string, lessonPresets []string) (Playground, error) {
	var spec playgroundSpec
	dec := yaml.NewDecoder(strings.NewReader(src))
	dec.KnownFields(true)
	if err := dec.Decode(&spec); err != nil {
		return Playground{}, fmt.Errorf("%s", strings.ReplaceAll(strings.TrimPrefix(err.Error(), "yaml: "), "\n", " "))
	}
	if spec.Preset == "" {
		return Playground{}, fmt.Errorf("preset is required")
	}
	if !slices.Contains(lessonPresets, spec.Preset) {
		return Playground{}, fmt.Errorf("preset %q is not in the lesson's presets (front matter)", spec.Preset)
	}
	p, err := engine.LoadPreset(spec.Preset)
	if err != nil {
		return Playground{}, err
	}
	pg := Playground{Preset: spec.Preset, Title: p.Title, Controls: spec.Controls, Caption: spec.Caption, Predict: spec.Predict}
	if spec.Predict != "" && !idRE.MatchString(spec.Predict) {
		return Playground{}, fmt.Errorf("predict %q: give the id of a predict exercise of this lesson", spec.Predict)
	}
	sc := p.Scenario
	if len(spec.Set) > 0 {
		pg.Set = map[string]string{}
		for _, k := range sortedKeys(spec.Set) {
			v, err := fillValue(spec.Set[k], nil)
			if err != nil {
				return Playground{}, err
			}
			if sc, err = engine.SetField(sc, k, v); err != nil {
				return Playground{}, fmt.Errorf("set: %w", err)
			}
			pg.Set[k] = v
		}
		if _, err := engine.Prepare(sc); err != nil {
			return Playground{}, fmt.Errorf("set: %w", err)
		}
	}
	for _, c := range spec.Controls {
		if err := checkPath(sc, c); err != nil {
			return Playground{}, fmt.Errorf("control %q: %w", c, err)
		}
	}
	if spec.Expect != "" {
		f, err := compileCond(spec.Expect, metricList)
		if err != nil {
			return Playground{}, fmt.Errorf("expect: %w", err)
		}
		pg.Expect, pg.expect = spec.Expect, f
	}
	return pg, nil
}

// scenario is the playground as the lesson sets it up: the preset with the
// marker's settings.
func (pg Playground) scenario() (engine.Scenario, error) {
	p, err := engine.LoadPreset(pg.Preset)
	if err != nil {
		return engine.Scenario{}, err
	}
	sc := p.Scenario
	for _, k := range sortedKeys(pg.Set) {
		if sc, err = engine.SetField(sc, k, pg.Set[k]); err != nil {
			return sc, fmt.Errorf("set %s: %w", k, err)
		}
	}
	return sc, nil
}

// CheckExpect runs the playground and tests its expect condition. It
// returns the run, and an error saying what was measured when the run does
// not show what the lesson claims. A playground without expect only has to
// run.
func (pg Playground) CheckExpect(ctx context.Context) (*Timeline, error) {
	sc, err := pg.scenario()
	if err != nil {
		return nil, err
	}
	tl, m, err := prepareAndExecute(ctx, pg.Preset, sc)
	if err != nil || pg.expect == nil {
		return tl, err
	}
	ok, err := pg.expect.truth(m)
	if err != nil {
		return tl, err
	}
	if !ok {
		return tl, fmt.Errorf("the lesson expects %s, but the run measured %s: %s", pg.Expect, describeMeasures(pg.expect, m), tl.Verdict)
	}
	return tl, nil
}

// checkPath reports whether path names a field a learner can set on sc. It
// tries a few plausible values (a duration, a boolean, a number, the
// backend name) and accepts the path if one of them gives a valid scenario.
// Doing this through the engine, rather than with a list kept here, means a
// field the engine adds later is accepted without a change in this package.
func checkPath(sc engine.Scenario, path string) error {
	var first error
	for _, v := range []string{"10s", "true", "1", "0.5", `"raft"`, `"retry"`} {
		next, err := engine.SetField(sc, path, v)
		if err == nil {
			if _, err = engine.Prepare(next); err == nil {
				return nil
			}
		}
		if first == nil {
			first = err
		}
	}
	return first
}
