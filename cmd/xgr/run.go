package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/redis/go-redis/v9"
	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
)

func runCommand() *cli.Command {
	return &cli.Command{
		Name:  "run",
		Usage: "run the session manager: execute sessions stored in Redis until SIGTERM",
		Description: `One replica of the session manager. Any number of replicas may share one
Redis (or Redis Cluster): each session runs on the replica holding its root
lease, and the sessions of a replica that dies are taken over when its leases
expire. SIGINT/SIGTERM drain: executions in flight finish and are committed,
leases are given back, then xgr exits.

Orchestrations come from --ostc files (by their id). Steps run through the
scripted executor of --outcomes (see xgr simulate); the XRC-137 executor and
chain following come with the indexer.

/metrics serves Prometheus metrics and /healthz answers 200 while Redis does.

Example:
   xgr run --redis redis://127.0.0.1:6379/0 --ostc flow.json --outcomes outcomes.json`,
		Flags: append(redisFlags(),
			&cli.StringSliceFlag{Name: "ostc", EnvVars: []string{"XGR_OSTC"}, Usage: "orchestration file to serve (repeatable)"},
			&cli.StringFlag{Name: "outcomes", EnvVars: []string{"XGR_OUTCOMES"}, Usage: "scripted outcomes file for the steps"},
			&cli.StringFlag{Name: "replica", EnvVars: []string{"XGR_REPLICA"}, Usage: "this replica's name in leases (default host-pid)"},
			&cli.StringFlag{Name: "listen", Value: "127.0.0.1:9464", EnvVars: []string{"XGR_LISTEN"}, Usage: "address of /metrics and /healthz (empty: off)"},
			&cli.DurationFlag{Name: "poll", Value: 200 * time.Millisecond, EnvVars: []string{"XGR_POLL"}, Usage: "how often to look for sessions"},
			&cli.DurationFlag{Name: "root-lease", Value: 10 * time.Second, EnvVars: []string{"XGR_ROOT_LEASE"}, Usage: "root lease duration"},
			&cli.DurationFlag{Name: "proc-lease", Value: 30 * time.Second, EnvVars: []string{"XGR_PROC_LEASE"}, Usage: "inFlight lease duration of an execution"},
			&cli.IntFlag{Name: "max-sessions", EnvVars: []string{"XGR_MAX_SESSIONS"}, Usage: "most sessions this replica runs at once (0 = no cap)"},
		),
		Action: runAction,
	}
}

func runAction(c *cli.Context) error {
	var orchs []*registry.Orchestration
	for _, f := range c.StringSlice("ostc") {
		o, err := loadOSTC(f)
		if err != nil {
			return err
		}
		orchs = append(orchs, o)
	}
	if c.String("outcomes") == "" {
		return cli.Exit("run: --outcomes is required until the XRC-137 executor is wired in", 2)
	}
	raw, err := os.ReadFile(c.String("outcomes"))
	if err != nil {
		return cli.Exit(err.Error(), 2)
	}
	exec, err := reactor.ParseOutcomes(raw)
	if err != nil {
		return cli.Exit("run: "+err.Error(), 2)
	}
	rdb, err := openRedis(c)
	if err != nil {
		return cli.Exit(err.Error(), 2)
	}
	defer rdb.Close()
	replica := c.String("replica")
	if replica == "" {
		host, _ := os.Hostname()
		replica = host + "-" + strconv.Itoa(os.Getpid())
	}
	store := joinstore.New(rdb, joinstore.Config{SessionTTL: sessionTTL()})
	if err := store.Preload(c.Context); err != nil {
		return cli.Exit("run: redis: "+err.Error(), 1)
	}
	events := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "xgr_events_total", Help: "Session timeline events by type."}, []string{"type"})
	m := &reactor.Manager{Store: store, Source: reactor.NewStaticSource(orchs...), Exec: exec, Replica: replica,
		RootLease: c.Duration("root-lease"), ProcLease: c.Duration("proc-lease"), Poll: c.Duration("poll"), MaxRoots: c.Int("max-sessions"),
		Log:     slog.Default(),
		OnEvent: func(_ joinstore.Root, e reactor.Event) { events.WithLabelValues(e.Type).Inc() }}
	reg := prometheus.NewRegistry()
	reg.MustRegister(events, prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "xgr_sessions_running", Help: "Sessions this replica runs now."},
		func() float64 { return float64(m.Running()) }))
	if addr := c.String("listen"); addr != "" {
		srv, err := serveOps(addr, reg, rdb)
		if err != nil {
			return cli.Exit("run: "+err.Error(), 2)
		}
		defer srv.Shutdown(context.WithoutCancel(c.Context))
	}
	slog.Info("session manager running", "replica", replica, "orchestrations", len(orchs))
	err = m.Run(c.Context)
	slog.Info("session manager stopped", "replica", replica)
	return err
}

// serveOps serves /metrics and /healthz.
func serveOps(addr string, reg *prometheus.Registry, rdb redis.UniversalClient) (*http.Server, error) {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := rdb.Ping(ctx).Err(); err != nil {
			http.Error(w, "redis: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			slog.Error("ops server stopped", "err", err)
		}
	}()
	slog.Info("serving /metrics and /healthz", "addr", l.Addr().String())
	return srv, nil
}
