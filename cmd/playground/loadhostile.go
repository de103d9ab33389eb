package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/leaselab/playground/engine"
	"github.com/leaselab/playground/web"
)

// hostileModes are the attacks `loadtest --hostile` plays beside the
// class, one per hole the server closed (docs/load.md): each from its own
// loopback address (127.0.0.2 and up; the class is 127.0.0.1), except
// made-up-ids, which plays a script behind the class's own NAT.
var hostileModes = map[string]func(h *hostile, ctx context.Context){
	"idle-sockets":  (*hostile).idleSockets,
	"made-up-ids":   (*hostile).madeUpIDs,
	"paused-live":   (*hostile).pausedLive,
	"dense-live":    (*hostile).denseLive,
	"empty-classes": (*hostile).emptyClasses,
	"cross-site":    (*hostile).crossSite,
}

func hostileNames() string {
	var names []string
	for n := range hostileModes {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// hostile is one attacker and what the server answered it, by outcome.
type hostile struct {
	mode string
	base string
	mu   sync.Mutex
	got  map[string]int
}

func (h *hostile) count(outcome string) {
	h.mu.Lock()
	h.got[outcome]++
	h.mu.Unlock()
}

// summary is the attacker's outcomes, "outcome n, ...", in a fixed order.
func (h *hostile) summary() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var parts []string
	for k, n := range h.got {
		parts = append(parts, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// startHostile starts the attack and returns a function that stops it
// and waits for it (calling it again does nothing).
func startHostile(ctx context.Context, mode, base string) (*hostile, func()) {
	h := &hostile{mode: mode, base: strings.TrimRight(base, "/"), got: map[string]int{}}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); hostileModes[mode](h, ctx) }()
	var once sync.Once
	return h, func() { once.Do(func() { cancel(); <-done }) }
}

// from is an HTTP client whose connections come from ip.
func from(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 10 * time.Second}
	return &http.Client{Timeout: 2 * time.Minute, Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 256}}
}

func (h *hostile) dial(ctx context.Context, ip string, header http.Header) (*websocket.Conn, int) {
	d := websocket.Dialer{NetDialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}).DialContext, HandshakeTimeout: 10 * time.Second}
	conn, res, err := d.DialContext(ctx, "ws"+strings.TrimPrefix(h.base, "http")+"/ws/run", header)
	if err != nil {
		if res != nil {
			return nil, res.StatusCode
		}
		return nil, 0
	}
	return conn, http.StatusSwitchingProtocols
}

// hold keeps a socket open until ctx ends, answering pings (a read loop
// does) and counting how it was closed.
func (h *hostile) hold(ctx context.Context, conn *websocket.Conn, wg *sync.WaitGroup, onMessage func(map[string]any)) {
	defer wg.Done()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	for {
		var m map[string]any
		if err := conn.ReadJSON(&m); err != nil {
			if ce, ok := err.(*websocket.CloseError); ok {
				h.count(fmt.Sprintf("closed %d (%s)", ce.Code, ce.Text))
			}
			return
		}
		if onMessage != nil {
			onMessage(m)
		}
	}
}

// idleSockets keeps 420 websockets open that never run anything, opening
// a new one whenever one is closed or refused.
func (h *hostile) idleSockets(ctx context.Context) {
	var wg sync.WaitGroup
	for range 420 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				conn, status := h.dial(ctx, "127.0.0.2", nil)
				if conn == nil {
					h.count(fmt.Sprintf("refused %d", status))
					sleepCtx(ctx, time.Second)
					continue
				}
				h.count("opened")
				var inner sync.WaitGroup
				inner.Add(1)
				h.hold(ctx, conn, &inner, nil)
			}
		}()
	}
	wg.Wait()
}

// liveRuns opens n websockets from 127.0.0.2, each starting scenario at
// speed (paused if asked), again whenever its run ends.
func (h *hostile) liveRuns(ctx context.Context, n int, scenario json.RawMessage, speed float64, paused bool) {
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				conn, status := h.dial(ctx, "127.0.0.2", nil)
				if conn == nil {
					h.count(fmt.Sprintf("refused %d", status))
					sleepCtx(ctx, time.Second)
					continue
				}
				start := map[string]any{"type": "start", "scenario": scenario, "speed": speed, "paused": paused}
				if conn.WriteJSON(start) != nil {
					conn.Close()
					continue
				}
				var inner sync.WaitGroup
				inner.Add(1)
				h.hold(ctx, conn, &inner, func(m map[string]any) {
					switch m["type"] {
					case "queued":
						if m["position"] == float64(1) {
							h.count("queued")
						}
					case "summary":
						h.count("runs ended")
						_ = conn.WriteJSON(start)
					case "error":
						h.count("error " + fmt.Sprint(m["code"]))
					}
				})
			}
		}()
	}
	wg.Wait()
}

// pausedLive holds 150 live places with runs paced at 0.1x and paused.
func (h *hostile) pausedLive(ctx context.Context) {
	p, _ := engine.LoadPreset("paused-holder")
	sc, _ := json.Marshal(p.Scenario)
	h.liveRuns(ctx, 150, sc, 0.1, true)
}

// denseLive runs 150 dense scenarios (ten clients renewing every 10 ms)
// at 50x, over and over.
func (h *hostile) denseLive(ctx context.Context) {
	one := int64(1)
	sc := engine.Scenario{Seed: 1, Fencing: true, Until: engine.Ms(60000), Lock: engine.Lock{Lease: engine.Ms(200)}}
	for i := range 10 {
		c := engine.Client{Name: fmt.Sprintf("c%d", i), RenewEvery: engine.Ms(10), RetryEvery: engine.Ms(10), OnRefused: "retry"}
		for range 12 {
			c.Steps = append(c.Steps, engine.Step{Do: "acquire"}, engine.Step{Do: "work", For: engine.Ms(50)}, engine.Step{Do: "write", Set: &one})
		}
		sc.Clients = append(sc.Clients, c)
	}
	data, _ := json.Marshal(sc)
	h.liveRuns(ctx, 150, data, 50, false)
}

// madeUpIDs sends heavy API runs from the class's own address under 100
// made-up visitor ids, over and over.
func (h *hostile) madeUpIDs(ctx context.Context) {
	p, _ := engine.LoadPreset("nightly-total")
	body, _ := json.Marshal(p.Scenario)
	client := from("127.0.0.1")
	var wg sync.WaitGroup
	for range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := make([]byte, 16)
			rand.Read(id)
			cookie := &http.Cookie{Name: web.VisitorCookie, Value: base64.RawURLEncoding.EncodeToString(id)}
			for ctx.Err() == nil {
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, h.base+"/api/run", bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.AddCookie(cookie)
				res, err := client.Do(req)
				if err != nil {
					continue
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				h.count(fmt.Sprintf("answered %d", res.StatusCode))
				if res.StatusCode != http.StatusOK {
					sleepCtx(ctx, 50*time.Millisecond)
				}
			}
		}()
	}
	wg.Wait()
}

// emptyClasses has 250 addresses make six classes each, then a teacher
// from a new address makes one.
func (h *hostile) emptyClasses(ctx context.Context) {
	post := func(c *http.Client, name string) int {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, h.base+"/api/classes", strings.NewReader(`{"name":"`+name+`"}`))
		req.Header.Set("Content-Type", "application/json")
		res, err := c.Do(req)
		if err != nil {
			return 0
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode
	}
	var wg sync.WaitGroup
	ips := make(chan string)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ip := range ips {
				c := from(ip)
				for i := range 6 {
					h.count(fmt.Sprintf("answered %d", post(c, fmt.Sprintf("spam %s %d", ip, i))))
				}
			}
		}()
	}
	for i := range 250 {
		ips <- fmt.Sprintf("127.0.1.%d", 2+i)
	}
	close(ips)
	wg.Wait()
	h.count(fmt.Sprintf("a new teacher's class %d", post(from("127.0.2.2"), "Monday")))
}

// crossSite fetches history links as images on another site would.
func (h *hostile) crossSite(ctx context.Context) {
	p, _ := engine.LoadPreset("raft-failover")
	s, _ := web.EncodeShare(p.Scenario)
	client := from("127.0.0.2")
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, h.base+"/api/history?s="+url.QueryEscape(s), nil)
				req.Header.Set("Sec-Fetch-Site", "cross-site")
				req.Header.Set("Sec-Fetch-Mode", "no-cors")
				req.Header.Set("Sec-Fetch-Dest", "image")
				res, err := client.Do(req)
				if err != nil {
					continue
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				h.count(fmt.Sprintf("answered %d", res.StatusCode))
				sleepCtx(ctx, 10*time.Millisecond)
			}
		}()
	}
	wg.Wait()
}

func sleepCtx(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
