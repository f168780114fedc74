// Command gwtree is the go-workflows peer of `xgr bench
// examples/bench/tree16.json`: it runs N fan-out/fan-in trees on
// go-workflows v1.2.0 with its Redis backend. Each tree is a root workflow
// that starts 4 branch sub-workflows and waits for all of them; each branch
// executes 4 activities and waits for all of them: 16 activities per root
// over two join levels, the shape of tree16's root → B1–B4 (joined into RJ)
// → L11–L44 (joined into BJ1–BJ4).
//
// Every root instance is created before the clock starts (as xgr bench
// starts its sessions first); the clock runs from the worker's start until
// the last root workflow finished. The worker runs go-workflows' defaults
// (worker.DefaultOptions: 2 workflow and 2 activity pollers, an executor
// cache of 128 instances, Redis BlockTimeout 2 s) except
// MaxParallelWorkflowTasks and MaxParallelActivityTasks, both set to
// --concurrency, and the polling intervals, set to 0 as go-workflows' own
// bench does on Redis (its blocking reads make them moot).
//
// It prints roots/s, activities/s, workflow tasks and steps/s (a step is one
// activity or one workflow task executed), and the Redis cost per activity,
// measured as xgr bench measures steps.
//
//	gwtree --redis redis://127.0.0.1:6379/0 [--roots 1000] [--concurrency 32] [--json]
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/cschleiden/go-workflows/backend"
	gwredis "github.com/cschleiden/go-workflows/backend/redis"
	"github.com/cschleiden/go-workflows/client"
	"github.com/cschleiden/go-workflows/worker"
	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/bench/peers/internal/cost"
)

// config is the checked command line.
type config struct {
	redisURL           string
	roots, concurrency int
	cacheSize          int
	timeout            time.Duration
	asJSON, force      bool
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg, err := parseFlags(os.Args[1:], os.Stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "gwtree:", err)
		}
		os.Exit(2)
	}
	rep, err := run(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gwtree:", err)
		var u usageError
		if errors.As(err, &u) {
			os.Exit(2)
		}
		os.Exit(1)
	}
	if cfg.asJSON {
		json.NewEncoder(os.Stdout).Encode(rep)
		return
	}
	rep.print(os.Stdout)
}

// usageError is a problem with the command line or its --redis (exit 2).
type usageError struct{ error }

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var cfg config
	fs := flag.NewFlagSet("gwtree", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.redisURL, "redis", os.Getenv("XGR_BENCH_REDIS"), "Redis URL, an empty database (env XGR_BENCH_REDIS)")
	fs.IntVar(&cfg.roots, "roots", 1000, "root workflows (trees of 16 activities) to run")
	fs.IntVar(&cfg.concurrency, "concurrency", 32, "worker MaxParallelWorkflowTasks and MaxParallelActivityTasks")
	fs.IntVar(&cfg.cacheSize, "cache", worker.DefaultOptions.WorkflowExecutorCacheSize, "worker WorkflowExecutorCacheSize (workflow executors kept in memory)")
	fs.DurationVar(&cfg.timeout, "timeout", 10*time.Minute, "give up (exit 1) after this long")
	fs.BoolVar(&cfg.asJSON, "json", false, "print one JSON object")
	fs.BoolVar(&cfg.force, "force", false, "run on a database that holds other keys")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	switch {
	case fs.NArg() > 0:
		return cfg, fmt.Errorf("unexpected argument %q (all settings are flags)", fs.Arg(0))
	case cfg.redisURL == "":
		return cfg, errors.New("--redis: give the Redis URL to run on (redis://host:port/db)")
	case cfg.roots < 1, cfg.concurrency < 1, cfg.cacheSize < 1:
		return cfg, fmt.Errorf("--roots %d, --concurrency %d, --cache %d: want 1 or more each", cfg.roots, cfg.concurrency, cfg.cacheSize)
	case cfg.timeout <= 0:
		return cfg, fmt.Errorf("--timeout %s: want a positive duration", cfg.timeout)
	}
	if _, err := redis.ParseURL(cfg.redisURL); err != nil {
		return cfg, fmt.Errorf("--redis %q: %w", cfg.redisURL, err)
	}
	return cfg, nil
}

func run(ctx context.Context, cfg config) (*report, error) {
	opts, _ := redis.ParseURL(cfg.redisURL)
	ctl := redis.NewClient(opts)
	defer ctl.Close()
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	if n, err := ctl.DBSize(ctx).Result(); err != nil {
		return nil, fmt.Errorf("redis %s: %w", opts.Addr, err)
	} else if n > 0 && !cfg.force {
		return nil, usageError{fmt.Errorf("redis %s holds %d keys: give an empty database, or --force", opts.Addr, n)}
	}

	// The backend's client, shared by the creating client and the worker
	// (as in go-workflows' own bench), counting round trips.
	rt := &cost.RoundTrips{}
	rdb := redis.NewClient(opts)
	defer rdb.Close()
	count := newCounts(cfg.roots)
	be, err := gwredis.NewRedisBackend(rdb, gwredis.WithBackendOptions(
		backend.WithLogger(slog.New(slog.DiscardHandler)),
		backend.WithMetrics(count),
	))
	if err != nil {
		return nil, fmt.Errorf("go-workflows redis backend: %w", err)
	}
	c := client.New(be)
	t0 := time.Now()
	for i := 1; i <= cfg.roots; i++ {
		if _, err := c.CreateWorkflowInstance(ctx, client.WorkflowInstanceOptions{InstanceID: fmt.Sprintf("root-%d", i)}, Root); err != nil {
			return nil, fmt.Errorf("creating root %d: %w", i, err)
		}
	}
	rep := &report{Roots: cfg.roots, Concurrency: cfg.concurrency, Cache: cfg.cacheSize, Redis: opts.Addr, StartSeconds: time.Since(t0).Seconds()}

	wo := worker.DefaultOptions
	wo.MaxParallelWorkflowTasks = cfg.concurrency
	wo.MaxParallelActivityTasks = cfg.concurrency
	wo.WorkflowExecutorCacheSize = cfg.cacheSize
	wo.WorkflowPollingInterval, wo.ActivityPollingInterval = 0, 0
	w := worker.New(be, &wo)
	if err := w.RegisterWorkflow(Root); err != nil {
		return nil, err
	}
	if err := w.RegisterWorkflow(Branch); err != nil {
		return nil, err
	}
	if err := w.RegisterActivity(Leaf); err != nil {
		return nil, err
	}

	rdb.AddHook(rt)
	before, err := cost.Info(ctx, ctl)
	if err != nil {
		return nil, err
	}
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	rt.Reset()
	wctx, stopWorker := context.WithCancel(ctx)
	defer stopWorker()
	start, cpu0 := time.Now(), cost.ProcessCPU()
	if err := w.Start(wctx); err != nil {
		return nil, fmt.Errorf("go-workflows worker: %w", err)
	}
	var waitErr error
	select {
	case <-count.allDone:
	case <-ctx.Done():
		waitErr = fmt.Errorf("stopped (%v) after %d of %d roots (%d activities)", ctx.Err(), count.roots.Load(), cfg.roots, activities.Load())
	}
	elapsed, clientCPU := time.Since(start), cost.ProcessCPU()-cpu0
	runtime.ReadMemStats(&ms1)
	trips := rt.N()
	after, infoErr := cost.Info(context.WithoutCancel(ctx), ctl)
	stopWorker()
	w.WaitForCompletion()
	if waitErr != nil {
		return nil, waitErr
	}
	if infoErr != nil {
		return nil, infoErr
	}
	if got, want := activities.Load(), int64(cfg.roots*branches*leaves); got != want {
		return nil, fmt.Errorf("%d roots finished after %d activities, want %d", cfg.roots, got, want)
	}
	rep.fill(activities.Load(), count.workflowTasks.Load(), elapsed, clientCPU, trips, before, after, ms1.Mallocs-ms0.Mallocs)
	return rep, nil
}
