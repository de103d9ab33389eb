package lti

import (
	"context"
	"net/url"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/lessons"
)

// MaxPicks bounds the content items one deep linking response carries.
const MaxPicks = 50

// Choice is one thing the picker offers: a lesson, an exercise or a
// preset, by its target ("exercise:ID", ...).
type Choice struct {
	Target string
	Kind   string // "lesson", "exercise" or "preset"
	Title  string
	// Lesson is the lesson an exercise belongs to.
	Lesson string
	// Graded choices get a line item in the course's gradebook, worth
	// Points: an exercise's points, or a lesson's column of the
	// gradebook (LessonItem). Every exercise is graded; ByTeacher marks
	// an open answer, whose score is the teacher's.
	Graded    bool
	ByTeacher bool
	Points    float64
}

// Choices lists what may be linked: every lesson with its exercises, then
// the presets.
func (t *Tool) Choices() []Choice {
	var out []Choice
	if cat := t.cfg.Lessons; cat != nil {
		for _, l := range cat.Lessons() {
			item, _ := t.LessonItem(l.Slug)
			out = append(out, Choice{Target: "lesson:" + l.Slug, Kind: "lesson", Title: l.Title, Graded: len(item.Parts) > 0, Points: item.Points()})
			for _, ex := range cat.LessonExercises(l) {
				out = append(out, Choice{Target: "exercise:" + ex.ID, Kind: "exercise", Title: ex.Title, Lesson: l.Title,
					Graded: true, ByTeacher: ex.Kind == lessons.KindText, Points: ex.Points()})
			}
		}
	}
	for _, p := range engine.Presets() {
		out = append(out, Choice{Target: "preset:" + p.Name, Kind: "preset", Title: p.Title})
	}
	return out
}

// Picker is a deep linking request waiting for the teacher's choice.
type Picker struct {
	Request classroom.LTIDeepLink
	// ReturnOrigin is the platform's origin the answer is posted to.
	ReturnOrigin string
}

// Picker finds the request behind a picker page's token.
func (t *Tool) Picker(ctx context.Context, token string) (*Picker, error) {
	if token == "" || len(token) > MaxStateLen {
		return nil, &Error{Status: 404, Field: "token", Msg: "no content picker has this address"}
	}
	d, err := t.store.LTIDeepLink(ctx, classroom.HashSecret(token))
	if classroom.ErrorCode(err) == classroom.ENOTFOUND {
		return nil, &Error{Status: 404, Field: "token", Msg: "this content picker has expired (it lasts an hour): start again from the course"}
	} else if err != nil {
		return nil, err
	}
	return &Picker{Request: *d, ReturnOrigin: Origin(d.ReturnURL)}, nil
}

// ContentItem is an ltiResourceLink of a deep linking response.
type ContentItem struct {
	Type     string            `json:"type"`
	Title    string            `json:"title"`
	URL      string            `json:"url"`
	Custom   map[string]string `json:"custom,omitempty"`
	LineItem *LineItem         `json:"lineItem,omitempty"`
}

// LineItem asks the platform to make a gradebook column for a link.
type LineItem struct {
	ScoreMaximum float64 `json:"scoreMaximum"`
	Label        string  `json:"label"`
	ResourceID   string  `json:"resourceId,omitempty"`
}

type deepLinkClaims struct {
	jwt.RegisteredClaims
	Nonce        string        `json:"nonce"`
	MessageType  string        `json:"https://purl.imsglobal.org/spec/lti/claim/message_type"`
	Version      string        `json:"https://purl.imsglobal.org/spec/lti/claim/version"`
	DeploymentID string        `json:"https://purl.imsglobal.org/spec/lti/claim/deployment_id"`
	ContentItems []ContentItem `json:"https://purl.imsglobal.org/spec/lti-dl/claim/content_items"`
	Data         string        `json:"https://purl.imsglobal.org/spec/lti-dl/claim/data,omitempty"`
}

// Respond signs the LtiDeepLinkingResponse for the picked targets: one
// ltiResourceLink each, opening the tool's page for it (launchOrigin is
// the tool's origin), with a line item for a graded exercise. It returns
// the URL to post the JWT to, as the form field "JWT".
func (t *Tool) Respond(ctx context.Context, p *Picker, launchOrigin string, picked []string) (returnURL, token string, err error) {
	if len(picked) > MaxPicks {
		return "", "", invalid("target", "pick at most %d items (%d were picked)", MaxPicks, len(picked))
	}
	byTarget := map[string]Choice{}
	for _, c := range t.Choices() {
		byTarget[c.Target] = c
	}
	items := []ContentItem{}
	for _, target := range picked {
		c, ok := byTarget[target]
		if !ok {
			return "", "", invalid("target", "%q is not a lesson, exercise or preset of this playground", boundASCII(target, 120))
		}
		it := ContentItem{Type: "ltiResourceLink", Title: c.Title, URL: launchOrigin + t.pageOf(c.Target), Custom: map[string]string{CustomTarget: c.Target}}
		if c.Graded {
			it.LineItem = &LineItem{ScoreMaximum: c.Points, Label: c.Title, ResourceID: c.Target}
		}
		items = append(items, it)
	}
	p2, err := t.platformByID(ctx, p.Request.PlatformID)
	if err != nil {
		return "", "", err
	}
	now := t.now()
	claims := deepLinkClaims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer: p2.ClientID, Audience: jwt.ClaimStrings{p2.Issuer},
			IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(5 * time.Minute)),
		},
		Nonce: classroom.NewSecret(), MessageType: MessageDeepLinkingResponse, Version: Version,
		DeploymentID: p.Request.DeploymentID, ContentItems: items, Data: p.Request.Data,
	}
	tok, err := t.sign(ctx, claims)
	return p.Request.ReturnURL, tok, err
}

// pageOf is the tool's page for a target, the content item's URL (and
// so the launch's target_link_uri).
func (t *Tool) pageOf(target string) string {
	kind, id, _ := strings.Cut(target, ":")
	switch kind {
	case "lesson":
		return "/lessons/" + url.PathEscape(id)
	case "exercise":
		if ex, err := t.cfg.Lessons.Exercise(id); err == nil {
			return "/lessons/" + url.PathEscape(ex.Lesson) + "?exercise=" + url.QueryEscape(id)
		}
	case "preset":
		return "/playground?preset=" + url.QueryEscape(id)
	}
	return "/class/me"
}

func (t *Tool) platformByID(ctx context.Context, id int64) (*classroom.LTIPlatform, error) {
	ps, err := t.store.LTIPlatforms(ctx)
	if err != nil {
		return nil, err
	}
	for _, p := range ps {
		if p.ID == id {
			return &p, nil
		}
	}
	return nil, &Error{Status: 404, Field: "platform", Msg: "the platform of this request is no longer registered"}
}
