package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/engine"
)

// TeacherCookie names the cookie a teacher link sets (HttpOnly,
// SameSite=Lax): its value is the class's teacher key, so the dashboard,
// its live updates and the CSV links work without the key in any URL.
const TeacherCookie = "pg_teacher"

// cookieAge is how long the class cookies last: a term.
const cookieAge = 180 * 24 * time.Hour

// classWeb holds what the class pages and APIs share besides the Server.
type classWeb struct {
	s       *Server
	m       *metrics
	joins   *ipLimiter
	creates *ipLimiter
	checks  *ipLimiter
}

// classRoutes registers the class pages and APIs, /metrics, and the
// middleware that guards a shared server: per-IP rate limits, the
// same-origin check on state-changing requests, request metrics.
func (s *Server) classRoutes(e *echo.Echo) {
	w := &classWeb{
		s:       s,
		m:       newMetrics(s),
		joins:   newIPLimiter("joins", DefaultJoinRate),
		creates: newIPLimiter("classes created", DefaultCreateRate),
		checks:  newIPLimiter("checks", DefaultCheckRate),
	}
	if s.cfg.Classroom != nil {
		s.cfg.Classroom = countingStore{Store: s.cfg.Classroom, errs: w.m.storeErrors}
	}
	// X-Forwarded-For is only believed from the proxies TrustProxies
	// names; anyone could send it and dodge the rate limits.
	e.IPExtractor = echo.ExtractIPDirect()
	e.Use(w.m.middleware)
	// The checks are registered by the lesson pages; their limits and
	// cross-site guard apply by route pattern.
	checkLimit := w.checks.middleware(w.m)
	e.Use(func(next echo.HandlerFunc) echo.HandlerFunc {
		limited := s.sameOrigin(checkLimit(next))
		return func(c echo.Context) error {
			if c.Path() == checkRoute {
				return limited(c)
			}
			return next(c)
		}
	})
	e.GET("/metrics", w.m.handler())

	// Per route, not an echo Group: a Group's middleware also answers
	// every unmatched URL (echo registers a catch-all for it).
	add := func(method, path string, h echo.HandlerFunc, extra ...echo.MiddlewareFunc) {
		e.Add(method, path, h, append([]echo.MiddlewareFunc{w.needStore, s.sameOrigin}, extra...)...)
	}
	join := w.joins.middleware(w.m)
	create := w.creates.middleware(w.m)
	const get, post, del = http.MethodGet, http.MethodPost, http.MethodDelete

	// Pages.
	add(get, "/class", w.classHome)
	add(post, "/class/new", w.pageCreate, create)
	add(post, "/class/join", w.pageJoin, join)
	add(get, "/class/me", w.learnerPage)
	add(get, "/class/teacher", w.teacherLinkPage)
	add(get, "/class/:code/teacher", w.dashboardPage)

	// APIs.
	add(post, "/api/classes", w.apiCreate, create)
	add(post, "/api/classes/:code/join", w.apiJoin, join)
	add(get, "/api/me", w.apiMe)
	add(post, "/api/teacher/session", w.apiTeacherSession)
	add(get, "/api/classes/:code/dashboard", w.apiDashboard)
	add(get, "/api/classes/:code/events", w.apiEvents)
	add(get, "/api/classes/:code/learners/:id/progress", w.apiLearnerProgress)
	add(del, "/api/classes/:code/learners/:id", w.apiRemove)
	add(post, "/api/classes/:code/scenario", w.apiPushScenario)
	add(post, "/api/classes/:code/code", w.apiRotate)
	add(post, "/api/classes/:code/joining", w.apiJoining)
	add(get, "/api/classes/:code/progress.csv", w.apiProgressCSV)
	add(get, "/api/classes/:code/progress-wide.csv", w.apiWideCSV)
}

func (w *classWeb) store() classroom.Store { return w.s.cfg.Classroom }

// needStore answers 404 for every class route of a server run without a
// classroom store.
func (w *classWeb) needStore(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if w.store() == nil {
			return &userError{Status: http.StatusNotFound, Msg: "this server runs without classes"}
		}
		return next(c)
	}
}

// classError maps a classroom error to the web layer's: each code to its
// status (see classroom/doc.go), with the store's message, which names
// the field. An internal error stays as it is, to be logged as a 500.
func classError(err error) error {
	status := 0
	switch classroom.ErrorCode(err) {
	case "":
		return nil
	case classroom.EINVALID:
		status = http.StatusBadRequest
	case classroom.EUNAUTHORIZED:
		status = http.StatusUnauthorized
	case classroom.EFORBIDDEN, classroom.ELIMIT:
		status = http.StatusForbidden
	case classroom.ENOTFOUND:
		status = http.StatusNotFound
	case classroom.ECONFLICT:
		status = http.StatusConflict
	default:
		return err
	}
	msg := classroom.ErrorMessage(err)
	field := ""
	if i := strings.Index(msg, ": "); i > 0 && !strings.Contains(msg[:i], " ") {
		field, msg = msg[:i], msg[i+2:]
	}
	return &userError{Status: status, Field: field, Msg: msg}
}

// teacherKey returns the teacher key a request carries: Authorization:
// Bearer first, else the teacher cookie.
func teacherKey(c echo.Context) string {
	if h := c.Request().Header.Get(echo.HeaderAuthorization); h != "" {
		if k, ok := strings.CutPrefix(h, "Bearer "); ok {
			return strings.TrimSpace(k)
		}
		return ""
	}
	if ck, err := c.Cookie(TeacherCookie); err == nil {
		return ck.Value
	}
	return ""
}

func setCookie(c echo.Context, name, value string) {
	c.SetCookie(&http.Cookie{
		Name: name, Value: value, Path: "/",
		MaxAge: int(cookieAge.Seconds()), HttpOnly: true, SameSite: http.SameSiteLaxMode,
		Secure: c.Scheme() == "https",
	})
}

// ClassHintCookie is readable by scripts and holds no secret: it says that
// this browser joined a class, so the playground asks /api/me for a
// pushed scenario only then.
const ClassHintCookie = "pg_class"

func setLearnerCookies(c echo.Context, token string) {
	setCookie(c, LearnerCookie, token)
	c.SetCookie(&http.Cookie{Name: ClassHintCookie, Value: "1", Path: "/", MaxAge: int(cookieAge.Seconds()),
		SameSite: http.SameSiteLaxMode, Secure: c.Scheme() == "https"})
}

// readJSON decodes a JSON body of at most MaxBodyBytes into v, refusing
// fields that v does not have, as POST /api/run does: a misspelt field is
// a mistake to be told about, not ignored.
func (w *classWeb) readJSON(c echo.Context, v any) error {
	if err := requireJSON(c); err != nil {
		return err
	}
	body, err := io.ReadAll(io.LimitReader(c.Request().Body, w.s.cfg.MaxBodyBytes+1))
	if err != nil {
		return badRequest("body", "could not be read: %v", err)
	}
	if int64(len(body)) > w.s.cfg.MaxBodyBytes {
		return &userError{Status: http.StatusRequestEntityTooLarge, Field: "body", Msg: fmt.Sprintf("is larger than the limit of %d bytes", w.s.cfg.MaxBodyBytes)}
	}
	if len(strings.TrimSpace(string(body))) == 0 {
		body = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			t := te.Type
			for t.Kind() == reflect.Pointer {
				t = t.Elem()
			}
			return badRequest(te.Field, "must be %s", jsonKind(t.Kind()))
		}
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return badRequest(strings.Trim(name, `"`), "is not a field of this request, which takes %s", fieldList(v))
		}
		return badRequest("body", "is not valid JSON: %v", err)
	}
	if dec.More() {
		return badRequest("body", "has more than one JSON value")
	}
	return nil
}

// fieldList names the JSON fields of the struct v points to, for an error
// that says what a request takes: "name", or "preset, scenario or link".
func fieldList(v any) string {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return "no fields"
	}
	var names []string
	for i := 0; i < t.NumField(); i++ {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			names = append(names, name)
		}
	}
	switch len(names) {
	case 0:
		return "no fields"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// jsonKind names the kind of JSON value a Go kind is decoded from.
func jsonKind(k reflect.Kind) string {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "a " + k.String()
}

// teacherLink is the private link to a class's dashboard: the key rides
// in the #fragment, which browsers never send to a server.
func teacherLink(key string) string { return "/class/teacher#key=" + url.QueryEscape(key) }

// joinLink opens the join form with the code filled in.
func joinLink(code string) string { return "/class?code=" + url.QueryEscape(code) }

// dashboardLink is the teacher's dashboard of the class with this code.
func dashboardLink(code string) string { return "/class/" + url.PathEscape(code) + "/teacher" }

type createdClass struct {
	Code        string `json:"code"`
	TeacherKey  string `json:"teacher_key"`
	Name        string `json:"name"`
	JoinLink    string `json:"join_link"`
	TeacherLink string `json:"teacher_link"`
	Dashboard   string `json:"dashboard"`
}

func newCreated(nc *classroom.NewClass) createdClass {
	return createdClass{Code: nc.Class.Code, TeacherKey: nc.TeacherKey, Name: nc.Class.Name,
		JoinLink: joinLink(nc.Class.Code), TeacherLink: teacherLink(nc.TeacherKey), Dashboard: dashboardLink(nc.Class.Code)}
}

// apiCreate: POST /api/classes {"name"} -> {"code","teacher_key",...}.
// The key is in this answer and nowhere else: it is stored hashed.
func (w *classWeb) apiCreate(c echo.Context) error {
	var in struct {
		Name string `json:"name"`
	}
	if err := w.readJSON(c, &in); err != nil {
		return err
	}
	nc, err := w.store().CreateClass(c.Request().Context(), in.Name)
	if err != nil {
		return classError(err)
	}
	setCookie(c, TeacherCookie, nc.TeacherKey)
	return writeJSON(c, http.StatusCreated, newCreated(nc))
}

type joined struct {
	Learner *classroom.Learner `json:"learner"`
	Class   classSummary       `json:"class"`
}

// classSummary is what a learner may know of their class.
type classSummary struct {
	Code     string        `json:"code"`
	Name     string        `json:"name"`
	Scenario *scenarioLink `json:"scenario,omitempty"`
}

// apiJoin: POST /api/classes/{code}/join {"name"}; the session token goes
// only into the HttpOnly cookie.
func (w *classWeb) apiJoin(c echo.Context) error {
	var in struct {
		Name string `json:"name"`
	}
	if err := w.readJSON(c, &in); err != nil {
		return err
	}
	sess, err := w.store().Join(c.Request().Context(), c.Param("code"), in.Name)
	if err != nil {
		return classError(err)
	}
	setLearnerCookies(c, sess.Token)
	return writeJSON(c, http.StatusCreated, joined{Learner: sess.Learner, Class: summarize(sess.Class)})
}

func summarize(cl *classroom.Class) classSummary {
	return classSummary{Code: cl.Code, Name: cl.Name, Scenario: linkFor(cl.Scenario)}
}

// apiMe: GET /api/me, the learner's own class, progress and pushed scenario.
func (w *classWeb) apiMe(c echo.Context) error {
	l, cl, prog, err := w.me(c)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, map[string]any{"learner": l, "class": summarize(cl), "progress": prog})
}

func (w *classWeb) me(c echo.Context) (*classroom.Learner, *classroom.Class, []classroom.Progress, error) {
	ctx := c.Request().Context()
	token := learnerToken(c)
	l, cl, err := w.store().Learner(ctx, token)
	if err != nil {
		return nil, nil, nil, classError(err)
	}
	prog, err := w.store().LearnerProgress(ctx, cl.Code, classroom.Credentials{Session: token}, l.ID)
	if err != nil {
		return nil, nil, nil, classError(err)
	}
	if prog == nil {
		prog = []classroom.Progress{}
	}
	return l, cl, prog, nil
}

// apiTeacherSession: POST /api/teacher/session with the key as a Bearer
// token sets the teacher cookie and says where the dashboard is. The
// teacher link keeps the key in its #fragment, which browsers never send,
// so the key reaches no access log; its page posts it here.
func (w *classWeb) apiTeacherSession(c echo.Context) error {
	if err := requireJSON(c); err != nil {
		return err
	}
	key := teacherKey(c)
	cl, err := w.store().TeacherClass(c.Request().Context(), key)
	if err != nil {
		return classError(err)
	}
	setCookie(c, TeacherCookie, key)
	return writeJSON(c, http.StatusOK, map[string]string{"code": cl.Code, "name": cl.Name, "dashboard": dashboardLink(cl.Code)})
}

func (w *classWeb) apiDashboard(c echo.Context) error {
	v, err := w.dashboard(c, c.Param("code"), teacherKey(c))
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, v)
}

func (w *classWeb) apiLearnerProgress(c echo.Context) error {
	id, err := learnerID(c)
	if err != nil {
		return err
	}
	creds := classroom.Credentials{TeacherKey: teacherKey(c), Session: learnerToken(c)}
	prog, err := w.store().LearnerProgress(c.Request().Context(), c.Param("code"), creds, id)
	if err != nil {
		return classError(err)
	}
	if prog == nil {
		prog = []classroom.Progress{}
	}
	return writeJSON(c, http.StatusOK, prog)
}

func learnerID(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, &userError{Status: http.StatusNotFound, Field: "id", Msg: fmt.Sprintf("no learner %q", c.Param("id"))}
	}
	return id, nil
}

func (w *classWeb) apiRemove(c echo.Context) error {
	id, err := learnerID(c)
	if err != nil {
		return err
	}
	if err := w.store().RemoveLearner(c.Request().Context(), c.Param("code"), teacherKey(c), id); err != nil {
		return classError(err)
	}
	return c.NoContent(http.StatusNoContent)
}

func (w *classWeb) apiRotate(c echo.Context) error {
	if err := requireJSON(c); err != nil {
		return err
	}
	cl, err := w.store().RotateCode(c.Request().Context(), c.Param("code"), teacherKey(c))
	if err != nil {
		return classError(err)
	}
	return writeJSON(c, http.StatusOK, map[string]string{"code": cl.Code, "dashboard": dashboardLink(cl.Code), "join_link": joinLink(cl.Code)})
}

func (w *classWeb) apiJoining(c echo.Context) error {
	var in struct {
		Open *bool `json:"open"`
	}
	if err := w.readJSON(c, &in); err != nil {
		return err
	}
	if in.Open == nil {
		return badRequest("open", "is required: true to let learners join, false to close joining")
	}
	cl, err := w.store().SetJoinOpen(c.Request().Context(), c.Param("code"), teacherKey(c), *in.Open)
	if err != nil {
		return classError(err)
	}
	return writeJSON(c, http.StatusOK, map[string]any{"code": cl.Code, "join_open": cl.JoinOpen})
}

// pushRequest is what a teacher pushes: a preset's name, a scenario
// document, or a share link (or its s parameter); all empty clears.
type pushRequest struct {
	Preset   string          `json:"preset"`
	Scenario json.RawMessage `json:"scenario"`
	Link     string          `json:"link"`
}

func (w *classWeb) apiPushScenario(c echo.Context) error {
	var in pushRequest
	if err := w.readJSON(c, &in); err != nil {
		return err
	}
	sc, err := validatePush(in)
	if err != nil {
		return err
	}
	cl, err := w.store().PushScenario(c.Request().Context(), c.Param("code"), teacherKey(c), sc)
	if err != nil {
		return classError(err)
	}
	return writeJSON(c, http.StatusOK, map[string]any{"code": cl.Code, "scenario": linkFor(cl.Scenario)})
}

// validatePush checks a pushed scenario against the engine, so a learner
// is never offered one that does not run; errors name the field.
func validatePush(in pushRequest) (classroom.Scenario, error) {
	raw := strings.TrimSpace(string(in.Scenario))
	if raw == "null" {
		raw = ""
	}
	n := 0
	for _, set := range []bool{in.Preset != "", raw != "", in.Link != ""} {
		if set {
			n++
		}
	}
	switch {
	case n == 0:
		return classroom.Scenario{}, nil
	case n > 1:
		return classroom.Scenario{}, badRequest("preset", "give one of preset, scenario or link, not %d of them", n)
	case in.Preset != "":
		if _, err := engine.LoadPreset(in.Preset); err != nil {
			return classroom.Scenario{}, badRequest("preset", "must be one of %s, not %q", strings.Join(engine.PresetNames(), ", "), in.Preset)
		}
		return classroom.Scenario{Preset: in.Preset}, nil
	case in.Link != "":
		return scenarioFromLink(in.Link)
	}
	var doc []byte = in.Scenario
	// A scenario may come as a JSON object or as a string holding one (as
	// pasted from the playground's JSON editor).
	var s string
	if json.Unmarshal(in.Scenario, &s) == nil {
		doc = []byte(s)
	}
	sc, err := engine.DecodeScenario(doc)
	if err != nil {
		return classroom.Scenario{}, prefixField("scenario", err)
	}
	if _, err := engine.Prepare(sc); err != nil {
		return classroom.Scenario{}, prefixField("scenario", err)
	}
	out, err := json.Marshal(sc)
	if err != nil {
		return classroom.Scenario{}, err
	}
	return classroom.Scenario{JSON: string(out)}, nil
}

// scenarioFromLink reads a playground share link, its query, or the bare
// s parameter.
func scenarioFromLink(link string) (classroom.Scenario, error) {
	q := url.Values{}
	if strings.Contains(link, "?") || strings.Contains(link, "=") {
		u, err := url.Parse(link)
		if err != nil {
			return classroom.Scenario{}, badRequest("link", "is not a playground link: %v", err)
		}
		q = u.Query()
		if !strings.Contains(link, "?") {
			q, _ = url.ParseQuery(link)
		}
	} else {
		q.Set("s", link)
	}
	switch {
	case q.Get("s") != "":
		sc, err := DecodeShare(q.Get("s"))
		if err != nil {
			return classroom.Scenario{}, prefixField("link", err)
		}
		out, err := json.Marshal(sc)
		if err != nil {
			return classroom.Scenario{}, err
		}
		return classroom.Scenario{JSON: string(out)}, nil
	case q.Get("preset") != "":
		return validatePush(pushRequest{Preset: q.Get("preset")})
	}
	return classroom.Scenario{}, badRequest("link", "is not a playground link: it has neither ?s= (a shared scenario) nor ?preset=")
}

// prefixField puts an engine or share error under the request's field:
// "scenario.clients[1].steps[3].for".
func prefixField(prefix string, err error) error {
	var fe *engine.FieldError
	var ue *userError
	switch {
	case errors.As(err, &fe):
		f := prefix
		if fe.Field != "" {
			f = prefix + "." + fe.Field
		}
		return badRequest(f, "%s", fe.Message)
	case errors.As(err, &ue):
		f := prefix
		if ue.Field != "" && ue.Field != "s" {
			f = prefix + "." + ue.Field
		}
		return &userError{Status: ue.Status, Field: f, Msg: ue.Msg}
	}
	return badRequest(prefix, "%v", err)
}

// scenarioLink is a pushed scenario as a learner's page shows it.
type scenarioLink struct {
	Label    string    `json:"label"`
	URL      string    `json:"url"`
	PushedAt time.Time `json:"pushed_at"`
}

// linkFor turns a pushed scenario into a playground link: ?preset= for a
// preset, a share link for a document.
func linkFor(sc *classroom.Scenario) *scenarioLink {
	switch {
	case sc == nil:
		return nil
	case sc.Preset != "":
		label := sc.Preset
		if p, err := engine.LoadPreset(sc.Preset); err == nil && p.Title != "" {
			label = p.Title
		}
		return &scenarioLink{Label: label, URL: "/playground?preset=" + url.QueryEscape(sc.Preset), PushedAt: sc.PushedAt}
	case sc.JSON != "":
		doc, err := engine.DecodeScenario([]byte(sc.JSON))
		if err != nil {
			return nil
		}
		s, err := EncodeShare(doc)
		if err != nil {
			return nil
		}
		label := "a scenario from your teacher"
		if doc.Title != "" {
			label = doc.Title
		}
		return &scenarioLink{Label: label, URL: "/playground?s=" + s, PushedAt: sc.PushedAt}
	}
	return nil
}

// apiProgressCSV: one row per learner and exercise, in the catalog's order.
func (w *classWeb) apiProgressCSV(c echo.Context) error {
	return w.csv(c, "progress", classroom.WriteProgressCSV)
}

// apiWideCSV: one row per learner, one column per exercise.
func (w *classWeb) apiWideCSV(c echo.Context) error {
	return w.csv(c, "progress-wide", classroom.WriteWideCSV)
}

func (w *classWeb) csv(c echo.Context, name string, write func(io.Writer, *classroom.Dashboard, []string) error) error {
	d, err := w.store().Dashboard(c.Request().Context(), c.Param("code"), teacherKey(c))
	if err != nil {
		return classError(err)
	}
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, "text/csv; charset=utf-8")
	h.Set(echo.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="%s-%s.csv"`, d.Class.Code, name))
	h.Set("Cache-Control", "no-store")
	c.Response().WriteHeader(http.StatusOK)
	return write(c.Response(), d, w.exerciseOrder(d))
}
