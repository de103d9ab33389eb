package lessons

import (
	"strings"
)

// ForLearner is r as a learner's page may read it: the options its Read
// names by their served ids (PublicOptionID), as the page showed them,
// and no Mistake that names an option by its file key ("option-e",
// "missed-b-d"). A kept attempt holds the file keys, which group a
// class's answers for the teacher; a learner who read them would learn
// which keys are right ("missed-b-d" names the right options left out)
// and, since the right key is the same letter in most files, guess.
func (ex *Exercise) ForLearner(r Result) Result {
	if r.Read != "" && len(ex.options) > 0 {
		parts := strings.Split(r.Read, ", ")
		for i, p := range parts {
			if k, ok := strings.CutPrefix(p, OptionIDPrefix); ok && ex.option(k) != nil {
				parts[i] = ex.PublicOptionID(k)
			}
		}
		r.Read = strings.Join(parts, ", ")
	}
	if strings.HasPrefix(r.Mistake, OptionIDPrefix) || strings.HasPrefix(r.Mistake, "missed-") {
		r.Mistake = ""
	}
	return r
}
