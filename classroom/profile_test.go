package classroom

import (
	"strings"
	"testing"
)

func TestCleanProfile(t *testing.T) {
	got, err := CleanProfile(Profile{Name: " Ada ", StudentID: " s-1234/5 ", Email: " ada@uni.example.edu "})
	if err != nil || got != (Profile{Name: "Ada", StudentID: "s-1234/5", Email: "ada@uni.example.edu"}) {
		t.Fatalf("CleanProfile = %+v, %v", got, err)
	}
	if got, err := CleanProfile(Profile{Name: "Bo"}); err != nil || got.StudentID != "" || got.Email != "" {
		t.Fatalf("optional fields: %+v, %v", got, err)
	}
	bad := []struct {
		p     Profile
		field string
	}{
		{Profile{Name: "Ada", StudentID: strings.Repeat("1", MaxStudentIDLen+1)}, "student_id: must be at most 64"},
		{Profile{Name: "Ada", StudentID: "12,34"}, "student_id: may hold"},
		{Profile{Name: "Ada", StudentID: "12\n34"}, "student_id: may hold"},
		// The CSVs would write these as '-0042, which no import matches.
		{Profile{Name: "Ada", StudentID: "-0042"}, "student_id: may not start with '-'"},
		{Profile{Name: "Ada", StudentID: "@ada"}, "student_id: may not start with '@'"},
		{Profile{Name: "Ada", Email: "not an email"}, "email: must be one address"},
		{Profile{Name: "Ada", Email: "Ada <ada@x.edu>"}, "email: must be one address"},
		{Profile{Name: "Ada", Email: "ada@localhost"}, "email: must be one address"},
		{Profile{Name: "Ada", Email: strings.Repeat("a", 250) + "@x.edu"}, "email: must be at most 254"},
		// Written as '-ada@x.edu and '=ada@x.edu, which Moodle's import
		// by email matches to nobody.
		{Profile{Name: "Ada", Email: "-ada@x.edu"}, "email: may not start with '-'"},
		{Profile{Name: "Ada", Email: "=ada@x.edu"}, "email: may not start with '='"},
		{Profile{Name: "Ada", Email: "+ada@x.edu"}, "email: may not start with '+'"},
		{Profile{Name: "", Email: "ada@x.edu"}, "name:"},
	}
	for _, b := range bad {
		_, err := CleanProfile(b.p)
		if ErrorCode(err) != EINVALID || !strings.HasPrefix(ErrorMessage(err), b.field) {
			t.Errorf("CleanProfile(%+v) = %v, want EINVALID starting %q", b.p, err, b.field)
		}
	}
}
