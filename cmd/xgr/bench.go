package main

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/benchmark"
	"github.com/xgr-sidecar/xgr/internal/redact"
	"github.com/xgr-sidecar/xgr/registry"
)

func benchCommand() *cli.Command {
	return &cli.Command{
		Name:      "bench",
		Usage:     "measure throughput, Redis cost and latency of an orchestration on in-process replicas",
		ArgsUsage: "OSTC.json",
		Description: `Starts --sessions sessions of the orchestration (every step's outcome is
valid, at once: no rule runs, no wait), then runs --replicas session
managers in this process, each running up to --concurrency sessions at once
(xgr run --max-sessions), until every session finished. Starting the
sessions is not timed.

It prints steps/s, sessions/s and, per executed step: Redis round trips of
the replicas, Redis commands (INFO commandstats, including the commands
scripts run) and EVALSHAs, Redis CPU (INFO cpu), allocations of this
process, and the step latency p50/p99 (from the step becoming runnable —
its parent's commit, its join's close, a first step's claim — to its
result being handed to its commit); also how much Redis memory the
finished sessions keep until their TTL. docs/performance.md defines each
figure. A progress line goes to stderr each second when it is a terminal.

Without --redis a private redis-server is started on a unix socket and
removed afterwards. With --redis the database must be empty (--force runs
on one that is not); the sessions get a fresh random owner, and every key
they created is deleted at the end, also after Ctrl-C or SIGTERM.

Examples:
   xgr bench examples/bench/chain10.json
   xgr bench --sessions 1000 --concurrency 32 --replicas 2 examples/bench/fanout30.json --json
   xgr bench --redis redis://127.0.0.1:6379/15 examples/bench/chain10.json`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "redis", EnvVars: []string{"XGR_BENCH_REDIS"}, Usage: "Redis URL to run on (default: a private redis-server)"},
			redisPasswordFileFlag(),
			&cli.BoolFlag{Name: "force", Usage: "run on a --redis database that holds other keys (only the bench's own keys are deleted)"},
			&cli.IntFlag{Name: "sessions", Value: 1000, EnvVars: []string{"XGR_BENCH_SESSIONS"}, Usage: "sessions to start and run"},
			&cli.IntFlag{Name: "concurrency", Value: 32, EnvVars: []string{"XGR_BENCH_CONCURRENCY"}, Usage: "sessions each replica runs at once (xgr run --max-sessions)"},
			&cli.BoolFlag{Name: "log-bundles", EnvVars: []string{"XGR_LOG_BUNDLES"}, Usage: "store every step's log bundle, as xgr run --log-bundles (the report adds bundles and their bytes)"},
			&cli.IntFlag{Name: "replicas", Value: 1, EnvVars: []string{"XGR_BENCH_REPLICAS"}, Usage: "session managers to run in this process"},
			&cli.DurationFlag{Name: "poll", Value: 200 * time.Millisecond, EnvVars: []string{"XGR_POLL"}, Usage: "how often each replica looks for sessions (xgr run --poll)"},
			&cli.DurationFlag{Name: "timeout", Value: 10 * time.Minute, EnvVars: []string{"XGR_BENCH_TIMEOUT"}, Usage: "give up (exit 1) after this long"},
			jsonFlag(),
		},
		Action: benchAction,
	}
}

// benchConfig is xgr bench's checked command line.
type benchConfig struct {
	orch                            *registry.Orchestration
	sessions, concurrency, replicas int
	poll, timeout                   time.Duration
	redisURL                        string
	redisOpts                       *redis.Options // of redisURL
	force, json                     bool
	logBundles                      bool
}

func benchFlags(c *cli.Context) (benchConfig, error) {
	file, err := oneFile(c, "bench")
	if err != nil {
		return benchConfig{}, err
	}
	cfg := benchConfig{sessions: c.Int("sessions"), concurrency: c.Int("concurrency"), replicas: c.Int("replicas"),
		poll: c.Duration("poll"), timeout: c.Duration("timeout"), redisURL: c.String("redis"), force: c.Bool("force"), json: c.Bool("json"), logBundles: c.Bool("log-bundles")}
	// Counts and durations are checked for every command before it runs
	// (checkFlags: --sessions, --concurrency and --replicas at least 1).
	if cfg.force && cfg.redisURL == "" {
		return cfg, cli.Exit("bench: --force is for --redis: the private redis-server is empty", 2)
	}
	if cfg.redisURL != "" {
		if cfg.redisOpts, err = parseRedisAddr(cfg.redisURL); err != nil {
			return cfg, cli.Exit(fmt.Sprintf("bench: --redis %q: %v", redact.URL(cfg.redisURL), err), 2)
		}
		if err := withPasswordFile(c, cfg.redisOpts); err != nil {
			return cfg, cli.Exit("bench: "+err.Error(), 2)
		}
	}
	if cfg.orch, err = loadOSTC(file); err != nil {
		return cfg, err
	}
	return cfg, nil
}

func benchAction(c *cli.Context) error {
	cfg, err := benchFlags(c)
	if err != nil {
		return err
	}
	dial, where, stop, err := benchmark.Redis(cfg.redisOpts)
	if err != nil {
		return cli.Exit("bench: "+err.Error(), 2)
	}
	defer stop()
	ctl := dial()
	defer ctl.Close()
	ctx := c.Context
	if n, err := ctl.DBSize(ctx).Result(); err != nil {
		return cli.Exit(fmt.Sprintf("bench: redis %s: %v", where, err), 1)
	} else if n > 0 && !cfg.force {
		return cli.Exit(fmt.Sprintf("bench: redis %s holds %d keys: give an empty database (e.g. redis://host:port/15), or --force to run beside them (the bench deletes only its own keys)", where, n), 2)
	}
	run := benchmark.Config{Orch: cfg.orch, Sessions: cfg.sessions, Concurrency: cfg.concurrency, Replicas: cfg.replicas,
		Poll: cfg.poll, Timeout: cfg.timeout, Store: storeConfig(), LogBundles: cfg.logBundles}
	if !cfg.json {
		run.Progress = c.App.ErrWriter
	}
	report, runErr := benchmark.Run(ctx, run, ctl, dial, where)
	if runErr != nil {
		return cli.Exit("bench: "+runErr.Error(), 1)
	}
	if cfg.json {
		return json.NewEncoder(c.App.Writer).Encode(report)
	}
	report.Print(c.App.Writer)
	return nil
}
