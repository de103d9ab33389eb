package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/classroom/postgres"
	"github.com/leaselab/playground/classroom/sqlite"
	"github.com/leaselab/playground/classroom/store"
	"github.com/leaselab/playground/lti"
)

const ltiUsage = `Usage:
  playground lti add-platform --issuer URL --client-id ID --deployment-id ID
                 --auth-url URL --token-url URL --jwks-url URL [--frame-origin URL]...
  playground lti list [--format text|json]
  playground lti remove --id N
  playground lti rotate-key
  playground lti registration-url --url URL [--valid DURATION]

Each works on the server's database: the SQLite file in --data (the
server may be running), or PostgreSQL when DATABASE_URL is set.
`

// ltiCmd registers LMS platforms with the LTI tool and rotates its key.
func ltiCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fmt.Fprint(stderr, ltiUsage)
		return usagef("lti: give a subcommand: add-platform, list, remove, rotate-key or registration-url")
	}
	sub, args := args[0], args[1:]
	fs := flag.NewFlagSet("lti "+sub, flag.ContinueOnError)
	data := fs.String("data", envOr(getenv, "PLAYGROUND_DATA", store.DefaultDataDir), "`folder` of the classroom's SQLite file (env PLAYGROUND_DATA; unused with DATABASE_URL)")
	var p classroom.LTIPlatform
	var deployments, frames listFlag
	id := fs.Int64("id", 0, "the platform's ID, from playground lti list")
	format := fs.String("format", "text", "output format: text or json")
	toolURL := fs.String("url", "", "where platforms reach the server, e.g. https://play.example.edu")
	valid := duration(fs, "valid", lti.DefaultRegistrationValidity, "how long the registration URL works (at most a week)")
	switch sub {
	case "add-platform":
		fs.StringVar(&p.Issuer, "issuer", "", "the platform's issuer (iss), e.g. https://canvas.instructure.com")
		fs.StringVar(&p.ClientID, "client-id", "", "the client ID the platform gave the tool")
		fs.Var(&deployments, "deployment-id", "a deployment ID (repeat, or separate with commas)")
		fs.StringVar(&p.AuthURL, "auth-url", "", "the platform's OIDC authorization URL")
		fs.StringVar(&p.TokenURL, "token-url", "", "the platform's OAuth 2 token URL")
		fs.StringVar(&p.JWKSURL, "jwks-url", "", "the platform's public keys (JWKS) URL")
		fs.Var(&frames, "frame-origin", "an origin that frames the tool's pages (repeat; default: the issuer's and the auth URL's)")
	case "list", "remove", "rotate-key", "registration-url":
	default:
		fmt.Fprint(stderr, ltiUsage)
		return usagef("lti: unknown subcommand %q", sub)
	}
	if help, err := parseFlags(fs, args, stderr); help || err != nil {
		return err
	}
	if sub == "list" && *format != "text" && *format != "json" {
		return usagef("--format: must be text or json, not %q", *format)
	}
	if sub == "remove" && *id <= 0 {
		return usagef("--id: give the platform's ID, from playground lti list")
	}
	if sub == "registration-url" {
		if err := registrationBase(*toolURL); err != nil {
			return err
		}
		if *valid < time.Second || *valid > lti.MaxRegistrationValidity {
			return usagef("--valid: must be from 1s to %s, not %s", lti.MaxRegistrationValidity, *valid)
		}
	}
	if sub == "add-platform" {
		p.DeploymentIDs, p.FrameOrigins = deployments, frames
		var err error
		if p, err = lti.CheckPlatform(p); err != nil {
			var le *lti.Error
			if errors.As(err, &le) {
				return usagef("--%s: %s", le.Field, le.Msg)
			}
			return err
		}
	}
	st, closeStore, err := openLTIStore(ctx, getenv("DATABASE_URL"), *data)
	if err != nil {
		return err
	}
	defer closeStore()
	switch sub {
	case "add-platform":
		got, err := st.AddLTIPlatform(ctx, p)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "registered platform %d: %s (client ID %s), framing allowed from %s\n", got.ID, got.Issuer, got.ClientID, strings.Join(got.FrameOrigins, " "))
		fmt.Fprintln(stdout, "give the platform the tool's URLs: /lti/login (login), /lti/launch (redirect), /lti/jwks (keys); see docs/lti.md")
	case "list":
		ps, err := st.LTIPlatforms(ctx)
		if err != nil {
			return err
		}
		if *format == "json" {
			return writeJSON(stdout, ps)
		}
		if len(ps) == 0 {
			fmt.Fprintln(stdout, "no platforms registered: see playground lti add-platform")
		}
		for _, p := range ps {
			fmt.Fprintf(stdout, "%d\t%s\tclient %s\tdeployments %s\n\tauth %s\n\ttoken %s\n\tjwks %s\n\tframes %s\n",
				p.ID, p.Issuer, p.ClientID, strings.Join(p.DeploymentIDs, ","), p.AuthURL, p.TokenURL, p.JWKSURL, strings.Join(p.FrameOrigins, " "))
		}
	case "remove":
		if err := st.RemoveLTIPlatform(ctx, *id); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "removed platform %d\n", *id)
	case "rotate-key":
		kid, err := lti.RotateKey(ctx, st)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "the tool now signs with key %s; the previous key stays in /lti/jwks for %s\n", kid, lti.KeyGrace)
	case "registration-url":
		tool := lti.New(lti.Config{Store: st})
		defer tool.Close()
		key, err := tool.RegistrationKey(ctx, *valid)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s/lti/register?key=%s\n", strings.TrimSuffix(*toolURL, "/"), url.QueryEscape(key))
		fmt.Fprintf(stderr, "paste it into the platform's dynamic registration (Moodle: Site administration > Plugins > Manage tools > Tool URL; Canvas: Developer Keys > + Developer Key > LTI Registration) within %s; anyone who has it can register a platform until then\n", *valid)
	}
	return nil
}

// registrationBase checks --url of registration-url: the server's own
// address as platforms reach it, without a path.
func registrationBase(s string) error {
	u, err := url.Parse(s)
	switch {
	case s == "":
		return usagef("--url: give where platforms reach the server, e.g. https://play.example.edu")
	case err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http"):
		return usagef("--url: must be an http(s) URL such as https://play.example.edu, not %q", s)
	case strings.Trim(u.Path, "/") != "" || u.RawQuery != "":
		return usagef("--url: give the server's address without a path or query, not %q", s)
	}
	return nil
}

// openLTIStore opens the server's database for a command. The SQLite
// file is opened without the data folder's lock, which keeps a second
// server out: a command's few writes take turns with the running
// server's through SQLite's own locking.
func openLTIStore(ctx context.Context, databaseURL, dir string) (classroom.LTIStore, func() error, error) {
	opts := classroom.Options{PurgeEvery: -1}
	if databaseURL != "" {
		if !strings.HasPrefix(databaseURL, "postgres://") && !strings.HasPrefix(databaseURL, "postgresql://") {
			return nil, nil, usagef("DATABASE_URL: must start with postgres:// (leave it empty for the SQLite file in the data folder)")
		}
		s, err := postgres.Open(ctx, databaseURL, opts)
		if err != nil {
			return nil, nil, fmt.Errorf("DATABASE_URL: %w", err)
		}
		return s, s.Close, nil
	}
	s, err := sqlite.OpenFile(ctx, filepath.Join(dir, sqlite.FileName), opts)
	if err != nil {
		return nil, nil, fmt.Errorf("--data %s: %w", dir, err)
	}
	return s, s.Close, nil
}

func envOr(getenv func(string) string, name, def string) string {
	if v := getenv(name); v != "" {
		return v
	}
	return def
}

// listFlag is a repeatable flag whose values may also be separated by
// commas.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}
