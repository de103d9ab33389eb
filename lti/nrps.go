package lti

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"

	"github.com/leaselab/playground/classroom"
)

// MembershipMediaType is the media type of an NRPS membership container.
const MembershipMediaType = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"

// Roster bounds: a page of members is read up to maxRosterBytes, and at
// most maxRosterPages pages are followed.
const (
	maxRosterBytes = 4 << 20
	maxRosterPages = 20
)

// Member is one person of the course's roster, and whether they have
// joined the class by a launch.
type Member struct {
	UserID    string   `json:"user_id"`
	Name      string   `json:"name,omitempty"`
	Email     string   `json:"email,omitempty"`
	StudentID string   `json:"student_id,omitempty"`
	Roles     []string `json:"roles"`
	Status    string   `json:"status,omitempty"`
	// LearnerID is the learner of the class they are, 0 if they have not
	// launched the tool yet.
	LearnerID int64 `json:"learner_id,omitempty"`
}

type membershipContainer struct {
	Members []struct {
		UserID          string   `json:"user_id"`
		Name            string   `json:"name"`
		Email           string   `json:"email"`
		PersonSourcedID string   `json:"lis_person_sourcedid"`
		Roles           []string `json:"roles"`
		Status          string   `json:"status"`
	} `json:"members"`
}

var nextLink = regexp.MustCompile(`<([^>]+)>\s*;\s*rel="?next"?`)

// Roster pulls the course's roster from the platform (Names and Role
// Provisioning Services) for the class made from it; ENOTFOUND when the
// class came from no course, or its platform offers no roster.
func (t *Tool) Roster(ctx context.Context, classID int64) ([]Member, error) {
	lc, err := t.store.LTIContext(ctx, classID)
	if err != nil {
		return nil, err
	}
	if lc.MembershipsURL == "" {
		return nil, classroom.Errorf(classroom.ENOTFOUND, "the course's platform offers no roster (Names and Role Provisioning Services) to this tool")
	}
	tok, err := t.token(ctx, lc.Platform, ScopeMembership)
	if err != nil {
		return nil, classroom.Unavailable("get a token from the platform", err)
	}
	out := []Member{}
	next := lc.MembershipsURL
	for page := 0; next != "" && page < maxRosterPages; page++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, next, nil)
		if err != nil {
			return nil, classroom.Unavailable("read the roster", err)
		}
		req.Header.Set("Accept", MembershipMediaType)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := t.client.Do(req)
		if err != nil {
			return nil, classroom.Unavailable("read the roster", err)
		}
		var mc membershipContainer
		err = json.NewDecoder(io.LimitReader(resp.Body, maxRosterBytes)).Decode(&mc)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, classroom.Unavailable("read the roster", fmt.Errorf("the platform answered %s", resp.Status))
		}
		if err != nil {
			return nil, classroom.Unavailable("read the roster", err)
		}
		for _, m := range mc.Members {
			out = append(out, Member{UserID: m.UserID, Name: m.Name, Email: m.Email, StudentID: m.PersonSourcedID,
				Roles: m.Roles, Status: m.Status, LearnerID: lc.Subs[m.UserID]})
		}
		next = ""
		if mm := nextLink.FindStringSubmatch(resp.Header.Get("Link")); mm != nil && checkURL("link", mm[1]) == nil {
			next = mm[1]
		}
	}
	return out, nil
}
