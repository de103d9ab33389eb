package ltitest

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
)

// Dynamic registration, the platform's side: an OpenID configuration
// that names the registration endpoint, and an endpoint that checks the
// registration token, records what the tool asked for, and answers with
// a new client ID and deployment ID.

// RegistrationToken is the token the platform gives a registration; the
// registration endpoint refuses a request without it.
const RegistrationToken = "registration-token-7"

// ConfigURL is the platform's OpenID configuration.
func (p *Platform) ConfigURL() string { return p.Server.URL + "/.well-known/openid-configuration" }

// Registrations returns what the tool sent to the registration endpoint,
// in order.
func (p *Platform) Registrations() []map[string]any {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]map[string]any(nil), p.registrations...)
}

// Closed counts the close messages the registration window got from the
// tool's page.
func (p *Platform) Closed() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// serveRegisterTool is the administrator's page of a platform that adds
// a tool by dynamic registration: it frames the tool's registration URL
// (?tool=), adding its own configuration's address (on the host the page
// was reached at) and a registration token, and waits for the tool's
// close message.
func (p *Platform) serveRegisterTool(w http.ResponseWriter, r *http.Request) {
	tool, err := url.Parse(r.URL.Query().Get("tool"))
	if err != nil {
		http.Error(w, "tool: not a URL", http.StatusBadRequest)
		return
	}
	q := tool.Query()
	q.Set("openid_configuration", "http://"+r.Host+"/.well-known/openid-configuration")
	q.Set("registration_token", RegistrationToken)
	tool.RawQuery = q.Encode()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, `<!doctype html><title>Add a tool</title><h1>Add an LTI Advantage tool</h1>
<iframe id="tool" src="%s" style="width:1000px;height:600px"></iframe>
<script>addEventListener("message", e => { if (e.data && e.data.subject === "org.imsglobal.lti.close") { fetch("/admin/closed", {method: "POST"}); document.getElementById("tool").remove(); } });</script>`,
		html.EscapeString(tool.String()))
}

func (p *Platform) serveClosed(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.closed++
	p.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// ConfigReads counts the reads of the OpenID configuration.
func (p *Platform) ConfigReads() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.configReads
}

func (p *Platform) serveOpenIDConfiguration(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.configReads++
	p.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"issuer": p.Issuer(), "authorization_endpoint": p.Server.URL + "/auth",
		"token_endpoint": p.Server.URL + "/token", "jwks_uri": p.Server.URL + "/jwks",
		"registration_endpoint": p.Server.URL + "/register",
		"https://purl.imsglobal.org/spec/lti-platform-configuration": map[string]any{
			"product_family_code": "ltitest", "version": "1.0",
		},
	})
}

func (p *Platform) serveRegister(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer "+RegistrationToken {
		http.Error(w, `{"error":"invalid_token"}`, http.StatusUnauthorized)
		return
	}
	var reg map[string]any
	if r.Header.Get("Content-Type") != "application/json" || json.NewDecoder(r.Body).Decode(&reg) != nil {
		http.Error(w, `{"error":"invalid_client_metadata"}`, http.StatusBadRequest)
		return
	}
	p.mu.Lock()
	p.registrations = append(p.registrations, reg)
	n := len(p.registrations)
	p.mu.Unlock()
	reg["client_id"] = fmt.Sprintf("dynamic-client-%d", n)
	tool, _ := reg["https://purl.imsglobal.org/spec/lti-tool-configuration"].(map[string]any)
	if tool == nil {
		tool = map[string]any{}
	}
	tool["deployment_id"] = fmt.Sprintf("dynamic-deploy-%d", n)
	reg["https://purl.imsglobal.org/spec/lti-tool-configuration"] = tool
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(reg)
}
