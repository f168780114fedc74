package console

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/authority"
	"github.com/xgr-sidecar/xgr/evidence"
	"github.com/xgr-sidecar/xgr/grant"
	"github.com/xgr-sidecar/xgr/indexer"
	"github.com/xgr-sidecar/xgr/indexstore"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/rulesource"
)

// Prefix is the path the console is served under.
const Prefix = "/ui/"

// Config is what the console reads and acts through.
type Config struct {
	// Store holds the sessions.
	Store *joinstore.Store
	// Redis is the client the Store uses (optional): the overview reads
	// each server's INFO memory with it. Nil: memory is not shown.
	Redis redis.UniversalClient
	// Source gives the orchestrations of sessions (orchestration view);
	// nil: the view says it cannot load them.
	Source reactor.Source
	// Rules loads the steps' rules (optional): the wake-by-step form is
	// built from a rule's payload schema.
	Rules rulesource.Source
	// Bundles reads the steps' log bundles (optional; nil: the step view
	// says this replica reads none) and Grants their readers (optional).
	// The console reads them as `xgr session log` does, as an operator; it
	// holds no read key and opens no encrypted bundle.
	Bundles *evidence.Store
	Grants  *grant.Store
	// Authority checks an owner's authority on a chain registry (optional):
	// without it the page starts sessions of file registries only.
	Authority *authority.Checker
	// Chain, ChainID and Index describe the chain index (index view); a
	// nil Index means the replica follows no chain.
	Chain   indexer.HeadReader
	ChainID uint64
	Index   *indexstore.Index
	// Gateway is the JSON-RPC gateway's handler: when set, the page's
	// actions post permits its wallet signed to it under /ui/rpc.
	// ControlContract is the control-domain verifyingContract permits are
	// signed for.
	Gateway         http.Handler
	ControlContract common.Address
	// DirectActions lets the page kill and wake without permits, as an
	// operator with access to Redis (only on a replica started for it,
	// listening on loopback).
	DirectActions bool
	// Tick is how often open pages are told to refresh even when this
	// replica saw no event (other replicas' work; default 2s).
	Tick time.Duration
	Log  *slog.Logger
	// Now is the clock of permit expiries and direct actions (nil:
	// time.Now).
	Now func() time.Time
}

// Console serves the operator console.
type Console struct {
	cfg Config
	hub *hub
	mux *http.ServeMux
}

// New returns a console on cfg (cfg.Store is required).
func New(cfg Config) *Console {
	if cfg.Tick <= 0 {
		cfg.Tick = 2 * time.Second
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	c := &Console{cfg: cfg, hub: newHub(), mux: http.NewServeMux()}
	c.routes()
	return c
}

func (c *Console) routes() {
	m := c.mux
	m.Handle("GET /ui/", assetHandler())
	m.HandleFunc("GET /ui/api/config", c.handleConfig)
	m.HandleFunc("GET /ui/api/owners", c.handleOwners)
	m.HandleFunc("GET /ui/api/quota", c.handleQuota)
	m.HandleFunc("GET /ui/api/overview", c.handleOverview)
	m.HandleFunc("GET /ui/api/sessions", c.handleSessions)
	m.HandleFunc("GET /ui/api/session", sessionRoute(c.handleSession))
	m.HandleFunc("GET /ui/api/orchestration", sessionRoute(c.handleOrchestration))
	m.HandleFunc("GET /ui/api/timeline", sessionRoute(c.handleTimeline))
	m.HandleFunc("GET /ui/api/stepform", sessionRoute(c.handleStepForm))
	m.HandleFunc("GET /ui/api/steplog", sessionRoute(c.handleStepLog))
	m.HandleFunc("GET /ui/api/index", c.handleIndex)
	m.HandleFunc("GET /ui/api/events", c.handleEvents)
	m.HandleFunc("POST /ui/api/permit", c.handlePermit)
	m.HandleFunc("POST /ui/api/kill", c.handleKill)
	m.HandleFunc("POST /ui/api/wake", c.handleWake)
	m.HandleFunc("POST /ui/api/bulk", c.handleBulk)
	m.HandleFunc("POST /ui/api/start", c.handleStart)
	m.HandleFunc("POST /ui/rpc", c.handleRPC)
}

// Handler serves the console; mount it under Prefix ("/ui" redirects to it).
func (c *Console) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/ui" {
			http.Redirect(w, r, Prefix, http.StatusMovedPermanently)
			return
		}
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Referrer-Policy", "no-referrer")
		// Everything the page needs comes from here: no other origin is
		// contacted (sidecars run in closed networks).
		w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'")
		c.mux.ServeHTTP(w, r)
	})
}

// Record is a reactor.Manager OnEvent hook: the event goes to the open
// pages and into the session's timeline.
func (c *Console) Record(root joinstore.Root, e reactor.Event) { c.hub.publish(root, e) }

// Close ends the event streams of open pages (call it before shutting the
// HTTP server down, or from its RegisterOnShutdown).
func (c *Console) Close() { c.hub.close() }

// actionMode is how the page acts: "direct", "permit" or "off".
func (c *Console) actionMode() string {
	switch {
	case c.cfg.DirectActions:
		return "direct"
	case c.cfg.Gateway != nil:
		return "permit"
	}
	return "off"
}

// ctx bounds one API request's Redis reads.
func reqCtx(r *http.Request) (context.Context, context.CancelFunc) {
	return context.WithTimeout(r.Context(), 10*time.Second)
}
