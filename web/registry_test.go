package web_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web"
)

// registerToy registers, from this test file, a backend the page has never
// heard of: the single server's service and protocol under a new name,
// label and words, and removes it when the test ends.
func registerToy(t *testing.T) {
	t.Helper()
	b, ok := engine.LookupBackend(engine.BackendSingle)
	if !ok {
		t.Fatal("no single backend to copy")
	}
	b.Name, b.Label, b.Follower = "toy-server", "Toy lock server", "toy-role"
	if err := engine.RegisterBackend(b); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { engine.UnregisterBackend("toy-server") })
}

// TestPageControlsComeFromTheRegistry: the playground's backend menu and
// the catalog the page's controls read offer a backend registered after
// the server started, in its entry's words, and a run of it is served.
func TestPageControlsComeFromTheRegistry(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	_, before := get(t, ts.URL+"/playground")
	if strings.Contains(before, "Toy lock server") {
		t.Fatal("the toy is offered before it is registered")
	}
	registerToy(t)
	status, body := get(t, ts.URL+"/playground")
	if status != http.StatusOK {
		t.Fatalf("status %d", status)
	}
	doc := parseHTML(t, body)
	menu := oneByTestID(t, doc, "backend")
	var offered []string
	for _, o := range findAll(menu, func(n *html.Node) bool { return n.Data == "option" }) {
		v, _ := attr(o, "value")
		offered = append(offered, v+"="+text(o))
	}
	if !slices.Contains(offered, "toy-server=Toy lock server") {
		t.Errorf("backend menu offers %v, not the toy", offered)
	}
	data := findAll(doc, func(n *html.Node) bool { v, _ := attr(n, "id"); return v == "playground-data" })
	if len(data) != 1 {
		t.Fatal("no playground-data on the page")
	}
	var pd struct {
		Catalog web.Catalog `json:"catalog"`
	}
	if err := json.Unmarshal([]byte(text(data[0])), &pd); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(pd.Catalog.Backends, func(b web.BackendKind) bool { return b.Name == "toy-server" })
	if i < 0 {
		t.Fatalf("the controls' catalog lacks the toy: %+v", pd.Catalog.Backends)
	}
	if k := pd.Catalog.Backends[i]; !slices.Equal(k.Nodes, []int{1}) || k.DefaultNodes != 1 || !k.Fencing || !slices.Equal(k.Settings, []string{"persist_every", "lock_delay"}) {
		t.Errorf("toy's controls: %+v", k)
	}
	status, out := post(t, ts.URL+"/api/run", `{"lock":{"backend":"toy-server"},"clients":[{"name":"a","steps":[{"do":"acquire"},{"do":"release"}]}]}`)
	if status != http.StatusOK || !strings.Contains(string(out), `"kind":"granted"`) {
		t.Errorf("a run of the toy: %d %s", status, out)
	}
}

// TestStateNamesTheToysRole: the state panel names a node that does not
// lead by its backend's entry.
func TestStateNamesTheToysRole(t *testing.T) {
	registerToy(t)
	s := web.NewState(engine.Scenario{Lock: engine.Lock{Backend: "toy-server", Nodes: 1},
		Clients: []engine.Client{{Name: "a", Steps: []engine.Step{{Do: engine.StepAcquire}}}}})
	if len(s.Nodes) != 1 || s.Nodes[0].Role != "toy-role" {
		t.Errorf("nodes %+v, want node-1 as toy-role", s.Nodes)
	}
}

// TestOptionInputsTakeTheEntrysBounds: the copy-lag input goes as far as
// the backends' entries allow, and a backend registered with a longer lag
// raises it.
func TestOptionInputsTakeTheEntrysBounds(t *testing.T) {
	ts, _ := startServer(t, web.Config{})
	lagMax := func() string {
		_, body := get(t, ts.URL+"/playground")
		v, _ := attr(oneByTestID(t, parseHTML(t, body), "lag"), "max")
		return v
	}
	if got := lagMax(); got != "60000" {
		t.Errorf("copy lag input's max %s, want async-replica's 60000", got)
	}
	b, _ := engine.LookupBackend(engine.BackendAsyncReplica)
	b.Name = "slow-replica"
	b.Options[0].Max = 90_000
	if err := engine.RegisterBackend(b); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { engine.UnregisterBackend("slow-replica") })
	if got := lagMax(); got != "90000" {
		t.Errorf("copy lag input's max %s, want the slow replica's 90000", got)
	}
}
