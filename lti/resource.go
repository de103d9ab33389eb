package lti

import (
	"context"
	"net/url"
	"strings"
	"time"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/engine"
)

// CustomTarget is the custom parameter of the links the tool makes by
// deep linking: what the link opens, "exercise:ID", "lesson:SLUG" or
// "preset:NAME".
const CustomTarget = "playground_target"

// PickTTL is how long a teacher may take to pick content after a deep
// linking request.
const PickTTL = time.Hour

// Outcome is what a checked launch led to.
type Outcome struct {
	// Class is the course's class (nil for deep linking).
	Class *classroom.Class
	// TeacherKey is set for an instructor: the dashboard's key.
	TeacherKey string
	// Session is set for a learner.
	Session *classroom.Session
	// Landing is the path to redirect to.
	Landing string
}

// Accept acts on a checked launch: a resource link makes or finds the
// course's class and joins the learner (or hands an instructor the
// class's teacher key); a deep linking request, which only an instructor
// may make, opens the content picker.
func (t *Tool) Accept(ctx context.Context, l *Launch, launchOrigin string) (*Outcome, error) {
	c := l.Claims
	if c.MessageType == MessageDeepLinking {
		if !c.Instructor() {
			return nil, &Error{Status: 403, Field: ClaimRoles, Msg: "only an instructor may pick content for the course"}
		}
		token := classroom.NewSecret()
		err := t.store.SaveLTIDeepLink(ctx, classroom.HashSecret(token), classroom.LTIDeepLink{
			PlatformID: l.Platform.ID, DeploymentID: c.DeploymentID, ReturnURL: c.DeepLinking.ReturnURL, Data: c.DeepLinking.Data,
		}, t.now().Add(PickTTL))
		if err != nil {
			return nil, err
		}
		return &Outcome{Landing: "/lti/pick/" + token}, nil
	}
	target := t.target(c, launchOrigin)
	in := classroom.LTILaunch{
		PlatformID: l.Platform.ID, ContextID: c.Context.ID, ContextTitle: firstNonEmpty(c.Context.Title, c.Context.Label),
		Sub: c.Subject, Name: c.DisplayName(), Email: c.Email, Instructor: c.Instructor(),
		ResourceLinkID: c.ResourceLink.ID, Target: target,
	}
	if c.LIS != nil {
		in.StudentID = c.LIS.PersonSourcedID
	}
	if c.NRPS != nil {
		in.MembershipsURL = c.NRPS.ContextMembershipsURL
	}
	if c.AGS != nil && contains(c.AGS.Scope, ScopeScore) && (strings.HasPrefix(target, "exercise:") || strings.HasPrefix(target, "lesson:")) {
		in.LineItemURL = c.AGS.LineItem
	}
	res, err := t.store.LTILaunch(ctx, in)
	if err != nil {
		return nil, err
	}
	if res.Session != nil && len(res.Class.Settings.Revealed) > 0 {
		// A new learner's standing on the exercises revealed before they
		// came waits in the store for the queue (QueueReveals).
		t.Wake()
	}
	out := &Outcome{Class: res.Class, TeacherKey: res.TeacherKey, Session: res.Session}
	if in.Instructor {
		out.Landing = "/class/" + url.PathEscape(res.Class.Code) + "/teacher"
	} else {
		out.Landing = t.landing(target)
	}
	return out, nil
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// target is what the launched link opens: the custom parameter the
// tool's deep links carry, else what target_link_uri points at on this
// tool ("/lessons/SLUG", "/playground?preset=NAME"), else "".
func (t *Tool) target(c *Claims, launchOrigin string) string {
	if v := c.customString(CustomTarget); v != "" && t.known(v) {
		return v
	}
	u, err := url.Parse(c.TargetLinkURI)
	if err != nil || u.Scheme+"://"+u.Host != launchOrigin {
		return ""
	}
	if slug, ok := strings.CutPrefix(u.Path, "/lessons/"); ok && t.known("lesson:"+slug) {
		if ex := u.Query().Get("exercise"); ex != "" && t.known("exercise:"+ex) {
			return "exercise:" + ex
		}
		return "lesson:" + slug
	}
	if u.Path == "/playground" && t.known("preset:"+u.Query().Get("preset")) {
		return "preset:" + u.Query().Get("preset")
	}
	return ""
}

// known reports whether a target names a lesson, exercise or preset
// there is.
func (t *Tool) known(target string) bool {
	kind, id, _ := strings.Cut(target, ":")
	switch kind {
	case "exercise":
		if t.cfg.Lessons != nil {
			_, err := t.cfg.Lessons.Exercise(id)
			return err == nil
		}
	case "lesson":
		if t.cfg.Lessons != nil {
			_, err := t.cfg.Lessons.Lesson(id)
			return err == nil
		}
	case "preset":
		return contains(engine.PresetNames(), id)
	}
	return false
}

// landing is the page a learner lands on for a target.
func (t *Tool) landing(target string) string {
	kind, id, _ := strings.Cut(target, ":")
	switch kind {
	case "exercise":
		if ex, err := t.cfg.Lessons.Exercise(id); err == nil && ex.Lesson != "" {
			return "/lessons/" + url.PathEscape(ex.Lesson) + "#exercises"
		}
		return "/lessons"
	case "lesson":
		return "/lessons/" + url.PathEscape(id)
	case "preset":
		return "/playground?preset=" + url.QueryEscape(id)
	}
	return "/class/me"
}
