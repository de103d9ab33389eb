// Package web serves the playground: pages rendered with templ, the JSON
// API, the websocket that runs scenarios live, and the embedded static
// files.
package web

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/leaselab/playground/lessons"
	"github.com/leaselab/playground/static"
)

// Server is the playground's HTTP server. Create it with NewServer, serve
// its Handler, and call Shutdown to end live runs before exiting.
type Server struct {
	cfg    Config
	log    *slog.Logger
	echo   *echo.Echo
	runs   *slots // live simulations, websocket and API together
	conns  *slots // open websockets
	assets string // version of the static files, for cache-busting URLs

	// ctx ends every live session when the server shuts down.
	ctx      context.Context
	cancel   context.CancelFunc
	sessions sync.WaitGroup
}

// NewServer builds a server from cfg (zero bounds take their defaults).
func NewServer(cfg Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	if cfg.Lessons == nil {
		cat, err := lessons.Default()
		if err != nil {
			return nil, fmt.Errorf("lessons: %w", err)
		}
		cfg.Lessons = cat
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		cfg:    cfg,
		log:    cfg.Logger,
		runs:   newSlots(cfg.MaxLiveRuns),
		conns:  newSlots(cfg.MaxConnections),
		assets: assetVersion(static.FS),
		ctx:    ctx,
		cancel: cancel,
	}
	s.echo = s.routes()
	return s, nil
}

// Handler returns the server's HTTP handler.
func (s *Server) Handler() http.Handler { return s.echo }

// LiveRuns reports how many simulations are running now.
func (s *Server) LiveRuns() int { return s.runs.inUse() }

// Shutdown ends every live run and websocket (telling each browser the
// server is going away) and waits for them to finish cleaning up, or for
// ctx to end. Stop accepting new connections first (http.Server.Shutdown):
// hijacked websockets are not closed by it.
func (s *Server) Shutdown(ctx context.Context) error {
	s.cancel()
	done := make(chan struct{})
	go func() { s.sessions.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *Server) routes() *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.handleError
	e.Use(middleware.Recover())
	e.Use(middleware.RequestLoggerWithConfig(middleware.RequestLoggerConfig{
		LogMethod: true, LogURI: true, LogStatus: true, LogLatency: true, LogRemoteIP: true,
		HandleError: true,
		LogValuesFunc: func(c echo.Context, v middleware.RequestLoggerValues) error {
			s.log.LogAttrs(c.Request().Context(), slog.LevelInfo, "request",
				slog.String("method", v.Method), slog.String("uri", v.URI), slog.Int("status", v.Status),
				slog.Duration("latency", v.Latency), slog.String("remote", v.RemoteIP))
			return nil
		},
	}))
	e.Use(securityHeaders)

	e.GET("/", s.home)
	e.GET("/playground", s.playground)
	e.GET("/healthz", s.healthz)
	e.GET("/api/presets", s.apiPresets)
	e.POST("/api/run", s.apiRun)
	e.GET("/ws/run", s.wsRun)
	s.lessonRoutes(e)
	e.GET("/static/:version/*", s.staticFile)
	s.classRoutes(e)
	e.GET("/favicon.ico", func(c echo.Context) error {
		return c.Redirect(http.StatusMovedPermanently, s.asset("img/favicon.svg"))
	})
	return e
}

// securityHeaders keeps pages from being framed or running foreign code.
// Scripts come only from /static, so no inline script is ever needed.
func securityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		return next(c)
	}
}

func (s *Server) healthz(c echo.Context) error {
	body := map[string]any{"status": "ok", "live_runs": s.runs.inUse(), "connections": s.conns.inUse()}
	if s.cfg.Classroom != nil {
		ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
		defer cancel()
		if err := s.cfg.Classroom.Ping(ctx); err != nil {
			// A replica that cannot reach its store must leave the load
			// balancer's rotation: it would lose every answer.
			s.log.Warn("healthz: classroom store does not answer", slog.Any("err", err))
			body["status"], body["store"] = "unavailable", "not answering"
			return c.JSON(http.StatusServiceUnavailable, body)
		}
		body["store"] = "ok"
	}
	return c.JSON(http.StatusOK, body)
}

// asset is the URL of a static file, with the version that lets browsers
// cache it for good.
func (s *Server) asset(name string) string { return "/static/" + s.assets + "/" + name }

func (s *Server) staticFile(c echo.Context) error {
	name := c.Param("*")
	data, err := fs.ReadFile(static.FS, name)
	if err != nil || name == "" {
		return echo.NewHTTPError(http.StatusNotFound, "no such file")
	}
	if c.Param("version") == s.assets {
		c.Response().Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		c.Response().Header().Set("Cache-Control", "no-cache")
	}
	http.ServeContent(c.Response(), c.Request(), name, time.Time{}, bytes.NewReader(data))
	return nil
}

// assetVersion hashes every static file, so a new build gets new URLs.
func assetVersion(fsys fs.FS) string {
	h := sha256.New()
	var names []string
	_ = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, p)
		}
		return nil
	})
	sort.Strings(names)
	for _, n := range names {
		data, _ := fs.ReadFile(fsys, n)
		h.Write([]byte(n))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}
