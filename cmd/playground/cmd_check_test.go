package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCLIEnv(t *testing.T, env map[string]string, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), args, func(k string) string { return env[k] }, &out, &errOut)
	return out.String(), err
}

func isUsage(err error) bool {
	var ue *usageError
	return errors.As(err, &ue)
}

func TestCheckPrintsTheVerdictAsJSON(t *testing.T) {
	out, err := runCLIEnv(t, nil, "check", "--exercise", "outlive-lease", "--answer", "50 runs", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Correct     bool    `json:"correct"`
		Feedback    string  `json:"feedback"`
		FormatError *string `json:"format_error"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if !res.Correct || res.Feedback == "" || res.FormatError == nil || *res.FormatError != "" {
		t.Errorf("check 50 runs = %s", out)
	}

	out, err = runCLIEnv(t, nil, "check", "--exercise", "outlive-lease", "--answer", "forty", "--format", "json")
	if err != nil {
		t.Fatalf("an unreadable answer is a result, not an error: %v", err)
	}
	if !strings.Contains(out, `"correct": false`) || !strings.Contains(out, `"format_error": "Type the number in digits`) {
		t.Errorf("check forty = %s", out)
	}
}

func TestCheckTextShowsTheTimelineOfAPrediction(t *testing.T) {
	out, err := runCLIEnv(t, nil, "check", "--exercise", "nightly-total-predict", "--answer", "Rs 42,000")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"CORRECT: Right: Rs 42,000.", "accepted A's write of 42,000", "Solution:"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestSolutionOnRequest(t *testing.T) {
	out, err := runCLIEnv(t, nil, "check", "--exercise", "crash-wait", "--solution", "--variant", "0")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "15-minute") || !strings.Contains(out, "**45**") {
		t.Errorf("the solution for variant 0 does not work the notes' numbers:\n%s", out)
	}
}

func TestCheckBadInputExitsTwo(t *testing.T) {
	for _, args := range [][]string{
		{"check", "--answer", "50"},
		{"check", "--exercise", "no-such", "--answer", "50"},
		{"check", "--exercise", "outlive-lease", "--answer", "50", "--variant", "-3"},
		{"check", "--exercise", "outlive-lease", "--answer", strings.Repeat("9", 2001)},
		{"check", "--exercise", "outlive-lease", "--answer", "50", "--format", "xml"},
		{"exercises", "--format", "xml"},
	} {
		if _, err := runCLIEnv(t, nil, args...); !isUsage(err) {
			t.Errorf("%q: %v, want a usage error (exit 2)", args, err)
		}
	}
}

func TestLessonsFolderFromFlagOrEnvironment(t *testing.T) {
	dir := t.TempDir()
	lesson := "---\ntitle: T\norder: 1\nsummary: S\nquestion: Q?\nexercises: [only]\n---\nText.\n"
	ex := "id: only\nkind: number\ntitle: Only\nprompt: Two?\nanswer: \"2\"\nsolution: Two.\n"
	os.WriteFile(filepath.Join(dir, "01-t.md"), []byte(lesson), 0o644)
	os.WriteFile(filepath.Join(dir, "only.yaml"), []byte(ex), 0o644)

	out, err := runCLIEnv(t, map[string]string{"PLAYGROUND_LESSONS": dir}, "exercises")
	if err != nil || !strings.Contains(out, "only") || strings.Contains(out, "outlive-lease") {
		t.Errorf("PLAYGROUND_LESSONS was not used: %v\n%s", err, out)
	}
	out, err = runCLIEnv(t, nil, "check", "--lessons", dir, "--exercise", "only", "--answer", "2")
	if err != nil || !strings.HasPrefix(out, "CORRECT") {
		t.Errorf("--lessons was not used: %v\n%s", err, out)
	}

	os.WriteFile(filepath.Join(dir, "only.yaml"), []byte(strings.Replace(ex, "kind: number", "kind: numbr", 1)), 0o644)
	_, err = runCLIEnv(t, nil, "exercises", "--lessons", dir)
	if !isUsage(err) || !strings.Contains(err.Error(), "only.yaml:2:") {
		t.Errorf("a broken folder: %v, want a usage error naming only.yaml:2", err)
	}
}

func TestExercisesVerifyPasses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the engine on every predict and scenario exercise")
	}
	out, err := runCLIEnv(t, nil, "exercises", "--verify")
	if err != nil {
		t.Fatalf("exercises --verify: %v\n%s", err, out)
	}
	if !strings.Contains(out, " 0 problems") {
		t.Errorf("unexpected report:\n%s", out)
	}
	var n int
	if _, err := fmt.Sscanf(out[strings.Index(out, "at least"):], "at least %d variants", &n); err != nil || n < 200 {
		t.Errorf("verify checked each exercise on %d variants, want at least 200: %v\n%s", n, err, out)
	}
}
