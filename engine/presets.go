package engine

import (
	"embed"
	"fmt"
	"strings"
)

//go:embed presets/*.json
var presetFiles embed.FS

// presetOrder is the order presets are listed in: the healthy picture,
// then from the simplest failure to the designs people argue about.
var presetOrder = []string{
	"baseline",
	"paused-holder",
	"renew-more-often",
	"check-then-write",
	"delayed-write",
	"nightly-total",
	"crashed-holder",
	"long-job",
	"clock-jump",
	"lock-server-down",
	"restart-forgets",
	"async-failover",
	"raft-failover",
	"redlock-clock-jump",
	"etcd-revision-token",
	"etcd-txn-guard",
	"etcd-leader-change",
	"chubby-lock-delay",
	"zookeeper-session-expiry",
	"lease-read-stale",
	"follower-read-stale",
	"raft-disk-loss",
	"ambiguous-commit",
	"sms-reminder",
	"ride-claim",
	"seat-hold",
}

// Preset is a named scenario that ships with the project. Scenario is the
// file as written (what a share link or the form starts from); Prepared is
// the same scenario validated, ready to run. Question asks what to look
// at and gives nothing away, so it can be shown before a run; Watch tells
// what happens and what fixes it, for after one.
type Preset struct {
	Name     string   `json:"name"`
	Title    string   `json:"title"`
	Question string   `json:"question"`
	Watch    string   `json:"watch"`
	Scenario Scenario `json:"scenario"`

	prepared *Prepared
}

// Prepared returns the preset validated, ready to run.
func (p Preset) Prepared() *Prepared { return p.prepared }

// Presets lists every preset, in teaching order. Each call returns fresh
// copies that the caller may change.
func Presets() []Preset {
	out := make([]Preset, 0, len(presetOrder))
	for _, name := range presetOrder {
		p, err := LoadPreset(name)
		if err != nil {
			panic(err) // the embedded files are tested; a bad one is a build defect
		}
		out = append(out, p)
	}
	return out
}

// PresetNames lists the preset names in order.
func PresetNames() []string { return append([]string(nil), presetOrder...) }

// LoadPreset returns the named preset, validated.
func LoadPreset(name string) (Preset, error) {
	known := false
	for _, n := range presetOrder {
		known = known || n == name
	}
	if !known {
		return Preset{}, fieldErr("preset", "unknown preset %q: use one of %s", name, strings.Join(presetOrder, ", "))
	}
	data, err := presetFiles.ReadFile("presets/" + name + ".json")
	if err != nil {
		return Preset{}, fmt.Errorf("preset %s: %w", name, err)
	}
	sc, err := DecodeScenario(data)
	if err != nil {
		return Preset{}, fmt.Errorf("preset %s: %w", name, err)
	}
	prepared, err := Prepare(sc)
	if err != nil {
		return Preset{}, fmt.Errorf("preset %s: %w", name, err)
	}
	return Preset{Name: name, Title: sc.Title, Question: sc.Question, Watch: sc.Watch, Scenario: sc, prepared: prepared}, nil
}
