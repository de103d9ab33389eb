package lessons

import "hash/fnv"

// VariantFor returns the variant a learner gets, from any stable key (a
// learner id, a class code and a name). It is never 0: variant 0 is the
// notes' own numbers, which a learner studying alone sees by default.
func VariantFor(key string) int {
	h := fnv.New32a()
	h.Write([]byte(key))
	return 1 + int(h.Sum32()%MaxVariant)
}
