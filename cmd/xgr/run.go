package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/authority"
	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/console"
	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/indexer"
	"github.com/xgr-sidecar/xgr/indexstore"
	"github.com/xgr-sidecar/xgr/internal/httpserve"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/metric"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/replica"
	"github.com/xgr-sidecar/xgr/rpc"
	"github.com/xgr-sidecar/xgr/rule"
	"github.com/xgr-sidecar/xgr/rulesource"
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

With --rpc, the replica also follows the chain: it indexes the XRC-729
registries of --config into the verified cache and starts a session for each
confirmed trigger event (see "xgr index status"). Orchestrations come from
that cache (falling back to the chain) and from --ostc files (by their id).
Steps run their XRC-137 rules: read from the rule contracts over --rpc
(verified against ruleHash, cached by hash) or from a --rules directory (see
xgr simulate); --outcomes scripts the steps no rule covers.

/ui serves the operator console (docs/console.md; --ui=false turns it
off, --ui-actions lets it kill and wake without permits on a loopback
--listen; it has no login, so a --listen that is not loopback needs
--ui-public and an authenticating proxy in front, see docs/operating.md).
/metrics serves Prometheus metrics (also on --metrics-listen); /healthz answers 200 while Redis
acknowledges a write within --health-timeout (503 with the reason
otherwise: out of memory, read-only, paused, frozen); /readyz also fails
while the replica drains.

With --rpc-listen (and --rpc: permits are checked against the chain), the
replica serves the xgr_* JSON-RPC gateway over HTTP and WebSocket: clients
start sessions with EIP-712 SessionPermits signed by the XRC-729 owner, and
kill, wake and list them with control permits (see docs/rpc.md).

Example:
   xgr run --redis redis://127.0.0.1:6379/0 --ostc flow.json --outcomes outcomes.json`,
		Flags: append(append(redisFlags(),
			&cli.StringFlag{Name: "rpc", EnvVars: []string{"XGR_RPC"}, Usage: "node to follow (http, ws or IPC); empty: no chain following"},
			&cli.StringFlag{Name: "config", Aliases: []string{"c"}, EnvVars: []string{"XGR_CONFIG"}, Usage: "YAML config: registries, finality, triggers, addresses (rule aliases)"},
			&cli.DurationFlag{Name: "index-poll", Value: time.Second, EnvVars: []string{"XGR_INDEX_POLL"}, Usage: "how often to look for new blocks at the head"},
			&cli.StringSliceFlag{Name: "ostc", EnvVars: []string{"XGR_OSTC"}, Usage: "orchestration file to serve (repeatable)"},
			&cli.StringFlag{Name: "rules", EnvVars: []string{"XGR_RULES"}, Usage: "directory of rule documents by reference (see xgr simulate --rules)"},
			&cli.StringFlag{Name: "outcomes", EnvVars: []string{"XGR_OUTCOMES"}, Usage: "scripted outcomes for steps no rule covers"},
			allowHostFlag(), rpcBackendFlag(),
			&cli.StringFlag{Name: "replica", EnvVars: []string{"XGR_REPLICA"}, Usage: "this replica's name in leases (default host-pid)"},
			&cli.StringFlag{Name: "listen", Value: "127.0.0.1:9464", EnvVars: []string{"XGR_LISTEN"}, Usage: "address of /metrics, /healthz, /readyz and the console /ui (empty: off)"},
			&cli.StringFlag{Name: "metrics-listen", EnvVars: []string{"XGR_METRICS_LISTEN"}, Usage: "also serve /metrics, /healthz and /readyz, never the console, on this address (e.g. for a scraper on another host; empty: off)"},
			&cli.BoolFlag{Name: "require-aof", EnvVars: []string{"XGR_REQUIRE_AOF"}, Usage: "refuse to start unless Redis runs with appendonly yes and appendfsync always (or everysec with --accept-aof-everysec)"},
			&cli.BoolFlag{Name: "accept-aof-everysec", EnvVars: []string{"XGR_ACCEPT_AOF_EVERYSEC"}, Usage: "accept appendfsync everysec: an OS crash may lose the last second of acknowledged writes (starts, steps; their session ids reused)"},
			&cli.DurationFlag{Name: "health-timeout", Value: time.Second, EnvVars: []string{"XGR_HEALTH_TIMEOUT"}, Usage: "/healthz fails when a Redis write takes longer"},
			&cli.DurationFlag{Name: "poll", Value: 200 * time.Millisecond, EnvVars: []string{"XGR_POLL"}, Usage: "how often to look for sessions"},
			&cli.DurationFlag{Name: "root-lease", Value: 10 * time.Second, EnvVars: []string{"XGR_ROOT_LEASE"}, Usage: "root lease duration"},
			&cli.DurationFlag{Name: "proc-lease", Value: 30 * time.Second, EnvVars: []string{"XGR_PROC_LEASE"}, Usage: "inFlight lease duration of an execution"},
			&cli.IntFlag{Name: "max-sessions", EnvVars: []string{"XGR_MAX_SESSIONS"}, Usage: "most sessions this replica runs at once (0 = no cap)"},
		), append(append(append(append(executionFlags(), tracingFlag()), evidenceFlags()...), gatewayFlags("")...), append(consoleFlags(), listenerFlags()...)...)...),
		Action: runAction,
	}
}

func runAction(c *cli.Context) error {
	for _, name := range []string{"poll", "root-lease", "proc-lease", "index-poll", "health-timeout"} {
		if d := c.Duration(name); d <= 0 {
			return cli.Exit(fmt.Sprintf("run: --%s %s: want a positive duration (e.g. 200ms, 10s)", name, d), 2)
		}
	}
	if c.Int("max-sessions") < 0 {
		return cli.Exit(fmt.Sprintf("run: --max-sessions %d: want 0 (no cap) or more", c.Int("max-sessions")), 2)
	}
	if c.String("config") != "" && c.String("rpc") == "" {
		return cli.Exit("run: --config needs --rpc: the config's registries and triggers are followed on a chain", 2)
	}
	if err := checkConsoleFlags(c); err != nil {
		return err
	}
	var orchs []*registry.Orchestration
	for _, f := range c.StringSlice("ostc") {
		o, err := loadOSTC(f)
		if err != nil {
			return err
		}
		orchs = append(orchs, o)
	}
	var client *ethclient.Client
	var chainID uint64
	if url := c.String("rpc"); url != "" {
		cl, id, err := chain.Dial(c.Context, url)
		if err != nil {
			return cli.Exit("run: "+err.Error(), 1)
		}
		defer cl.Close()
		client, chainID = cl, id.Uint64()
	}
	rdb, target, err := openRedis(c)
	if err != nil {
		return err
	}
	defer rdb.Close()
	var cache *indexer.CacheSource
	var idx *indexstore.Index
	if client != nil {
		idx = indexstore.New(rdb, chainID)
		cache = indexer.NewCacheSource(idx, client)
	}
	// The config's addresses: section binds ${addr:ALIAS} / <NAME> rule
	// references (rulesource); the rest is the indexer's.
	var addrs rulesource.Addresses
	var indexCfg []byte
	var execCfg execution.Config
	if file := c.String("config"); file == "" {
		// --executions alone: the policy is the default one (no target), refused.
		if execCfg, _, err = executionsOf(c, "", nil); err != nil {
			return err
		}
	} else {
		raw, err := os.ReadFile(file)
		if err != nil {
			return cli.Exit(err.Error(), 2)
		}
		// executions: is the executor's; addresses: binds rule references;
		// the rest is the indexer's.
		if execCfg, raw, err = executionsOf(c, file, raw); err != nil {
			return err
		}
		if addrs, indexCfg, err = rulesource.ParseAddresses(file, raw); err != nil {
			return cli.Exit("run: "+err.Error(), 2)
		}
	}
	var node chain.Backend
	if client != nil {
		node = client
	}
	ev, err := wireEvidence(c, rdb, node)
	if err != nil {
		return err
	}
	name := c.String("replica")
	if name == "" {
		host, _ := os.Hostname()
		name = host + "-" + strconv.Itoa(os.Getpid())
	}
	tracer, stopTracing, err := startTracing(c, name)
	if err != nil {
		return err
	}
	defer stopTracing()
	var observe func(reactor.Execution, *rulesource.Loaded, *rule.Result)
	if tracer != nil {
		observe = tracer.Observe
	}
	exec, rules, resolver, closeExec, err := runExecutor(c, client, cache, addrs, ev, observe)
	if err != nil {
		return err
	}
	// Every front door of this replica (gateway, console, trigger starter)
	// resolves a start's rule references with the executor's own resolver
	// before it decides the runner's authority.
	var checker *authority.Checker
	if client != nil {
		checker = authority.NewChecker(authority.NewChainReader(client)).WithRules(resolver)
	}
	defer closeExec()
	store, err := replica.OpenStore(c.Context, rdb, storeConfig())
	if err != nil {
		return cli.Exit("run: "+target.failed(err).Error(), 1)
	}
	if idx != nil {
		if err := idx.Preload(c.Context); err != nil {
			return cli.Exit("run: "+target.failed(err).Error(), 1)
		}
	}
	if err := checkDurability(c, store); err != nil {
		return err
	}
	checkCounters(c.Context, store)
	metrics := metric.New(slog.Default())
	rdb.AddHook(metrics.RedisHook())
	var source reactor.Source = reactor.NewStaticSource(orchs...)
	var service *indexer.Service
	if client != nil {
		if service, source, err = chainService(c, indexCfg, cache, idx, client, chainID, store, source, checker); err != nil {
			return err
		}
	}
	if service != nil {
		service.Starter.Count, service.Starter.Waited = metrics.TriggerStart, metrics.TriggerWaited
		service.Ping = func(ctx context.Context) error { return rdb.Ping(ctx).Err() }
		service.Holder = name // one replica indexes at a time
		metrics.AddIndex(client, idx)
		metrics.AddIndexLease(service.Leading)
	}
	finished := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "xgr_sessions_finished_total",
		Help: "Sessions this replica finished, by outcome (docs/runtime.md#session-outcomes)."}, []string{"outcome"})
	for _, o := range joinstore.Outcomes {
		finished.WithLabelValues(string(o))
	}
	var gateway http.Handler
	if c.String("rpc-listen") != "" {
		if client == nil {
			return cli.Exit("run: --rpc-listen needs --rpc: permits are checked against the chain (its id; the owners and executors of registries and rule contracts)", 2)
		}
		served := &indexer.Followed{Registries: service.Follower.Registries, Discover: service.Follower.Discover, Index: idx}
		gcfg := rpc.Config{Store: store, Source: source, Authority: checker, Registries: served, ChainID: chainIDOf(chainID), Log: slog.Default()}
		if ev.Bundles != nil || ev.Opener != nil {
			gcfg.GrantStore, gcfg.Evidence, gcfg.Rules, gcfg.RuleOwners = ev.Grants, ev.Bundles, chainRules{client}, chainRules{client}
			if ev.Keys != nil {
				gcfg.ReadKeys = ev.Keys
			}
		}
		_, h, stop, err := serveGateway(c, gcfg)
		if err != nil {
			return err
		}
		defer stop()
		gateway = h
	}
	uiCfg := console.Config{Store: store, Redis: rdb, Source: source, Rules: rules, Gateway: gateway, ChainID: chainID, Log: slog.Default(),
		Bundles: consoleBundles(rdb, ev.Bundles, ev.Grants), Grants: ev.Grants}
	if client != nil {
		uiCfg.Chain, uiCfg.Index = client, idx
		uiCfg.Authority = checker
	}
	ui := newConsole(c, uiCfg)
	fin := indexer.Finality{Mode: "auto", Confirmations: 12}
	if service != nil {
		fin = indexer.Finality{Mode: service.Starter.Finality, Confirmations: service.Starter.Confirmations}
	}
	execCtx, stopExec := context.WithCancel(context.WithoutCancel(c.Context))
	defer stopExec()
	actuator, err := startExecutions(execCtx, c, name, execCfg, rdb, client, fin, metrics)
	if err != nil {
		return err
	}
	rcfg := replica.Config{Store: store, Source: source, Exec: exec, Name: name, Actuator: actuator, ExecPoll: c.Duration("exec-poll"),
		RootLease: c.Duration("root-lease"), ProcLease: c.Duration("proc-lease"), Poll: c.Duration("poll"), MaxRoots: c.Int("max-sessions"),
		Log: slog.Default(), Lifecycle: withTracing(metrics.Lifecycle(name), tracer),
		OnEvent: func(r joinstore.Root, e reactor.Event) {
			metrics.Event(r, e)
			if tracer != nil {
				tracer.Event(r, e)
			}
			if ui != nil {
				ui.Record(r, e)
			}
		}}
	if ev.Bundles != nil {
		rcfg.Bundles = ev.Bundles
	}
	m, err := replica.New(rcfg)
	if err != nil {
		return err
	}
	metrics.AddSessions(store, m.Running)
	reg := metrics.Registry
	ready := func() error {
		if c.Context.Err() != nil {
			return errors.New("draining: the replica is stopping")
		}
		return nil
	}
	// --listen serves the console too; --metrics-listen never does.
	for _, l := range []struct {
		flag string
		ui   *console.Console
	}{{"listen", ui}, {"metrics-listen", nil}} {
		if addr := c.String(l.flag); addr != "" {
			srv, _, err := serveOps(addr, listenerConfig(c, l.flag), reg, store, name, c.Duration("health-timeout"), ready, l.ui)
			if err != nil {
				return cli.Exit(fmt.Sprintf("run: --%s: %v", l.flag, err), 2)
			}
			defer srv.Shutdown(context.WithoutCancel(c.Context))
		}
	}
	ctx, cancel := context.WithCancel(c.Context)
	defer cancel()
	indexErr := make(chan error, 1)
	if service != nil {
		go func() {
			err := service.Run(ctx)
			if err != nil {
				cancel() // a reorg deeper than the window: stop serving
			}
			indexErr <- err
		}()
	} else {
		indexErr <- nil
	}
	slog.Info("session manager running", "replica", name, "orchestrations", len(orchs), "following", c.String("rpc") != "")
	err = m.Run(ctx)
	cancel()
	if ierr := <-indexErr; ierr != nil {
		return cli.Exit("run: indexer: "+ierr.Error(), 1)
	}
	if reason := undrained(store, name, m.Running(), c.Duration("health-timeout")); reason != "" {
		slog.Error("session manager stopped without draining", "replica", name, "reason", reason)
		return cli.Exit(fmt.Sprintf("run: stopped without draining: %s; other replicas take its sessions over when its leases expire (--root-lease, and --proc-lease for executions in flight)", reason), 1)
	}
	slog.Info("session manager stopped", "replica", name)
	return err
}

// undrained says why a stopped replica could not drain ("" when it did):
// sessions it still ran, or a Redis that does not acknowledge a write (its
// commits and lease releases did not arrive).
func undrained(store *joinstore.Store, replica string, running int, timeout time.Duration) string {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := store.Health(ctx, replica); err != nil {
		return fmt.Sprintf("redis is unreachable or refuses writes (%v)", err)
	}
	if running > 0 {
		return fmt.Sprintf("%d sessions were still running", running)
	}
	return ""
}

// checkCounters raises owners' root pid counters found below sessions that
// survived (Redis lost acknowledged writes) and logs each such loss.
func checkCounters(ctx context.Context, store *joinstore.Store) {
	repairs, err := store.RepairCounters(ctx)
	if err != nil {
		slog.Warn("cannot check root pid counters against the sessions in Redis", "err", err)
	}
	for _, r := range repairs {
		slog.Error("redis lost acknowledged writes: an owner's root pid counter was below sessions that exist; raised so that no id is reused",
			"owner", r.Owner, "counter", r.Counter, "newest", r.Newest)
	}
}

// checkDurability reads Redis's persistence settings: a setting that can
// lose acknowledged writes is a warning, or with --require-aof a refusal.
func checkDurability(c *cli.Context, store *joinstore.Store) error {
	nodes, err := store.Durability(c.Context)
	if err != nil {
		if c.Bool("require-aof") {
			return cli.Exit("run: --require-aof: cannot check Redis persistence: "+err.Error(), 1)
		}
		slog.Warn("cannot check Redis persistence (appendonly, appendfsync)", "err", err)
		return nil
	}
	for _, d := range nodes {
		slog.Info("redis persistence", "node", d.Node, "appendonly", d.AppendOnly, "appendfsync", d.Fsync, "risk", d.Risk())
		if p := d.Problem(c.Bool("accept-aof-everysec")); p != "" {
			if c.Bool("require-aof") {
				return cli.Exit(fmt.Sprintf("run: --require-aof: redis %s: %s", d.Node, p), 1)
			}
			slog.Warn("redis may lose acknowledged writes", "node", d.Node, "problem", p)
		}
	}
	return nil
}

// chainService dials the node and builds the indexer: follower, starter and
// the cache-backed orchestration source (before the static one).
func chainService(c *cli.Context, raw []byte, cache *indexer.CacheSource, idx *indexstore.Index, client *ethclient.Client, chainID uint64, store *joinstore.Store, static reactor.Source, checker *authority.Checker) (*indexer.Service, reactor.Source, error) {
	cfg := &indexer.Config{Window: 128, Confirmations: 12, Finality: "auto"}
	if file := c.String("config"); file != "" {
		var err error
		if cfg, err = indexer.ParseConfig(file, raw); err != nil {
			return nil, nil, cli.Exit(err.Error(), 2)
		}
	}
	source := reactor.FirstSource(cache, static)
	f := &indexer.Follower{Chain: client, ChainID: chainID, Index: idx, Registries: cfg.Registries, Discover: cfg.Discover, FollowRules: true, Triggers: cfg.Triggers,
		Start: cfg.StartBlock, Window: cfg.Window, Endpoint: c.String("rpc"), Log: slog.Default()}
	st := &indexer.Starter{Chain: client, Index: idx, Store: store, Source: source, Finality: cfg.Finality, Confirmations: cfg.Confirmations, Log: slog.Default(),
		Authority: checker}
	svc := &indexer.Service{Follower: f, Starter: st, Poll: c.Duration("index-poll"), Log: slog.Default()}
	// Over a websocket, newHeads wakes the indexer as blocks arrive (a hint;
	// polling goes on). Over HTTP the subscription is refused: poll only.
	heads := make(chan *types.Header, 16)
	if sub, err := client.SubscribeNewHead(c.Context, heads); err == nil {
		svc.Heads = heads
		go func() {
			<-c.Context.Done()
			sub.Unsubscribe()
		}()
		slog.Info("newHeads subscription active")
	}
	return svc, source, nil
}

// serveOps serves /metrics, /healthz (the replica can write to Redis within
// the timeout: a heartbeat SET round trip), /readyz (healthy and not
// draining) and, when ui is not nil, the operator console under /ui, on a
// listener hardened by hc. A failing check answers 503 with the reason in
// the body. It returns the server and the address it listens on.
func serveOps(addr string, hc httpserve.Config, reg *prometheus.Registry, store *joinstore.Store, replica string, timeout time.Duration, ready func() error, ui *console.Console) (*httpserve.Server, string, error) {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	health := func(w http.ResponseWriter, r *http.Request, checks ...func() error) {
		ctx, cancel := context.WithTimeout(r.Context(), timeout)
		defer cancel()
		start := time.Now()
		if err := store.Health(ctx, replica); err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				err = fmt.Errorf("redis did not acknowledge a write within %s (frozen, paused or overloaded): %w", timeout, err)
			}
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		for _, check := range checks {
			if err := check(); err != nil {
				http.Error(w, err.Error(), http.StatusServiceUnavailable)
				return
			}
		}
		fmt.Fprintf(w, "ok: redis write acknowledged in %s\n", time.Since(start).Round(time.Microsecond))
	}
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) { health(w, r) })
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, r *http.Request) { health(w, r, ready) })
	srv, err := httpserve.Listen(addr, mux, hc)
	if err != nil {
		return nil, "", err
	}
	if ui != nil {
		mux.Handle(console.Prefix, ui.Handler())
		mux.Handle("/ui", ui.Handler())
		// Open pages hold event streams: end them, or Shutdown waits for them.
		srv.RegisterOnShutdown(ui.Close)
	}
	go func() {
		if err := srv.Serve(); err != nil {
			slog.Error("ops server stopped", "err", err)
		}
	}()
	slog.Info("serving /metrics, /healthz and /readyz", "addr", srv.Addr(), "console", ui != nil)
	return srv, srv.Addr(), nil
}

// runExecutor is the step executor of a replica: XRC-137 rules from the
// chain (with a client) and from --rules, --outcomes for steps no rule
// covers; its rule source (nil when no rule is loaded), which the
// console builds wake forms from; and the resolver of its rule references,
// which the start-time authority check uses.
func runExecutor(c *cli.Context, client *ethclient.Client, cache rulesource.RuleCache, addrs rulesource.Addresses, ev *evidenceWiring, observe func(reactor.Execution, *rulesource.Loaded, *rule.Result)) (reactor.Executor, rulesource.Source, authority.Resolver, func(), error) {
	var scripted *reactor.Scripted
	if f := c.String("outcomes"); f != "" {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, nil, nil, nil, cli.Exit(err.Error(), 2)
		}
		if scripted, err = reactor.ParseOutcomes(raw); err != nil {
			return nil, nil, nil, nil, cli.Exit("run: "+err.Error(), 2)
		}
		// delayMs is an execution time: spend it, also while draining (the
		// execution finishes and commits).
		scripted.Sleep = func(_ context.Context, d time.Duration) { time.Sleep(d) }
	}
	if client == nil && c.String("rules") == "" {
		if scripted == nil {
			return nil, nil, nil, nil, cli.Exit("run: give --rpc (rules from XRC-137 contracts), --rules DIR or --outcomes FILE", 2)
		}
		return scripted, nil, authority.ScriptedSteps(nil), func() {}, nil
	}
	if addrs == nil {
		addrs = rulesource.Addresses{} // an alias reference is refused by name
	}
	loader := &rulesource.Loader{Addresses: addrs}
	if dir := c.String("rules"); dir != "" {
		var err error
		if loader.Files, err = rulesource.OpenDir(dir); err != nil {
			return nil, nil, nil, nil, cli.Exit("run: --rules: "+err.Error(), 2)
		}
	}
	api := &rule.HTTPCaller{AllowHosts: c.StringSlice("allow-host")}
	if err := api.Check(); err != nil {
		return nil, nil, nil, nil, cli.Exit("run: --allow-host: "+err.Error(), 2)
	}
	reads := &chain.Reads{}
	var backends []*ethclient.Client
	closeAll := func() {
		for _, b := range backends {
			b.Close()
		}
	}
	if client != nil {
		loader.Chain = rulesource.NewChain(client)
		loader.Chain.Cache = cache // rules the indexer follows need no eth_call
		loader.Chain.Opener = ev.Opener
		reads.Default = client
	}
	for _, spec := range c.StringSlice("rpc-backend") {
		name, url, ok := strings.Cut(spec, "=")
		if !ok || name == "" || url == "" {
			closeAll()
			return nil, nil, nil, nil, cli.Exit(fmt.Sprintf("run: --rpc-backend %q: want NAME=URL", spec), 2)
		}
		b, _, err := chain.Dial(c.Context, url)
		if err != nil {
			closeAll()
			return nil, nil, nil, nil, cli.Exit(fmt.Sprintf("run: --rpc-backend %s: %v", name, err), 1)
		}
		backends = append(backends, b)
		if reads.Backends == nil {
			reads.Backends = map[string]ethereum.ContractCaller{}
		}
		reads.Backends[name] = b
	}
	x, err := replica.Steps{Rules: loader, API: api, Reads: reads, Scripted: scripted, Observe: observe, Evidence: ev.Bundles != nil}.Executor()
	if err != nil {
		closeAll()
		return nil, nil, nil, nil, err
	}
	var resolver authority.Resolver = loader
	if scripted != nil {
		resolver = authority.ScriptedSteps(loader)
	}
	return x, loader, resolver, closeAll, nil
}
