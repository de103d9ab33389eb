package classroom

import "context"

// ClassInfo is one class as the operator's listing shows it.
type ClassInfo struct {
	Class
	// Learners is how many have joined it.
	Learners int
	// Creator is the address it was made from ("" when unknown).
	Creator string
}

// Operator is what the server's operator may do to any class without its
// teacher key: the `playground classes` command. Both stores implement it
// beside Store.
type Operator interface {
	// ListClasses returns every class, the newest first.
	ListClasses(ctx context.Context) ([]ClassInfo, error)
	// DeleteClass deletes the class with this join code now, with its
	// learners, attempts and progress; ENOTFOUND if there is none.
	DeleteClass(ctx context.Context, code string) error
	// ArchiveClass archives the class with this join code, as its teacher
	// would: it takes no more joins or answers and is deleted after the
	// grace period, and its teacher may still export or restore it.
	ArchiveClass(ctx context.Context, code string) (*Class, error)
}
