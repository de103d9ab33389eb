package classroom

import "sort"

// MaxWrongAnswers is how many of the most common wrong answers the
// dashboard shows per exercise.
const MaxWrongAnswers = 5

// Dashboard is a class's progress as its teacher sees it.
type Dashboard struct {
	Class    *Class    `json:"class"`
	Learners []Learner `json:"learners"` // in joining order
	// Exercises are the exercises anyone attempted, sorted. The web layer
	// usually passes the catalog's order to the CSV writers instead.
	Exercises []string   `json:"exercises"`
	Progress  []Progress `json:"progress"` // by learner, then exercise
	// Wrong holds, per exercise, the most common graded wrong answers,
	// most learners first.
	Wrong map[string][]WrongAnswer `json:"wrong"`
}

// ExerciseStats sums up one exercise over a class.
type ExerciseStats struct {
	Exercise  string `json:"exercise"`
	Attempted int    `json:"attempted"` // learners with at least one try
	Correct   int    `json:"correct"`   // learners with a correct try
	Tries     int    `json:"tries"`     // all tries
}

// Stats returns per-exercise sums, in the order of exercises (d.Exercises
// when nil); an exercise nobody tried has zeros.
func (d *Dashboard) Stats(exercises []string) []ExerciseStats {
	if exercises == nil {
		exercises = d.Exercises
	}
	by := map[string]*ExerciseStats{}
	out := make([]ExerciseStats, len(exercises))
	for i, ex := range exercises {
		out[i].Exercise = ex
		by[ex] = &out[i]
	}
	for _, p := range d.Progress {
		s := by[p.Exercise]
		if s == nil {
			continue
		}
		s.Attempted++
		s.Tries += p.Tries
		if p.Correct {
			s.Correct++
		}
	}
	return out
}

// progressIndex maps learner and exercise to a progress row.
func (d *Dashboard) progressIndex() map[int64]map[string]*Progress {
	idx := map[int64]map[string]*Progress{}
	for i := range d.Progress {
		p := &d.Progress[i]
		if idx[p.LearnerID] == nil {
			idx[p.LearnerID] = map[string]*Progress{}
		}
		idx[p.LearnerID][p.Exercise] = p
	}
	return idx
}

// TopWrong keeps, per exercise, the n most common wrong answers, most
// learners first, then most attempts, then the answer for a stable order.
// Stores call it on every wrong answer they counted.
func TopWrong(all []WrongAnswer, n int) map[string][]WrongAnswer {
	sort.Slice(all, func(i, j int) bool {
		a, b := all[i], all[j]
		switch {
		case a.Exercise != b.Exercise:
			return a.Exercise < b.Exercise
		case a.Learners != b.Learners:
			return a.Learners > b.Learners
		case a.Attempts != b.Attempts:
			return a.Attempts > b.Attempts
		}
		return a.Answer < b.Answer
	})
	out := map[string][]WrongAnswer{}
	for _, w := range all {
		if len(out[w.Exercise]) < n {
			out[w.Exercise] = append(out[w.Exercise], w)
		}
	}
	return out
}
