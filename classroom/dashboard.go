package classroom

// Dashboard is a class's progress as its teacher sees it.
type Dashboard struct {
	Class    *Class    `json:"class"`
	Learners []Learner `json:"learners"` // in joining order
	// Exercises are the exercises anyone attempted, sorted. The web layer
	// usually passes the catalog's order to the CSV writers instead.
	Exercises []string   `json:"exercises"`
	Progress  []Progress `json:"progress"` // by learner, then exercise
	// Mistakes are the class's wrong answers grouped by misconception
	// (see Store.Mistakes).
	Mistakes []MistakeGroup `json:"mistakes"`
	// Answers are the open answers, for the teacher to read and score
	// (see Store.Answers).
	Answers []TextAnswer `json:"answers"`
}

// ExerciseStats sums up one exercise over a class.
type ExerciseStats struct {
	Exercise  string `json:"exercise"`
	Attempted int    `json:"attempted"` // learners with at least one try
	Correct   int    `json:"correct"`   // learners who solved it (Progress.Done)
	Tries     int    `json:"tries"`     // all tries
	GaveUp    int    `json:"gave_up"`   // learners who asked to be shown the answer
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
		if p.Tries > 0 {
			s.Attempted++
		}
		if p.GaveUp {
			s.GaveUp++
		}
		s.Tries += p.Tries
		if p.Done() {
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
