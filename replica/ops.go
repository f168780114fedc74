package replica

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/xgr-sidecar/xgr/console"
	"github.com/xgr-sidecar/xgr/internal/httpserve"
)

// errDraining is /readyz's answer while the replica drains.
var errDraining = errors.New("draining: the replica is stopping")

// serveListeners serves /metrics, /healthz and /readyz (and the console
// where a listener asks for it) on every listener of cfg.
func (r *Replica) serveListeners(context.Context) error {
	for _, l := range r.cfg.Listeners {
		var ui *console.Console
		if l.Console {
			ui = r.console
		}
		srv, err := r.serveOps(l, ui)
		if err != nil {
			return &Error{Part: PartListener, Name: l.HTTP.Name, Addr: l.Addr, Usage: true, Err: err}
		}
		r.onClose(func() error { return srv.Shutdown(context.Background()) })
		r.addrs = append(r.addrs, srv.Addr())
	}
	return nil
}

// serveOps serves /metrics, /healthz (the replica can write to Redis
// within the health timeout: a heartbeat SET round trip), /readyz
// (healthy and not draining) and, when ui is not nil, the operator
// console under /ui, on a listener hardened by l.HTTP. A failing check
// answers 503 with the reason in the body.
func (r *Replica) serveOps(l Listener, ui *console.Console) (*httpserve.Server, error) {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(r.metrics.Registry, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, req *http.Request) { r.health(w, req, false) })
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, req *http.Request) { r.health(w, req, true) })
	srv, err := httpserve.Listen(l.Addr, mux, l.HTTP)
	if err != nil {
		return nil, err
	}
	if ui != nil {
		mux.Handle(console.Prefix, ui.Handler())
		mux.Handle("/ui", ui.Handler())
		// Open pages hold event streams: end them, or Shutdown waits for them.
		srv.RegisterOnShutdown(ui.Close)
	}
	go func() {
		if err := srv.Serve(); err != nil {
			r.log.Error("ops server stopped", "err", err)
		}
	}()
	r.log.Info("serving /metrics, /healthz and /readyz", "addr", srv.Addr(), "console", ui != nil)
	return srv, nil
}

// health answers a health check: 200 when Redis acknowledged a write
// within the health timeout (and, for readiness, the replica does not
// drain), else 503 with the reason.
func (r *Replica) health(w http.ResponseWriter, req *http.Request, ready bool) {
	timeout := r.healthTimeout()
	ctx, cancel := context.WithTimeout(req.Context(), timeout)
	defer cancel()
	start := time.Now()
	if err := r.store.Health(ctx, r.name); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("redis did not acknowledge a write within %s (frozen, paused or overloaded): %w", timeout, err)
		}
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	if ready && r.draining.Load() {
		http.Error(w, errDraining.Error(), http.StatusServiceUnavailable)
		return
	}
	fmt.Fprintf(w, "ok: redis write acknowledged in %s\n", time.Since(start).Round(time.Microsecond))
}
