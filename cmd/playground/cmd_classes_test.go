package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/classroom/sqlite"
)

// TestClassesCommand: the operator lists the store's classes (with their
// learners and the address they were made from), archives one and deletes
// another by code, and is told plainly about an unknown code or action.
func TestClassesCommand(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := sqlite.Open(ctx, dir, classroom.Options{})
	if err != nil {
		t.Fatal(err)
	}
	kept, err := st.CreateClass(classroom.WithCreator(ctx, "203.0.113.9"), "Kept class")
	if err != nil {
		t.Fatal(err)
	}
	gone, err := st.CreateClass(ctx, "Spam")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Join(ctx, kept.Class.Code, "Ana"); err != nil {
		t.Fatal(err)
	}
	// The server is still running: the command works beside it.
	defer st.Close()

	cmd := func(args ...string) (string, error) {
		var out, errOut bytes.Buffer
		err := run(ctx, append([]string{"classes", "--data", dir}, args...), func(string) string { return "" }, &out, &errOut)
		return out.String() + errOut.String(), err
	}
	out, err := cmd("list")
	if err != nil || !strings.Contains(out, kept.Class.Code) || !strings.Contains(out, "203.0.113.9") || !strings.Contains(out, "2 classes") {
		t.Fatalf("list: %v\n%s", err, out)
	}
	if out, err = cmd("archive", kept.Class.Code); err != nil || !strings.Contains(out, "archived class "+kept.Class.Code) {
		t.Fatalf("archive: %v %s", err, out)
	}
	if out, err = cmd("delete", strings.ToLower(gone.Class.Code)); err != nil || !strings.Contains(out, "deleted class "+gone.Class.Code) {
		t.Fatalf("delete: %v %s", err, out)
	}
	if _, err := st.Teacher(ctx, gone.Class.Code, gone.TeacherKey); classroom.ErrorCode(err) != classroom.ENOTFOUND {
		t.Errorf("the deleted class: %v", err)
	}
	c, err := st.Teacher(ctx, kept.Class.Code, kept.TeacherKey)
	if err != nil || c.ArchivedAt.IsZero() {
		t.Errorf("the archived class: %+v %v", c, err)
	}
	if out, err = cmd("list"); err != nil || strings.Contains(out, gone.Class.Code) || !strings.Contains(out, "archived") {
		t.Errorf("list after: %v\n%s", err, out)
	}
	for _, bad := range [][]string{{"delete", "ZZZZZZZZ"}, {"purge"}, {"delete"}, {}} {
		if _, err := cmd(bad...); err == nil {
			t.Errorf("classes %v: no error", bad)
		}
	}
}
