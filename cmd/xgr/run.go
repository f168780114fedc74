package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/replica"
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
			&cli.BoolFlag{Name: "upgrade-schema", EnvVars: []string{"XGR_UPGRADE_SCHEMA"}, Usage: "record this build's Redis schema although replicas of the recorded one cannot share Redis with it: give it only after every replica of the older release has stopped (CHANGELOG.md says which upgrades need it)"},
			&cli.BoolFlag{Name: "require-aof", EnvVars: []string{"XGR_REQUIRE_AOF"}, Usage: "refuse to start unless Redis runs with appendonly yes and appendfsync always (or everysec with --accept-aof-everysec)"},
			&cli.BoolFlag{Name: "accept-aof-everysec", EnvVars: []string{"XGR_ACCEPT_AOF_EVERYSEC"}, Usage: "accept appendfsync everysec: an OS crash may lose the last second of acknowledged writes (starts, steps; their session ids reused)"},
			&cli.DurationFlag{Name: "health-timeout", Value: time.Second, EnvVars: []string{"XGR_HEALTH_TIMEOUT"}, Usage: "/healthz fails when a Redis write takes longer"},
			&cli.DurationFlag{Name: "poll", Value: 200 * time.Millisecond, EnvVars: []string{"XGR_POLL"}, Usage: "how often to look for sessions"},
			&cli.DurationFlag{Name: "root-lease", Value: 10 * time.Second, EnvVars: []string{"XGR_ROOT_LEASE"}, Usage: "root lease duration"},
			&cli.DurationFlag{Name: "proc-lease", Value: 30 * time.Second, EnvVars: []string{"XGR_PROC_LEASE"}, Usage: "inFlight lease duration of an execution"},
			&cli.IntFlag{Name: "max-sessions", EnvVars: []string{"XGR_MAX_SESSIONS"}, Usage: "most sessions this replica runs at once (0 = no cap)"},
		), append(append(append(append(append(executionFlags(), tracingFlag()), evidenceFlags()...), gatewayFlags("")...), append(consoleFlags(), listenerFlags()...)...), quotaFlags()...)...),
		Action: runAction,
	}
}

func runAction(c *cli.Context) error {
	cfg, err := runConfig(c)
	if err != nil {
		return err
	}
	rep, err := replica.New(c.Context, cfg)
	if err != nil {
		return replicaExit(c, err)
	}
	defer rep.Close()
	return replicaExit(c, rep.Run(c.Context))
}

// runConfig is the replica of xgr run's flags and --config file. Every
// mistake in them is a usage error (exit 2), found before anything is
// opened.
func runConfig(c *cli.Context) (replica.Config, error) {
	for _, name := range []string{"poll", "root-lease", "proc-lease", "index-poll", "health-timeout"} {
		if d := c.Duration(name); d <= 0 {
			return replica.Config{}, cli.Exit(fmt.Sprintf("run: --%s %s: want a positive duration (e.g. 200ms, 10s)", name, d), 2)
		}
	}
	if c.Int("max-sessions") < 0 {
		return replica.Config{}, cli.Exit(fmt.Sprintf("run: --max-sessions %d: want 0 (no cap) or more", c.Int("max-sessions")), 2)
	}
	node := c.String("rpc")
	if c.String("config") != "" && node == "" {
		return replica.Config{}, cli.Exit("run: --config needs --rpc: the config's registries and triggers are followed on a chain", 2)
	}
	if err := checkConsoleFlags(c); err != nil {
		return replica.Config{}, err
	}
	var err error
	cfg := replica.Config{Name: c.String("replica"), Node: node, Store: storeConfig(),
		RootLease: c.Duration("root-lease"), ProcLease: c.Duration("proc-lease"), Poll: c.Duration("poll"), ExecPoll: c.Duration("exec-poll"),
		MaxSessions: c.Int("max-sessions"), HealthTimeout: c.Duration("health-timeout"), OTLPEndpoint: c.String("otlp-endpoint"),
		Checks: &replica.Checks{RequireAOF: c.Bool("require-aof"), AcceptAOFEverysec: c.Bool("accept-aof-everysec"), UpgradeSchema: c.Bool("upgrade-schema")}}
	file, err := configFile(c)
	if err != nil {
		return cfg, err
	}
	if cfg.Store.Quotas, err = quotasOf(c, file); err != nil {
		return cfg, err
	}
	for _, f := range c.StringSlice("ostc") {
		o, err := loadOSTC(f)
		if err != nil {
			return cfg, err
		}
		cfg.Orchestrations = append(cfg.Orchestrations, o)
	}
	if cfg.Redis, _, err = redisConfig(c); err != nil {
		return cfg, cli.Exit("run: "+err.Error(), 2)
	}
	exec, err := executionsOf(c, file.Executions)
	if err != nil {
		return cfg, err
	}
	if node != "" {
		cfg.Index, cfg.Rules.Addresses = &replica.Index{Config: *file.Index, Poll: c.Duration("index-poll")}, file.Addresses
	}
	if cfg.Executions, err = executorOf(c, exec); err != nil {
		return cfg, err
	}
	if cfg.Evidence, err = evidenceOf(c); err != nil {
		return cfg, err
	}
	if cfg.Rules, err = rulesOf(c, cfg.Rules.Addresses); err != nil {
		return cfg, err
	}
	if c.String("rpc-listen") != "" && node == "" {
		return cfg, cli.Exit("run: --rpc-listen needs --rpc: permits are checked against the chain (its id; the owners and executors of registries and rule contracts)", 2)
	}
	if cfg.Gateway, err = gatewayOf(c); err != nil {
		return cfg, err
	}
	cfg.Console, cfg.Listeners, cfg.ControlContract = consoleOf(c), listenersOf(c, "listen", "metrics-listen"), controlContract(c)
	return cfg, nil
}

// rulesOf is how xgr run's steps run: the XRC-137 rules of the chain
// (with --rpc) and of --rules, --outcomes for the steps no rule covers.
func rulesOf(c *cli.Context, addrs rulesource.Addresses) (replica.Rules, error) {
	r := replica.Rules{FromChain: c.String("rpc") != "", Addresses: addrs}
	if f := c.String("outcomes"); f != "" {
		raw, err := os.ReadFile(f)
		if err != nil {
			return r, cli.Exit(err.Error(), 2)
		}
		if r.Outcomes, err = reactor.ParseOutcomes(raw); err != nil {
			return r, cli.Exit("run: "+err.Error(), 2)
		}
		// delayMs is an execution time: spend it, also while draining (the
		// execution finishes and commits).
		r.Outcomes.Sleep = func(_ context.Context, d time.Duration) { time.Sleep(d) }
	}
	if !r.FromChain && c.String("rules") == "" {
		if r.Outcomes == nil {
			return r, cli.Exit("run: give --rpc (rules from XRC-137 contracts), --rules DIR or --outcomes FILE", 2)
		}
		return r, nil
	}
	if r.Addresses == nil {
		r.Addresses = rulesource.Addresses{} // an alias reference is refused by name
	}
	if dir := c.String("rules"); dir != "" {
		var err error
		if r.Files, err = rulesource.OpenDir(dir); err != nil {
			return r, cli.Exit("run: --rules: "+err.Error(), 2)
		}
	}
	api := &rule.HTTPCaller{AllowHosts: c.StringSlice("allow-host")}
	if err := api.Check(); err != nil {
		return r, cli.Exit("run: --allow-host: "+err.Error(), 2)
	}
	r.API = api
	for _, spec := range c.StringSlice("rpc-backend") {
		name, url, err := chain.ParseBackend(spec)
		if err != nil {
			return r, cli.Exit("run: "+err.Error(), 2)
		}
		if r.Backends == nil {
			r.Backends = map[string]string{}
		}
		r.Backends[name] = url
	}
	return r, nil
}
