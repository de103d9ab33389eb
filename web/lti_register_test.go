package web_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/lti"
	"github.com/leaselab/playground/lti/ltitest"
)

// TestLTIDynamicRegistration: an administrator pastes the registration
// URL into the platform, which opens it with its OpenID configuration
// and a registration token; the page shows the platform, the
// administrator confirms, the tool registers itself with the tool's own
// URLs, the platform is recorded, and a course on it launches. Without
// the server's key nothing is fetched.
func TestLTIDynamicRegistration(t *testing.T) {
	eachLTIStore(t, func(t *testing.T, kind string) {
		e := startLTI(t, kind)
		// A second platform, which the tool does not know yet.
		plat := ltitest.New(t, e.clock.Now)
		plat.ToolJWKS = e.url + "/lti/jwks"
		admin := newPerson(t, e.url)
		q := url.Values{"openid_configuration": {plat.ConfigURL()}, "registration_token": {ltitest.RegistrationToken}}

		// No key, or one this tool did not sign: refused, and the
		// platform's configuration is never read.
		a := admin.get("/lti/register?" + q.Encode())
		wantStatus(t, a, http.StatusUnauthorized, "a registration without a key")
		if refusedCheck(a) != "key" || !strings.Contains(a.body, "registration-url") {
			t.Errorf("refusal without a key names %q: %.300s", refusedCheck(a), a.body)
		}
		q.Set("key", plat.Sign(plat.ResourceLinkClaims(ltitest.Teacher, "n", "l", "", "")))
		if a := admin.get("/lti/register?" + q.Encode()); a.status != http.StatusUnauthorized || refusedCheck(a) != "key" {
			t.Errorf("a key the platform signed: %d %q", a.status, refusedCheck(a))
		}
		if n := plat.ConfigReads(); n != 0 {
			t.Fatalf("the platform's configuration was read %d times before a key checked", n)
		}

		key, err := e.tool.RegistrationKey(context.Background(), time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		q.Set("key", key)
		a = admin.get("/lti/register?" + q.Encode())
		wantStatus(t, a, http.StatusOK, "the registration page")
		for _, want := range []string{`data-testid="lti-register-issuer">` + plat.Issuer(), "ltitest", `name="registration_token" value="` + ltitest.RegistrationToken} {
			if !strings.Contains(a.body, want) {
				t.Errorf("the registration page lacks %q", want)
			}
		}
		if csp := a.header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors "+plat.Server.URL+";") {
			t.Errorf("the platform cannot frame its registration page: %s", csp)
		}
		if n := len(plat.Registrations()); n != 0 {
			t.Fatalf("opening the page registered %d times; only the administrator's confirmation may", n)
		}

		// Confirm: the tool registers with its own URLs.
		a = admin.postForm("/lti/register", q, "Origin", e.url, "Sec-Fetch-Site", "same-origin")
		wantStatus(t, a, http.StatusOK, "the confirmation")
		if !strings.Contains(a.body, `data-testid="lti-registered-client">dynamic-client-1<`) || !strings.Contains(a.body, "ltiregistered.js") {
			t.Errorf("the registered page: %.500s", a.body)
		}
		regs := plat.Registrations()
		if len(regs) != 1 {
			t.Fatalf("%d registrations reached the platform", len(regs))
		}
		r := regs[0]
		for field, want := range map[string]string{
			"initiate_login_uri": e.url + "/lti/login", "jwks_uri": e.url + "/lti/jwks",
			"token_endpoint_auth_method": "private_key_jwt", "application_type": "web",
		} {
			if r[field] != want {
				t.Errorf("registration %s = %v, want %s", field, r[field], want)
			}
		}
		if uris, _ := r["redirect_uris"].([]any); len(uris) != 1 || uris[0] != e.url+"/lti/launch" {
			t.Errorf("redirect_uris = %v", r["redirect_uris"])
		}
		if scope, _ := r["scope"].(string); !strings.Contains(scope, lti.ScopeScore) || !strings.Contains(scope, lti.ScopeMembership) {
			t.Errorf("scope %q lacks the score or roster scope", scope)
		}

		// The platform is recorded as add-platform would, and a course
		// on it launches with the new client and deployment.
		ps, err := e.lst.LTIPlatforms(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(ps, func(p classroom.LTIPlatform) bool { return p.ClientID == "dynamic-client-1" })
		if i < 0 || !slices.Equal(ps[i].DeploymentIDs, []string{"dynamic-deploy-1"}) || ps[i].TokenURL != plat.Server.URL+"/token" || ps[i].Issuer != plat.Issuer() {
			t.Fatalf("recorded platforms: %+v", ps)
		}
		plat.ClientID, plat.DeploymentID = "dynamic-client-1", "dynamic-deploy-1"
		e.plat = plat
		e.launchAs(newPerson(t, e.url), ltitest.Learner, "link-1", "", "")

		// A platform that refuses the token: the page says what it answered.
		bad := url.Values{"key": {key}, "openid_configuration": {plat.ConfigURL()}, "registration_token": {"wrong"}}
		a = admin.postForm("/lti/register", bad, "Origin", e.url, "Sec-Fetch-Site", "same-origin")
		if a.status != http.StatusBadRequest || refusedCheck(a) != "registration_endpoint" || !strings.Contains(a.body, "401") {
			t.Errorf("a refused registration: %d %q %.300s", a.status, refusedCheck(a), a.body)
		}

		// A key past its time is refused as expired.
		e.clock.Advance(time.Hour + time.Second)
		a = admin.get("/lti/register?" + q.Encode())
		if a.status != http.StatusUnauthorized || !strings.Contains(a.body, "expired") {
			t.Errorf("an expired key: %d %.300s", a.status, a.body)
		}
	})
}
