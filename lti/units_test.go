package lti

import (
	"strings"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
)

func TestBackoff(t *testing.T) {
	want := []time.Duration{30 * time.Second, time.Minute, 2 * time.Minute, 4 * time.Minute}
	for i, w := range want {
		if got := Backoff(i + 1); got != w {
			t.Errorf("Backoff(%d) = %s, want %s", i+1, got, w)
		}
	}
	if got := Backoff(40); got != time.Hour {
		t.Errorf("Backoff(40) = %s, want the cap of an hour", got)
	}
}

func TestScoresURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://lms.example/li/7":                 "https://lms.example/li/7/scores",
		"https://lms.example/li/7/":                "https://lms.example/li/7/scores",
		"https://lms.example/mod/lti/li.php?id=7":  "https://lms.example/mod/lti/li.php/scores?id=7",
		"https://lms.example/api/lti/li/7?type=ex": "https://lms.example/api/lti/li/7/scores?type=ex",
	} {
		if got := scoresURL(in); got != want {
			t.Errorf("scoresURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestInstructorRoles(t *testing.T) {
	for roles, want := range map[string]bool{
		"http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor":                         true,
		"http://purl.imsglobal.org/vocab/lis/v2/institution/person#Administrator":              true,
		"http://purl.imsglobal.org/vocab/lis/v2/membership#Learner":                            false,
		"http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant":       false,
		"http://purl.imsglobal.org/vocab/lis/v2/membership#Learner Instructor-impostor#Mentor": false,
		// Canvas's roles for a learner of this course who teaches another.
		"http://purl.imsglobal.org/vocab/lis/v2/institution/person#Instructor http://purl.imsglobal.org/vocab/lis/v2/membership#Learner": false,
		"urn:lti:instrole:ims/lis/Instructor urn:lti:role:ims/lis/Learner":                                                               false,
		"urn:lti:role:ims/lis/Instructor": true,
		"Instructor":                      true,
	} {
		c := Claims{Roles: strings.Fields(roles)}
		if c.Instructor() != want {
			t.Errorf("Instructor(%q) = %v, want %v", roles, !want, want)
		}
	}
}

func TestCheckPlatform(t *testing.T) {
	good := classroom.LTIPlatform{Issuer: "https://moodle.example.edu", ClientID: "c", DeploymentIDs: []string{"1"},
		AuthURL: "https://moodle.example.edu/mod/lti/auth.php", TokenURL: "https://moodle.example.edu/mod/lti/token.php",
		JWKSURL: "https://moodle.example.edu/mod/lti/certs.php"}
	p, err := CheckPlatform(good)
	if err != nil || len(p.FrameOrigins) != 1 || p.FrameOrigins[0] != "https://moodle.example.edu" {
		t.Fatalf("CheckPlatform = %+v, %v; want the issuer's origin to frame the tool", p, err)
	}
	for _, tc := range []struct {
		change func(*classroom.LTIPlatform)
		field  string
	}{
		{func(p *classroom.LTIPlatform) { p.Issuer = "" }, "issuer"},
		{func(p *classroom.LTIPlatform) { p.AuthURL = "http://moodle.example.edu/auth" }, "auth-url"},
		{func(p *classroom.LTIPlatform) { p.JWKSURL = "ftp://x/y" }, "jwks-url"},
		{func(p *classroom.LTIPlatform) { p.ClientID = strings.Repeat("c", 256) }, "client-id"},
		{func(p *classroom.LTIPlatform) { p.DeploymentIDs = nil }, "deployment-id"},
		{func(p *classroom.LTIPlatform) { p.DeploymentIDs = []string{"a\nb"} }, "deployment-id"},
		{func(p *classroom.LTIPlatform) { p.FrameOrigins = []string{"https://x.example/path"} }, "frame-origin"},
		{func(p *classroom.LTIPlatform) { p.FrameOrigins = []string{"https://x.example; script-src *"} }, "frame-origin"},
	} {
		p := good
		p.DeploymentIDs = append([]string(nil), good.DeploymentIDs...)
		tc.change(&p)
		_, err := CheckPlatform(p)
		le, ok := err.(*Error)
		if !ok || le.Field != tc.field {
			t.Errorf("CheckPlatform(%+v) = %v, want an error naming %s", p, err, tc.field)
		}
	}
	if _, err := CheckPlatform(classroom.LTIPlatform{Issuer: "http://localhost:8080", ClientID: "c", DeploymentIDs: []string{"1"},
		AuthURL: "http://127.0.0.1:1/a", TokenURL: "http://127.0.0.1:1/t", JWKSURL: "http://127.0.0.1:1/j"}); err != nil {
		t.Errorf("a platform on localhost over http (a test's): %v", err)
	}
}
