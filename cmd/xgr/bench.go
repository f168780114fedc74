package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/evidence"
	"github.com/xgr-sidecar/xgr/grant"
	"github.com/xgr-sidecar/xgr/internal/proccpu"
	"github.com/xgr-sidecar/xgr/internal/redact"
	"github.com/xgr-sidecar/xgr/internal/redisserver"
	"github.com/xgr-sidecar/xgr/internal/redisstat"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/replica"
)

// benchXRC729 is the registry name of bench sessions: no real replica
// serves an orchestration under it, so one that finds a bench session in a
// shared Redis cannot run it.
const benchXRC729 = "xgr-bench"

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
	dial, where, stop, err := benchRedis(cfg.redisOpts)
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
	owner, err := benchOwner()
	if err != nil {
		return err
	}
	b := &bench{cfg: cfg, ctl: ctl, store: joinstore.New(ctl, storeConfig()), owner: owner, where: where, stderr: c.App.ErrWriter}
	// Whatever happens from here on, the bench's keys go: no real replica
	// may ever find a bench session.
	defer b.cleanup()
	report, runErr := b.run(ctx, dial)
	if runErr != nil {
		return cli.Exit("bench: "+runErr.Error(), 1)
	}
	if cfg.json {
		return json.NewEncoder(c.App.Writer).Encode(report)
	}
	report.print(c.App.Writer)
	return nil
}

// benchRedis returns how to connect to the bench's Redis: --redis (opts),
// or a private redis-server in a temporary directory that stop removes.
func benchRedis(opts *redis.Options) (dial func() *redis.Client, where string, stop func(), err error) {
	if opts != nil {
		return func() *redis.Client { return redis.NewClient(opts) }, opts.Addr, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "xgr-bench-")
	if err != nil {
		return nil, "", nil, err
	}
	srv, err := redisserver.Start(redisserver.Options{Dir: dir})
	if err != nil {
		os.RemoveAll(dir)
		return nil, "", nil, err
	}
	return srv.Client, "private (unix socket)", func() { srv.Stop(); os.RemoveAll(dir) }, nil
}

// benchOwner is a fresh random owner address for one run's sessions.
func benchOwner() (string, error) {
	var b [20]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return "0x" + hex.EncodeToString(b[:]), nil
}

// bench is one run of xgr bench.
type bench struct {
	cfg    benchConfig
	ctl    *redis.Client // starts, completion polls, INFO, cleanup
	store  *joinstore.Store
	owner  string
	where  string
	stderr io.Writer
	polls  int64 // ZCARDs of the completion poll
}

// run starts the sessions, runs the replicas until every session finished
// and measures.
func (b *bench) run(ctx context.Context, dial func() *redis.Client) (*benchReport, error) {
	cfg := b.cfg
	report := &benchReport{Orchestration: cfg.orch.ID, Redis: b.where, Replicas: cfg.replicas, Concurrency: cfg.concurrency,
		Poll: cfg.poll.String(), Sessions: cfg.sessions}
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	if err := b.store.Preload(ctx); err != nil {
		return nil, fmt.Errorf("redis %s: %w", b.where, err)
	}
	memBefore, err := b.info(ctx)
	if err != nil {
		return nil, err
	}
	src := reactor.NewStaticSource(cfg.orch)
	t0 := time.Now()
	if err := b.start(ctx, src); err != nil {
		switch {
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			return nil, fmt.Errorf("stopped by --timeout %s while starting the sessions", cfg.timeout)
		case ctx.Err() != nil:
			return nil, errors.New("interrupted while starting the sessions")
		}
		return nil, err
	}
	report.StartSeconds = time.Since(t0).Seconds()

	// The replicas: each its own client (connection pool) and store.
	rt := &redisstat.RoundTrips{}
	clock := newStepClock()
	scripted, err := reactor.ParseOutcomes([]byte(`{"default":{"result":"valid"}}`))
	if err != nil {
		return nil, err
	}
	exec, err := replica.Steps{Scripted: scripted}.Executor()
	if err != nil {
		return nil, err
	}
	managers := make([]*reactor.Manager, cfg.replicas)
	for i := range managers {
		rdb := dial()
		defer rdb.Close()
		store, err := replica.OpenStore(ctx, rdb, storeConfig()) // as xgr run
		if err != nil {
			return nil, fmt.Errorf("redis %s: %w", b.where, err)
		}
		rdb.AddHook(rt)
		rc := replica.Config{Store: store, Source: src, Exec: exec, Name: fmt.Sprintf("bench-%d-%s", i+1, b.owner[2:10]),
			Poll: cfg.poll, MaxRoots: cfg.concurrency, OnEvent: clock.onEvent}
		if cfg.logBundles {
			ev, err := evidence.New(rdb, evidence.Config{Grants: grant.New(rdb)})
			if err != nil {
				return nil, err
			}
			rc.Bundles = ev
		}
		if managers[i], err = replica.New(rc); err != nil {
			return nil, err
		}
	}
	before, err := b.info(ctx)
	if err != nil {
		return nil, err
	}
	polls0 := b.polls
	var ms0 runtime.MemStats
	runtime.ReadMemStats(&ms0)

	runCtx, stopRun := context.WithCancel(ctx)
	var wg sync.WaitGroup
	start, cpu0 := time.Now(), proccpu.Used()
	for _, m := range managers {
		wg.Add(1)
		go func() { defer wg.Done(); m.Run(runCtx) }()
	}
	finished, waitErr := b.wait(ctx, clock, start)
	elapsed, clientCPU := time.Since(start), proccpu.Used()-cpu0
	var ms1 runtime.MemStats
	runtime.ReadMemStats(&ms1)
	if waitErr == nil {
		// The root actors give their finished sessions back (part of the
		// engine's work per session) before the second reading.
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) && running(managers) > 0; {
			time.Sleep(time.Millisecond)
		}
	}
	after, infoErr := b.info(context.WithoutCancel(ctx))
	stopRun()
	wg.Wait()
	if waitErr != nil {
		return nil, fmt.Errorf("%w after %d of %d sessions finished (%d steps in %.1fs)", waitErr, finished, cfg.sessions, clock.steps.Load(), elapsed.Seconds())
	}
	if infoErr != nil {
		return nil, infoErr
	}
	report.fill(benchMeasure{
		steps:       clock.steps.Load(),
		elapsed:     elapsed,
		roundTrips:  rt.N(),
		commands:    commandsBetween(before, after, map[string]int64{"zcard": b.polls - polls0}),
		redisCPU:    after.cpu - before.cpu,
		clientCPU:   clientCPU,
		mallocs:     ms1.Mallocs - ms0.Mallocs,
		memoryDelta: after.memory - memBefore.memory,
		latencies:   clock.measured(),
	})
	if cfg.logBundles {
		if report.Bundles, report.BundleBodyBytes, err = b.bundles(context.WithoutCancel(ctx)); err != nil {
			return nil, err
		}
	}
	return report, nil
}

func running(ms []*reactor.Manager) int {
	n := 0
	for _, m := range ms {
		n += m.Running()
	}
	return n
}

// start creates the sessions, a few at a time.
func (b *bench) start(ctx context.Context, src reactor.Source) error {
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	slots := make(chan struct{}, 8)
	for i := 0; i < b.cfg.sessions; i++ {
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			_, err := reactor.Start(ctx, b.store, src, reactor.StartRequest{Owner: b.owner, XRC729: benchXRC729,
				OstcID: b.cfg.orch.ID, Step: b.cfg.orch.Steps[0].ID}, time.Now())
			if err != nil {
				select {
				case errs <- fmt.Errorf("starting the sessions: %w", err):
				default:
				}
			}
		}()
		if len(errs) > 0 {
			break
		}
	}
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

// wait polls, with one ZCARD every few milliseconds (counted, and left out
// of the Redis figures), until every session finished; it prints the
// progress line each second.
func (b *bench) wait(ctx context.Context, clock *stepClock, start time.Time) (int64, error) {
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	progress := b.progressWriter()
	lastPrint := start
	var finished int64
	for {
		select {
		case <-ctx.Done():
			if progress != nil {
				fmt.Fprintln(progress)
			}
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return finished, fmt.Errorf("stopped by --timeout %s", b.cfg.timeout)
			}
			return finished, errors.New("interrupted")
		case <-tick.C:
		}
		n, err := b.store.FinishedSessions(ctx, b.owner)
		b.polls++
		if err != nil {
			if ctx.Err() != nil {
				continue
			}
			return finished, fmt.Errorf("redis %s: %w", b.where, err)
		}
		finished = n
		if progress != nil && (time.Since(lastPrint) >= time.Second || finished >= int64(b.cfg.sessions)) {
			lastPrint = time.Now()
			secs := time.Since(start).Seconds()
			steps := clock.steps.Load()
			fmt.Fprintf(progress, "\r%d/%d sessions finished, %d steps, %.0f steps/s   ", finished, b.cfg.sessions, steps, float64(steps)/secs)
		}
		if finished >= int64(b.cfg.sessions) {
			if progress != nil {
				fmt.Fprintln(progress)
			}
			return finished, nil
		}
	}
}

// progressWriter is stderr when it is a terminal and the output is not
// --json; nil otherwise.
func (b *bench) progressWriter() io.Writer {
	if b.cfg.json {
		return nil
	}
	f, ok := b.stderr.(*os.File)
	if !ok {
		return nil
	}
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return f
}

// info reads INFO commandstats, cpu and memory.
func (b *bench) info(ctx context.Context) (redisStats, error) {
	raw, err := b.ctl.Info(ctx, "commandstats", "cpu", "memory").Result()
	if err != nil {
		return redisStats{}, fmt.Errorf("redis %s: INFO: %w", b.where, err)
	}
	return parseRedisInfo(raw)
}

// cleanup deletes every key of the bench's owner, with a context of its own
// (the command's may be cancelled by now).
func (b *bench) cleanup() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := b.store.DeleteOwner(ctx, b.owner); err != nil {
		slog.Error("bench: deleting the bench's sessions failed; delete the keys xgr:{"+b.owner+":*} and xgr:{own:"+b.owner+"}:* by hand", "err", err)
	}
	if b.cfg.logBundles {
		if err := b.deleteBundles(ctx); err != nil {
			slog.Error("bench: deleting the bench's log bundles failed; delete the keys xgr:log:{"+b.owner+":*} and their grants by hand", "err", err)
		}
	}
}
