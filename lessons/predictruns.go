package lessons

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/leaselab/playground/engine"
)

// PredictionScenario is the scenario a prediction asks about, for a
// variant: what its locked playground runs once the learner has
// predicted. An error for an exercise that is not a prediction.
func (ex *Exercise) PredictionScenario(variant int) (engine.Scenario, error) {
	if ex.Kind != KindPredict || ex.spec.Scenario == nil {
		return engine.Scenario{}, fmt.Errorf("%s is a %s exercise, not a prediction", ex.ID, ex.Kind)
	}
	env, err := ex.params(variant)
	if err != nil {
		return engine.Scenario{}, err
	}
	return ex.baseScenario(env)
}

// PredictionsRunBy returns the predictions (ids, in lesson order) whose
// scenario, for variant, is sc: the same run, whatever its title and
// words, with the defaults filled in. A learner who ran it may have seen
// what they are asked to predict. nil when sc is none of them or cannot
// run. The predictions' scenarios are worked out once per variant (a
// class has one per learner) and kept.
func (c *Catalog) PredictionsRunBy(sc engine.Scenario, variant int) []string {
	key, ok := runKey(sc)
	if !ok {
		return nil
	}
	return c.runs.of(c, variant)[key]
}

// predictionRuns keeps, per variant, which predictions each run key
// shows. It is emptied when full, as variants beyond a few classes' are
// rare.
type predictionRuns struct {
	mu        sync.Mutex
	byVariant map[int]map[string][]string
}

// predictionRunVariants bounds the variants kept.
const predictionRunVariants = 2048

func (r *predictionRuns) of(c *Catalog, variant int) map[string][]string {
	r.mu.Lock()
	keys, ok := r.byVariant[variant]
	r.mu.Unlock()
	if ok {
		return keys
	}
	keys = map[string][]string{}
	for _, ex := range c.Exercises() {
		if ex.Kind != KindPredict {
			continue
		}
		own, err := ex.PredictionScenario(variant)
		if err != nil {
			continue
		}
		if k, ok := runKey(own); ok {
			keys[k] = append(keys[k], ex.ID)
		}
	}
	r.mu.Lock()
	if r.byVariant == nil || len(r.byVariant) >= predictionRunVariants {
		r.byVariant = map[int]map[string][]string{}
	}
	r.byVariant[variant] = keys
	r.mu.Unlock()
	return keys
}

// runKey is a scenario as a run sees it: normalised, without the words
// that do not change what happens (title, question, watch).
func runKey(sc engine.Scenario) (string, bool) {
	p, err := engine.Prepare(sc)
	if err != nil {
		return "", false
	}
	n := p.Scenario()
	n.Title, n.Question, n.Watch = "", "", ""
	b, err := json.Marshal(n)
	return string(b), err == nil
}
