package lti

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/time/rate"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/lessons"
)

// Config is what a Tool needs.
type Config struct {
	// Store keeps platforms, keys, logins, nonces and the score queue.
	Store classroom.LTIStore
	// Client makes the tool's requests to platforms (JWKS, tokens,
	// scores, rosters); nil uses one with a 15-second timeout. A send of
	// a score (its token and its post) is bounded by SendTimeout as well,
	// whatever this client's timeout, even none.
	Client *http.Client
	// Now is the clock of token lifetimes, logins and the queue's
	// backoff; nil means time.Now.
	Now func() time.Time
	// AfterFunc runs f once d has passed by the clock of Now, unless
	// stop is called first (as time.AfterFunc): it ends a send at its
	// bound (SendTimeout). nil means time.AfterFunc, with Now; a test
	// that moves Now by hand gives one that fires as it moves it.
	AfterFunc func(d time.Duration, f func()) (stop func() bool)
	// Logger receives the queue's failures; nil discards them.
	Logger *slog.Logger
	// Lessons is the catalog a link's lessons and exercises come from.
	Lessons *lessons.Catalog
}

// Tool is the playground as an LTI tool. Create it with New and Close it
// to stop refreshing platforms' key sets.
type Tool struct {
	cfg    Config
	store  classroom.LTIStore
	client *http.Client
	now    func() time.Time
	// afterFunc is Config.AfterFunc.
	afterFunc func(d time.Duration, f func()) (stop func() bool)
	log       *slog.Logger

	ctx    context.Context // ends the key sets' refreshes
	cancel context.CancelFunc

	// ksMu guards the key sets, whose first read fetches a JWKS: apart
	// from mu, so that pages (FrameAncestors) never wait for a platform.
	ksMu      sync.Mutex
	keysets   map[string]*keyset       // platform JWKS URL -> cached key set
	refreshes map[string]*rate.Limiter // platform JWKS URL -> fetches for unknown kids

	mu       sync.Mutex
	signing  *signingKeys // the tool's keys, read a while ago
	frames   []string     // registered platforms' frame origins
	framesAt time.Time
	tokens   map[string]cachedToken // platform ID and scopes -> access token

	wake chan struct{} // a score was queued
}

type cachedToken struct {
	tok     *oauth2.Token
	expires time.Time // by the tool's clock
}

// New makes a tool on cfg.Store.
func New(cfg Config) *Tool {
	t := &Tool{cfg: cfg, store: cfg.Store, client: cfg.Client, now: cfg.Now, log: cfg.Logger,
		keysets: map[string]*keyset{}, refreshes: map[string]*rate.Limiter{}, tokens: map[string]cachedToken{}, wake: make(chan struct{}, 1)}
	if t.client == nil {
		t.client = &http.Client{Timeout: 15 * time.Second}
	}
	if t.now == nil {
		t.now = time.Now
	}
	t.afterFunc = cfg.AfterFunc
	if t.afterFunc == nil {
		t.afterFunc = func(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }
	}
	if t.log == nil {
		t.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	t.ctx, t.cancel = context.WithCancel(context.Background())
	return t
}

// Close stops the key sets' refreshes and any running queue.
func (t *Tool) Close() { t.cancel() }

// Store is the tool's store.
func (t *Tool) Store() classroom.LTIStore { return t.store }
