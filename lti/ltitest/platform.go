// Package ltitest is a learning management system small enough for
// tests: it has its own keys and JWKS, an OIDC authorization endpoint, a
// token endpoint that checks the tool's signed client assertion against
// the tool's JWKS, line items that record scores, a roster (NRPS) and a
// deep linking return URL that checks the tool's signed answer. Tests
// drive a real tool over HTTP with it.
package ltitest

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/lti"
)

// Platform is a test LMS on an httptest server.
type Platform struct {
	Server       *httptest.Server
	ClientID     string
	DeploymentID string
	// ToolJWKS is the tool's /lti/jwks URL, for checking what it signs.
	ToolJWKS string
	// Now is the platform's clock (the tests share it with the tool).
	Now func() time.Time

	mu        sync.Mutex
	kid       string
	key       *rsa.PrivateKey
	published []lti.JWK
	jwksReads int
	tokens    []string // scopes of each token issued
	scores    []Score
	failNext  int // scores to refuse with 503
	members   []map[string]any
	pageSize  int              // members a roster page holds, 0 for all on one
	returned  []map[string]any // deep linking answers
	lastAuth  url.Values
	next      *Launch // what the auth endpoint launches, for a browser

	// hang, while not nil, holds score posts unanswered until it is
	// closed (HangScores); hanging counts those held now, maxHanging
	// the most held at once; arrived hears of each, and dropped of each
	// the tool gave up on while it was held.
	hang                chan struct{}
	hanging, maxHanging int
	arrived, dropped    chan struct{}

	registrations []map[string]any // what dynamic registrations asked for
	configReads   int
	closed        int // close messages from the tool's registration page
}

// Launch is what the authorization endpoint answers a browser's login
// with: a resource link launch of User.
type Launch struct {
	User                   User
	Link, Target, LineItem string
}

// SetLaunch makes the authorization endpoint answer the next logins as a
// platform does for a browser: an auto-posting form with the id_token.
func (p *Platform) SetLaunch(l Launch) {
	p.mu.Lock()
	p.next = &l
	p.mu.Unlock()
}

// Score is a score the line item received.
type Score struct {
	LineItem     string
	UserID       string  `json:"userId"`
	ScoreGiven   float64 `json:"scoreGiven"`
	ScoreMaximum float64 `json:"scoreMaximum"`
	// Given says the score carried scoreGiven (a pending one with
	// nothing earned yet does not).
	Given       bool   `json:"-"`
	Activity    string `json:"activityProgress"`
	Grading     string `json:"gradingProgress"`
	Timestamp   string `json:"timestamp"`
	ContentType string
}

// New starts a platform; it stops when the test ends.
func New(tb testing.TB, now func() time.Time) *Platform {
	tb.Helper()
	p := &Platform{ClientID: "playground-client", DeploymentID: "deploy-1", Now: now}
	p.RotateKey()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /jwks", p.serveJWKS)
	mux.HandleFunc("GET /auth", p.serveAuth)
	mux.HandleFunc("GET /course", p.serveCourse)
	mux.HandleFunc("POST /token", p.serveToken)
	mux.HandleFunc("POST /lineitems/{id}/scores", p.serveScore)
	mux.HandleFunc("GET /memberships", p.serveMemberships)
	mux.HandleFunc("POST /deeplink/return", p.serveDeepLinkReturn)
	mux.HandleFunc("GET /.well-known/openid-configuration", p.serveOpenIDConfiguration)
	mux.HandleFunc("POST /register", p.serveRegister)
	mux.HandleFunc("GET /admin/register-tool", p.serveRegisterTool)
	mux.HandleFunc("POST /admin/closed", p.serveClosed)
	p.Server = httptest.NewServer(mux)
	tb.Cleanup(p.Server.Close)
	return p
}

// Issuer is the platform's iss.
func (p *Platform) Issuer() string { return p.Server.URL }

// Registration is the platform as the tool registers it.
func (p *Platform) Registration() classroom.LTIPlatform {
	return classroom.LTIPlatform{
		Issuer: p.Issuer(), ClientID: p.ClientID, DeploymentIDs: []string{p.DeploymentID},
		AuthURL: p.Server.URL + "/auth", TokenURL: p.Server.URL + "/token", JWKSURL: p.Server.URL + "/jwks",
	}
}

// LineItem is the URL of a line item of the course.
func (p *Platform) LineItem(id string) string { return p.Server.URL + "/lineitems/" + id }

// RotateKey makes a new signing key; the JWKS publishes only it.
func (p *Platform) RotateKey() {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.kid = fmt.Sprintf("platform-key-%d", len(p.published)+1)
	p.key = k
	p.published = []lti.JWK{lti.PublicJWK(p.kid, &k.PublicKey)}
}

// JWKSReads counts the fetches of the platform's JWKS.
func (p *Platform) JWKSReads() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.jwksReads
}

func (p *Platform) serveJWKS(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.jwksReads++
	keys := p.published
	p.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"keys": keys})
}

// User is who the platform launches.
type User struct {
	Sub, Name, Email, StudentID string
	Instructor                  bool
}

// Learner and Teacher are two users of the course.
var (
	Learner = User{Sub: "user-ada", Name: "Ada Lovelace", Email: "ada@uni.example.edu", StudentID: "s1815"}
	Teacher = User{Sub: "user-grace", Name: "Grace Hopper", Email: "grace@uni.example.edu", Instructor: true}
)

// ResourceLinkClaims are the claims of a resource link launch of the
// course "course-1" by u, with nonce; link is the resource link's ID,
// target its custom playground_target, lineItem its line item ("" for an
// ungraded link).
func (p *Platform) ResourceLinkClaims(u User, nonce, link, target, lineItem string) jwt.MapClaims {
	c := p.baseClaims(u, nonce)
	c[lti.ClaimMessageType] = lti.MessageResourceLink
	c[lti.ClaimResourceLink] = map[string]any{"id": link, "title": "Week 1"}
	c[lti.ClaimTargetLinkURI] = "https://tool.example/launch"
	if target != "" {
		c[lti.ClaimCustom] = map[string]any{lti.CustomTarget: target}
	}
	if lineItem != "" {
		c[lti.ClaimAGS] = map[string]any{
			"scope":     []string{lti.ScopeLineItem, lti.ScopeScore},
			"lineitems": p.Server.URL + "/lineitems", "lineitem": lineItem,
		}
	}
	c[lti.ClaimNRPS] = map[string]any{"context_memberships_url": p.Server.URL + "/memberships", "service_versions": []string{"2.0"}}
	return c
}

// DeepLinkingClaims are the claims of a deep linking request by u.
func (p *Platform) DeepLinkingClaims(u User, nonce string) jwt.MapClaims {
	c := p.baseClaims(u, nonce)
	c[lti.ClaimMessageType] = lti.MessageDeepLinking
	c[lti.ClaimDeepLinking] = map[string]any{
		"deep_link_return_url": p.Server.URL + "/deeplink/return",
		"accept_types":         []string{"ltiResourceLink"}, "accept_multiple": true, "data": "opaque-42",
	}
	return c
}

func (p *Platform) baseClaims(u User, nonce string) jwt.MapClaims {
	now := p.Now()
	role := "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
	if u.Instructor {
		role = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
	}
	return jwt.MapClaims{
		"iss": p.Issuer(), "aud": p.ClientID, "azp": p.ClientID, "sub": u.Sub,
		"iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(), "nonce": nonce,
		"name": u.Name, "email": u.Email,
		lti.ClaimVersion:      lti.Version,
		lti.ClaimDeploymentID: p.DeploymentID,
		lti.ClaimRoles:        []string{role},
		lti.ClaimContext:      map[string]any{"id": "course-1", "label": "DS101", "title": "Distributed Systems 101"},
		lti.ClaimLIS:          map[string]any{"person_sourcedid": u.StudentID},
	}
}

// Sign signs claims with the platform's current key.
func (p *Platform) Sign(c jwt.MapClaims) string {
	p.mu.Lock()
	kid, key := p.kid, p.key
	p.mu.Unlock()
	return SignWith(c, kid, key)
}

// SignWith signs claims with any key under any kid: a forger's tool.
func SignWith(c jwt.MapClaims, kid string, key *rsa.PrivateKey) string {
	t := jwt.NewWithClaims(jwt.SigningMethodRS256, c)
	t.Header["kid"] = kid
	s, err := t.SignedString(key)
	if err != nil {
		panic(err)
	}
	return s
}

// KID is the current key's ID.
func (p *Platform) KID() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.kid
}

// serveAuth is the OIDC authorization endpoint. A browser would get an
// auto-posting form; the tests read the request with Authorize instead,
// so this only records it.
func (p *Platform) serveAuth(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p.mu.Lock()
	p.lastAuth = q
	next := p.next
	p.mu.Unlock()
	if next == nil {
		w.WriteHeader(http.StatusOK)
		return
	}
	tok := p.Sign(p.ResourceLinkClaims(next.User, q.Get("nonce"), next.Link, next.Target, next.LineItem))
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, `<!doctype html><form method="post" action="%s"><input type="hidden" name="id_token" value="%s"><input type="hidden" name="state" value="%s"></form><script>document.forms[0].submit()</script>`,
		html.EscapeString(q.Get("redirect_uri")), html.EscapeString(tok), html.EscapeString(q.Get("state")))
}

// serveCourse is a course page that shows the tool in an iframe, opened
// at the login URL given as ?login=.
func (p *Platform) serveCourse(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, `<!doctype html><title>Course</title><h1>Distributed Systems 101</h1><iframe id="tool" src="%s" style="width:1000px;height:600px"></iframe>`,
		html.EscapeString(r.URL.Query().Get("login")))
}

// Authorize checks the tool's redirect to the authorization endpoint as
// the platform would, and returns its state and nonce.
func (p *Platform) Authorize(redirect, launchURL string) (state, nonce string, err error) {
	u, err := url.Parse(redirect)
	if err != nil {
		return "", "", err
	}
	if got := u.Scheme + "://" + u.Host + u.Path; got != p.Server.URL+"/auth" {
		return "", "", fmt.Errorf("redirected to %s, not the auth URL", got)
	}
	q := u.Query()
	want := map[string]string{"scope": "openid", "response_type": "id_token", "response_mode": "form_post",
		"prompt": "none", "client_id": p.ClientID, "redirect_uri": launchURL}
	for k, v := range want {
		if q.Get(k) != v {
			return "", "", fmt.Errorf("auth request: %s = %q, want %q", k, q.Get(k), v)
		}
	}
	if q.Get("state") == "" || q.Get("nonce") == "" || q.Get("login_hint") == "" {
		return "", "", fmt.Errorf("auth request without state, nonce or login_hint: %v", q)
	}
	return q.Get("state"), q.Get("nonce"), nil
}

// serveToken issues access tokens to a client that proves who it is with
// a JWT signed by a key in the tool's JWKS.
func (p *Platform) serveToken(w http.ResponseWriter, r *http.Request) {
	fail := func(msg string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]string{"error": "invalid_client", "error_description": msg})
	}
	if err := r.ParseForm(); err != nil {
		fail("not a form")
		return
	}
	if r.PostForm.Get("grant_type") != "client_credentials" ||
		r.PostForm.Get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" {
		fail("grant_type or client_assertion_type")
		return
	}
	kf, err := keyfunc.NewDefaultCtx(r.Context(), []string{p.ToolJWKS})
	if err != nil {
		fail(err.Error())
		return
	}
	var claims jwt.RegisteredClaims
	_, err = jwt.ParseWithClaims(r.PostForm.Get("client_assertion"), &claims, kf.Keyfunc,
		jwt.WithValidMethods([]string{"RS256"}), jwt.WithTimeFunc(p.Now), jwt.WithAudience(p.Server.URL+"/token"),
		jwt.WithIssuer(p.ClientID), jwt.WithSubject(p.ClientID), jwt.WithExpirationRequired())
	if err != nil {
		fail("client_assertion: " + err.Error())
		return
	}
	p.mu.Lock()
	p.tokens = append(p.tokens, r.PostForm.Get("scope"))
	n := len(p.tokens)
	p.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"access_token": fmt.Sprintf("token-%d", n), "token_type": "Bearer", "expires_in": 3600, "scope": r.PostForm.Get("scope")})
}

// Tokens lists the scopes of the tokens issued, in order.
func (p *Platform) Tokens() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.tokens...)
}

func (p *Platform) authorized(r *http.Request) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer token-")
	return ok && tok != ""
}

// FailScores makes the next n score posts answer 503.
func (p *Platform) FailScores(n int) {
	p.mu.Lock()
	p.failNext = n
	p.mu.Unlock()
}

// HangScores makes the platform hang: every score post from now on is
// held unanswered until ReleaseScores, or until the tool gives up on it
// (then it is not recorded). held hears of each post as it starts to
// hang, dropped of each the tool gave up on, once the platform saw it go.
func (p *Platform) HangScores() (held, dropped <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.hang, p.arrived, p.dropped = make(chan struct{}), make(chan struct{}, 64), make(chan struct{}, 64)
	return p.arrived, p.dropped
}

// ReleaseScores answers the score posts held, and those after, as usual.
func (p *Platform) ReleaseScores() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.hang != nil {
		close(p.hang)
		p.hang = nil
	}
}

// Hanging counts the score posts held unanswered now, and the most that
// were ever held at once.
func (p *Platform) Hanging() (now, most int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.hanging, p.maxHanging
}

// holdScore holds a score post while the platform hangs, and says
// whether to go on with it: false when the tool gave up on it first.
func (p *Platform) holdScore(r *http.Request) bool {
	p.mu.Lock()
	hang := p.hang
	if hang == nil {
		p.mu.Unlock()
		return true
	}
	p.hanging++
	p.maxHanging = max(p.maxHanging, p.hanging)
	p.arrived <- struct{}{}
	dropped := p.dropped
	p.mu.Unlock()
	held := true
	select {
	case <-hang:
	case <-r.Context().Done():
		held = false
	}
	p.mu.Lock()
	p.hanging--
	p.mu.Unlock()
	if !held {
		dropped <- struct{}{}
	}
	return held
}

func (p *Platform) serveScore(w http.ResponseWriter, r *http.Request) {
	if !p.authorized(r) {
		http.Error(w, "no token", http.StatusUnauthorized)
		return
	}
	// The body is read before the post is held: the server hears that
	// the tool went away only once it has read it all.
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if !p.holdScore(r) {
		return
	}
	p.mu.Lock()
	if p.failNext > 0 {
		p.failNext--
		p.mu.Unlock()
		http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
		return
	}
	p.mu.Unlock()
	var s Score
	var fields map[string]json.RawMessage
	if err == nil {
		err = json.Unmarshal(body, &s)
	}
	if err == nil {
		err = json.Unmarshal(body, &fields)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	_, s.Given = fields["scoreGiven"]
	s.LineItem, s.ContentType = p.Server.URL+"/lineitems/"+r.PathValue("id"), r.Header.Get("Content-Type")
	p.mu.Lock()
	p.scores = append(p.scores, s)
	p.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// Scores lists the scores received, in order.
func (p *Platform) Scores() []Score {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Score(nil), p.scores...)
}

// SetMembers sets the course's roster.
func (p *Platform) SetMembers(users ...User) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.members = nil
	for _, u := range users {
		role := "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
		if u.Instructor {
			role = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
		}
		p.members = append(p.members, map[string]any{"user_id": u.Sub, "name": u.Name, "email": u.Email,
			"lis_person_sourcedid": u.StudentID, "roles": []string{role}, "status": "Active"})
	}
}

// SetMemberPageSize makes the roster come in pages of n members, each
// naming the next in a Link header, as platforms page large courses (0:
// one page).
func (p *Platform) SetMemberPageSize(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pageSize = n
}

func (p *Platform) serveMemberships(w http.ResponseWriter, r *http.Request) {
	if !p.authorized(r) || r.Header.Get("Accept") != lti.MembershipMediaType {
		http.Error(w, "no token or wrong Accept", http.StatusUnauthorized)
		return
	}
	p.mu.Lock()
	members := p.members
	if p.pageSize > 0 {
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		from := min(page*p.pageSize, len(members))
		to := min(from+p.pageSize, len(members))
		if to < len(members) {
			w.Header().Set("Link", fmt.Sprintf(`<%s/memberships?page=%d>; rel="next"`, p.Server.URL, page+1))
		}
		members = members[from:to]
	}
	body := map[string]any{"id": p.Server.URL + "/memberships", "context": map[string]any{"id": "course-1"}, "members": members}
	p.mu.Unlock()
	w.Header().Set("Content-Type", lti.MembershipMediaType)
	json.NewEncoder(w).Encode(body)
}

// serveDeepLinkReturn checks the tool's signed answer and keeps its
// claims.
func (p *Platform) serveDeepLinkReturn(w http.ResponseWriter, r *http.Request) {
	kf, err := keyfunc.NewDefaultCtx(r.Context(), []string{p.ToolJWKS})
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	claims := jwt.MapClaims{}
	_, err = jwt.ParseWithClaims(r.FormValue("JWT"), claims, kf.Keyfunc, jwt.WithValidMethods([]string{"RS256"}),
		jwt.WithTimeFunc(p.Now), jwt.WithAudience(p.Issuer()), jwt.WithIssuer(p.ClientID))
	if err != nil {
		http.Error(w, "JWT: "+err.Error(), http.StatusBadRequest)
		return
	}
	p.mu.Lock()
	p.returned = append(p.returned, claims)
	p.mu.Unlock()
	w.Write([]byte("content added"))
}

// DeepLinkAnswers lists the checked deep linking answers' claims.
func (p *Platform) DeepLinkAnswers() []map[string]any {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]map[string]any(nil), p.returned...)
}
