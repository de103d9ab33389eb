package lti

import (
	"slices"
	"strings"

	"github.com/golang-jwt/jwt/v5"
)

// Claim names of LTI 1.3 and its services.
const (
	claimPrefix        = "https://purl.imsglobal.org/spec/lti/claim/"
	ClaimMessageType   = claimPrefix + "message_type"
	ClaimVersion       = claimPrefix + "version"
	ClaimDeploymentID  = claimPrefix + "deployment_id"
	ClaimTargetLinkURI = claimPrefix + "target_link_uri"
	ClaimResourceLink  = claimPrefix + "resource_link"
	ClaimRoles         = claimPrefix + "roles"
	ClaimContext       = claimPrefix + "context"
	ClaimCustom        = claimPrefix + "custom"
	ClaimLIS           = claimPrefix + "lis"
	ClaimAGS           = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
	ClaimNRPS          = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
	ClaimDeepLinking   = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
	ClaimContentItems  = "https://purl.imsglobal.org/spec/lti-dl/claim/content_items"
	ClaimDLData        = "https://purl.imsglobal.org/spec/lti-dl/claim/data"
)

// Message types and the one version the tool speaks.
const (
	MessageResourceLink        = "LtiResourceLinkRequest"
	MessageDeepLinking         = "LtiDeepLinkingRequest"
	MessageDeepLinkingResponse = "LtiDeepLinkingResponse"
	Version                    = "1.3.0"
)

// Scopes of the services.
const (
	ScopeLineItem   = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
	ScopeScore      = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
	ScopeMembership = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
)

// Claims is an LTI id_token's payload, as far as the tool reads it.
type Claims struct {
	jwt.RegisteredClaims
	Nonce         string            `json:"nonce"`
	AZP           string            `json:"azp,omitempty"`
	Name          string            `json:"name,omitempty"`
	GivenName     string            `json:"given_name,omitempty"`
	FamilyName    string            `json:"family_name,omitempty"`
	Email         string            `json:"email,omitempty"`
	MessageType   string            `json:"https://purl.imsglobal.org/spec/lti/claim/message_type"`
	Version       string            `json:"https://purl.imsglobal.org/spec/lti/claim/version"`
	DeploymentID  string            `json:"https://purl.imsglobal.org/spec/lti/claim/deployment_id"`
	TargetLinkURI string            `json:"https://purl.imsglobal.org/spec/lti/claim/target_link_uri,omitempty"`
	ResourceLink  *ResourceLink     `json:"https://purl.imsglobal.org/spec/lti/claim/resource_link,omitempty"`
	Roles         []string          `json:"https://purl.imsglobal.org/spec/lti/claim/roles"`
	Context       *Context          `json:"https://purl.imsglobal.org/spec/lti/claim/context,omitempty"`
	Custom        map[string]any    `json:"https://purl.imsglobal.org/spec/lti/claim/custom,omitempty"`
	LIS           *LIS              `json:"https://purl.imsglobal.org/spec/lti/claim/lis,omitempty"`
	AGS           *AGS              `json:"https://purl.imsglobal.org/spec/lti-ags/claim/endpoint,omitempty"`
	NRPS          *NRPS             `json:"https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice,omitempty"`
	DeepLinking   *DeepLinkSettings `json:"https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings,omitempty"`
}

// ResourceLink is the link in the course that was launched.
type ResourceLink struct {
	ID    string `json:"id"`
	Title string `json:"title,omitempty"`
}

// Context is the course.
type Context struct {
	ID    string   `json:"id"`
	Label string   `json:"label,omitempty"`
	Title string   `json:"title,omitempty"`
	Type  []string `json:"type,omitempty"`
}

// LIS carries the institution's IDs of the user.
type LIS struct {
	PersonSourcedID string `json:"person_sourcedid,omitempty"`
}

// AGS is the Assignment and Grade Services claim.
type AGS struct {
	Scope     []string `json:"scope"`
	LineItems string   `json:"lineitems,omitempty"`
	LineItem  string   `json:"lineitem,omitempty"`
}

// NRPS is the Names and Role Provisioning Services claim.
type NRPS struct {
	ContextMembershipsURL string   `json:"context_memberships_url"`
	ServiceVersions       []string `json:"service_versions,omitempty"`
}

// DeepLinkSettings is what a deep-linking request asks for.
type DeepLinkSettings struct {
	ReturnURL   string   `json:"deep_link_return_url"`
	AcceptTypes []string `json:"accept_types"`
	AcceptMulti bool     `json:"accept_multiple,omitempty"`
	Title       string   `json:"title,omitempty"`
	Data        string   `json:"data,omitempty"`
}

// Instructor reports whether the roles make the user a teacher of the
// course: an instructor of this course (a context role), or an
// administrator (membership, institution and system roles alike). An
// institution's Instructor role is not one: a platform sends it to anyone
// who teaches some course (Canvas does, beside their roles in this one),
// and a learner here who teaches elsewhere is a learner here.
func (c *Claims) Instructor() bool {
	return slices.ContainsFunc(c.Roles, func(r string) bool {
		return slices.Contains(contextInstructor, r) ||
			strings.HasSuffix(r, "#Administrator") || strings.HasSuffix(r, "/Administrator")
	})
}

// contextInstructor are the ways a platform names the Instructor role in
// the course: LTI 1.3's membership role, its deprecated simple name, and
// LTI 1.1's context role.
var contextInstructor = []string{
	"http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor",
	"Instructor",
	"urn:lti:role:ims/lis/Instructor",
}

// DisplayName is the user's name as the platform gives it.
func (c *Claims) DisplayName() string {
	if c.Name != "" {
		return c.Name
	}
	return strings.TrimSpace(c.GivenName + " " + c.FamilyName)
}

// customString is a custom parameter as a string, "" if absent.
func (c *Claims) customString(name string) string {
	if v, ok := c.Custom[name].(string); ok {
		return v
	}
	return ""
}
