package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/classroom/postgres"
	"github.com/leaselab/playground/classroom/sqlite"
	"github.com/leaselab/playground/classroom/storetest"
	"github.com/leaselab/playground/lti"
)

// TestLTICommand registers, lists and removes a platform and rotates the
// tool's key in a data folder that a running server holds.
func TestLTICommand(t *testing.T) {
	dir, srv := runningServerData(t)
	ctx := context.Background()
	add := []string{"lti", "add-platform", "--data", dir, "--issuer", "https://canvas.instructure.com", "--client-id", "10000000000001",
		"--deployment-id", "1:abc,2:def", "--auth-url", "https://sso.canvaslms.com/api/lti/authorize_redirect",
		"--token-url", "https://sso.canvaslms.com/login/oauth2/token", "--jwks-url", "https://sso.canvaslms.com/api/lti/security/jwks",
		"--frame-origin", "https://school.instructure.com"}
	out, _, err := runCLI(t, add...)
	if err != nil || !strings.Contains(out, "registered platform 1") {
		t.Fatalf("add-platform: %v\n%s", err, out)
	}
	// The server reads it at the next launch.
	ps, err := srv.LTIPlatforms(ctx)
	if err != nil || len(ps) != 1 || len(ps[0].DeploymentIDs) != 2 || ps[0].FrameOrigins[0] != "https://school.instructure.com" {
		t.Fatalf("the server sees %+v, %v", ps, err)
	}
	if _, _, err := runCLI(t, add...); classroom.ErrorCode(err) != classroom.ECONFLICT {
		t.Errorf("adding it twice: %v, want a conflict", err)
	}
	out, _, err = runCLI(t, "lti", "list", "--data", dir, "--format", "json")
	var listed []classroom.LTIPlatform
	if err != nil || json.Unmarshal([]byte(out), &listed) != nil || len(listed) != 1 || listed[0].ClientID != "10000000000001" {
		t.Fatalf("list: %v\n%s", err, out)
	}

	out, _, err = runCLI(t, "lti", "rotate-key", "--data", dir)
	if err != nil || !strings.Contains(out, "now signs with key") {
		t.Fatalf("rotate-key: %v %s", err, out)
	}
	out, _, _ = runCLI(t, "lti", "rotate-key", "--data", dir)
	kid := strings.Fields(strings.TrimPrefix(out, "the tool now signs with key "))[0]
	ks, err := srv.LTIKeys(ctx, time.Now().Add(-lti.KeyGrace))
	if err != nil || len(ks) != 2 || ks[0].KID != strings.TrimSuffix(kid, ";") {
		t.Errorf("keys after two rotations = %d, %v; want the new current key and the one it replaced", len(ks), err)
	}

	if out, _, err = runCLI(t, "lti", "remove", "--data", dir, "--id", "1"); err != nil || !strings.Contains(out, "removed platform 1") {
		t.Fatalf("remove: %v %s", err, out)
	}
	if _, _, err = runCLI(t, "lti", "remove", "--data", dir, "--id", "1"); classroom.ErrorCode(err) != classroom.ENOTFOUND {
		t.Errorf("removing it twice: %v", err)
	}
}

// TestLTIRegistrationURL prints a registration URL whose key the server
// on the same data folder accepts, for as long as --valid says.
func TestLTIRegistrationURL(t *testing.T) {
	dir, srv := runningServerData(t)
	ctx := context.Background()
	out, _, err := runCLI(t, "lti", "registration-url", "--data", dir, "--url", "https://play.example.edu/", "--valid", "2h")
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(strings.TrimSpace(out))
	if err != nil || u.Scheme+"://"+u.Host+u.Path != "https://play.example.edu/lti/register" || u.Query().Get("key") == "" {
		t.Fatalf("registration-url printed %q", out)
	}
	now := time.Now()
	clock := func() time.Time { return now }
	tool := lti.New(lti.Config{Store: srv, Now: clock})
	defer tool.Close()
	if err := tool.CheckRegistrationKey(ctx, u.Query().Get("key")); err != nil {
		t.Errorf("the server refuses the printed key: %v", err)
	}
	now = now.Add(2*time.Hour + time.Minute)
	if err := tool.CheckRegistrationKey(ctx, u.Query().Get("key")); err == nil || !strings.Contains(err.Error(), "expired") {
		t.Errorf("after --valid: %v, want expired", err)
	}
}

// runningServerData is a data folder that a running server holds open
// (and locked) while the commands work on it, and that server's store.
func runningServerData(t *testing.T) (string, classroom.LTIStore) {
	t.Helper()
	dir := t.TempDir()
	srv, err := sqlite.Open(context.Background(), dir, classroom.Options{PurgeEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return dir, srv
}

func TestLTICommandBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"lti"}, "give a subcommand"},
		{[]string{"lti", "frobnicate"}, "unknown subcommand"},
		{[]string{"lti", "remove"}, "--id:"},
		{[]string{"lti", "list", "--format", "xml"}, "--format:"},
		{[]string{"lti", "registration-url"}, "--url: give where"},
		{[]string{"lti", "registration-url", "--url", "https://play.example.edu/lti"}, "--url: give the server's address without a path"},
		{[]string{"lti", "registration-url", "--url", "play.example.edu"}, "--url: must be an http(s) URL"},
		{[]string{"lti", "registration-url", "--url", "https://play.example.edu", "--valid", "720h"}, "--valid: must be from 1s to"},
		{[]string{"lti", "add-platform", "--client-id", "c", "--deployment-id", "d", "--auth-url", "https://a.example/x", "--token-url", "https://a.example/t", "--jwks-url", "https://a.example/j"}, "--issuer: is required"},
		{[]string{"lti", "add-platform", "--issuer", "http://lms.example.edu", "--client-id", "c", "--deployment-id", "d", "--auth-url", "https://a.example/x", "--token-url", "https://a.example/t", "--jwks-url", "https://a.example/j"}, "--issuer: must be https"},
		{[]string{"lti", "add-platform", "--issuer", "https://lms.example.edu", "--client-id", "c", "--auth-url", "https://a.example/x", "--token-url", "https://a.example/t", "--jwks-url", "https://a.example/j"}, "--deployment-id:"},
		{[]string{"lti", "add-platform", "--issuer", "https://lms.example.edu", "--client-id", "c", "--deployment-id", "d", "--auth-url", "https://a.example/x", "--token-url", "https://a.example/t", "--jwks-url", "https://a.example/j", "--frame-origin", "https://a.example/path"}, "--frame-origin: must be an origin"},
	} {
		_, _, err := runCLI(t, append(tc.args, "--data", dir)...)
		var ue *usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want a usage error with %q", tc.args, err, tc.want)
		}
	}
}

// TestLTICommandPostgres registers a platform in PostgreSQL through
// DATABASE_URL, where every replica reads it.
func TestLTICommandPostgres(t *testing.T) {
	if os.Getenv(storetest.EnvPostgres) == "" {
		t.Skip("set " + storetest.EnvPostgres + " to run against PostgreSQL")
	}
	url := storetest.PostgresSchema(t, "clitest_")
	getenv := func(k string) string {
		if k == "DATABASE_URL" {
			return url
		}
		return ""
	}
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"lti", "add-platform", "--issuer", "https://moodle.example.edu", "--client-id", "c1",
		"--deployment-id", "1", "--auth-url", "https://moodle.example.edu/mod/lti/auth.php",
		"--token-url", "https://moodle.example.edu/mod/lti/token.php", "--jwks-url", "https://moodle.example.edu/mod/lti/certs.php"}, getenv, &out, &errb)
	if err != nil {
		t.Fatalf("add-platform on PostgreSQL: %v %s", err, errb.String())
	}
	st, err := postgres.Open(context.Background(), url, classroom.Options{PurgeEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ps, err := st.LTIPlatforms(context.Background())
	if err != nil || len(ps) != 1 || ps[0].Issuer != "https://moodle.example.edu" {
		t.Fatalf("a replica sees %+v, %v", ps, err)
	}
}
