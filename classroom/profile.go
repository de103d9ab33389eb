package classroom

import (
	"net/mail"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds of a learner's optional identifiers: a student ID is what a
// registrar prints (letters, digits and a few separators), an email at
// most what RFC 5321 allows in a path.
const (
	MaxStudentIDLen = 64
	MaxEmailLen     = 254
)

// CleanProfile validates a joining learner's name, student ID and email,
// and returns them trimmed. The student ID and email are optional (empty
// stays empty); each error names its field and the rule.
func CleanProfile(p Profile) (Profile, error) {
	name, err := CleanLearnerName("name", p.Name)
	if err != nil {
		return p, err
	}
	id, err := CleanStudentID(p.StudentID)
	if err != nil {
		return p, err
	}
	email, err := CleanEmail(p.Email)
	if err != nil {
		return p, err
	}
	return Profile{Name: name, StudentID: id, Email: email}, nil
}

// CleanStudentID checks an optional student ID: at most MaxStudentIDLen
// characters, letters, digits and . - _ / : @ only, so that it survives a
// CSV import and looks like what the registrar prints.
func CleanStudentID(id string) (string, error) {
	if !utf8.ValidString(id) {
		return "", Errorf(EINVALID, "student_id: must be valid UTF-8 text")
	}
	id = strings.TrimSpace(id)
	if n := utf8.RuneCountInString(id); n > MaxStudentIDLen {
		return "", Errorf(EINVALID, "student_id: must be at most %d characters (it has %d)", MaxStudentIDLen, n)
	}
	for _, r := range id {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune(".-_/:@", r) {
			return "", Errorf(EINVALID, "student_id: may hold letters, digits and . - _ / : @ only, not %q", r)
		}
	}
	// A spreadsheet would run "-0042" or "@x" as a formula, so the CSVs
	// write such a cell with a ' before it, which no gradebook import
	// matches to the student: refused here instead.
	if id != "" && strings.ContainsRune("-@", rune(id[0])) {
		return "", Errorf(EINVALID, "student_id: may not start with %q (a spreadsheet would read it as a formula, and the gradebook could not match it)", id[0])
	}
	return id, nil
}

// CleanEmail checks an optional email address: one bare address
// (someone@example.edu, no display name), at most MaxEmailLen bytes.
func CleanEmail(email string) (string, error) {
	email = strings.TrimSpace(email)
	if email == "" {
		return "", nil
	}
	if len(email) > MaxEmailLen {
		return "", Errorf(EINVALID, "email: must be at most %d bytes (it has %d)", MaxEmailLen, len(email))
	}
	a, err := mail.ParseAddress(email)
	if err != nil || a.Address != email || a.Name != "" || !strings.Contains(email[strings.LastIndexByte(email, '@')+1:], ".") {
		return "", Errorf(EINVALID, "email: must be one address such as someone@example.edu")
	}
	// As for a student ID: the CSVs write "-ada@x.edu" as '-ada@x.edu, so
	// that a spreadsheet does not run it, and an import by email matches
	// that to nobody.
	if strings.ContainsRune("-+=", rune(email[0])) {
		return "", Errorf(EINVALID, "email: may not start with %q (a spreadsheet would read it as a formula, and the gradebook could not match it)", email[0])
	}
	return email, nil
}
