package lti

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/leaselab/playground/classroom"
)

// MembershipMediaType is the media type of an NRPS membership container.
const MembershipMediaType = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"

// Roster bounds: a page of members is read up to maxRosterBytes, at most
// maxRosterPages pages are followed and maxRosterMembers members kept,
// and a member's name, email or student ID is cut to maxMemberText
// characters. Past a bound the roster says where it stopped
// (Roster.Short) rather than failing or growing without end.
const (
	maxRosterBytes   = 4 << 20
	maxRosterPages   = 20
	maxRosterMembers = 5000
	maxMemberText    = 200
)

// Roster is the course's roster as the platform has it, as far as the
// tool reads it.
type Roster struct {
	Members []Member `json:"members"`
	// Short says why the list stops before the platform's does, "" when
	// it is whole.
	Short string `json:"short,omitempty"`
}

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
// class came from no course, or its platform offers no roster. A first
// page over maxRosterBytes is an error naming the limit; a later one, or
// more pages or members than the tool reads, ends the list early with
// Short saying so.
func (t *Tool) Roster(ctx context.Context, classID int64) (*Roster, error) {
	lc, err := t.store.LTIContext(ctx, classID)
	if err != nil {
		return nil, err
	}
	if lc.MembershipsURL == "" {
		return nil, classroom.Errorf(classroom.ENOTFOUND, "the course's platform offers no roster (Names and Role Provisioning Services) to this tool")
	}
	tok, err := t.token(ctx, lc.Platform, ScopeMembership)
	if err != nil {
		return nil, platformUnavailable("give a token for its roster", err)
	}
	r := &Roster{Members: []Member{}}
	next := lc.MembershipsURL
	for page := 0; next != ""; page++ {
		if page == maxRosterPages {
			r.Short = fmt.Sprintf("the platform's roster has more than %d pages; the tool reads the first %d", maxRosterPages, maxRosterPages)
			break
		}
		mc, link, err := t.rosterPage(ctx, next, tok)
		if errors.Is(err, errRosterPageTooLarge) && page > 0 {
			r.Short = fmt.Sprintf("page %d of the platform's roster is larger than the %d MiB the tool reads a page", page+1, maxRosterBytes>>20)
			break
		}
		if err != nil {
			return nil, platformUnavailable("give its roster", err)
		}
		for _, m := range mc.Members {
			if len(r.Members) == maxRosterMembers {
				r.Short = fmt.Sprintf("the course has more than %d members; the tool lists the first %d", maxRosterMembers, maxRosterMembers)
				return r, nil
			}
			r.Members = append(r.Members, Member{UserID: m.UserID, Name: memberText(m.Name), Email: memberText(m.Email),
				StudentID: memberText(m.PersonSourcedID), Roles: m.Roles, Status: memberText(m.Status), LearnerID: lc.Subs[m.UserID]})
		}
		next = link
	}
	return r, nil
}

// platformUnavailable is the course's platform failing the tool: a 503
// that says what the platform did not do and why, in words a teacher can
// take to its administrator (the platform is not this server's
// database, whose outages classroom.Unavailable words).
func platformUnavailable(what string, err error) *classroom.Error {
	why := strings.ToValidUTF8(err.Error(), "")
	if utf8.RuneCountInString(why) > 300 {
		why = string([]rune(why)[:299]) + "…"
	}
	return &classroom.Error{Code: classroom.EUNAVAILABLE, Err: err,
		Message: fmt.Sprintf("the course's platform did not %s: %s; try again later, or ask its administrator", what, why)}
}

// errRosterPageTooLarge is a roster page over maxRosterBytes.
var errRosterPageTooLarge = fmt.Errorf("a page of the course's roster is larger than the %d MiB the tool reads", maxRosterBytes>>20)

// rosterPage reads one page of the roster, and the next page's address
// from its Link header ("" on the last).
func (t *Tool) rosterPage(ctx context.Context, pageURL, tok string) (*membershipContainer, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, pageURL, nil)
	if err != nil {
		return nil, "", err
	}
	req.Header.Set("Accept", MembershipMediaType)
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := t.client.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, "", fmt.Errorf("the platform answered %s", resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxRosterBytes+1))
	if err != nil {
		return nil, "", err
	}
	if len(body) > maxRosterBytes {
		return nil, "", errRosterPageTooLarge
	}
	var mc membershipContainer
	if err := json.Unmarshal(body, &mc); err != nil {
		return nil, "", fmt.Errorf("the roster page is not a membership container: %w", err)
	}
	next := ""
	if mm := nextLink.FindStringSubmatch(resp.Header.Get("Link")); mm != nil && checkURL("link", mm[1]) == nil {
		next = mm[1]
	}
	return &mc, next, nil
}

// memberText is a member's name, email or student ID as the roster keeps
// it: valid UTF-8, at most maxMemberText characters.
func memberText(s string) string {
	s = strings.ToValidUTF8(s, "")
	if utf8.RuneCountInString(s) <= maxMemberText {
		return s
	}
	return string([]rune(s)[:maxMemberText-1]) + "…"
}
