package main

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// TestDurationFlagsSayHowToWriteOne: a duration flag given something else
// names the flag and how to write a duration (the flag package alone says
// "parse error"), and one given a duration reads it.
func TestDurationFlagsSayHowToWriteOne(t *testing.T) {
	const how = "is not a duration: write it like 30s, 500ms or 1m30s"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--addr", "127.0.0.1:0", "--run-timeout", "xyz"}, `flag -run-timeout: "xyz" ` + how},
		{[]string{"loadtest", "--arrival", "10"}, `flag -arrival: "10" ` + how},
		{[]string{"loadtest", "--timeout", "soon"}, `flag -timeout: "soon" ` + how},
		{[]string{"lti", "registration-url", "--url", "http://127.0.0.1", "--valid", "a week"}, `flag -valid: "a week" ` + how},
		// A duration is read, and held to its flag's limits.
		{[]string{"loadtest", "--arrival", "2h"}, "--arrival: must be between 0s and 1h, not 2h0m0s"},
	} {
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		err := run(ctx, tc.args, func(string) string { return "" }, io.Discard, io.Discard)
		cancel()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want it to contain %q", tc.args, err, tc.want)
		}
	}
}
