// Command asynqchain is the asynq peer of `xgr bench examples/bench/chain10.json`:
// it runs N chains of L tasks on asynq, each task's handler enqueuing its
// chain's next task (the successor), on an asynq server with concurrency C,
// and prints tasks/s, chains/s and the Redis cost per task, measured as
// xgr bench measures steps.
//
// The first task of every chain is enqueued before the clock starts (as
// xgr bench starts its sessions first); the clock runs from the server's
// start until the last chain's last task returned. asynq runs with its
// defaults except Concurrency (queue "default", TaskCheckInterval 1 s,
// completed tasks not retained), with clients of the same go-redis version
// as xgr.
//
//	asynqchain --redis redis://127.0.0.1:6379/0 [--chains 1000] [--length 10] [--concurrency 32] [--json]
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/bench/peers/internal/cost"
)

// config is the checked command line.
type config struct {
	redisURL                    string
	chains, length, concurrency int
	timeout                     time.Duration
	asJSON, force               bool
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg, err := parseFlags(os.Args[1:], os.Stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "asynqchain:", err)
		}
		os.Exit(2)
	}
	rep, err := run(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "asynqchain:", err)
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
	fs := flag.NewFlagSet("asynqchain", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.redisURL, "redis", os.Getenv("XGR_BENCH_REDIS"), "Redis URL, an empty database (env XGR_BENCH_REDIS)")
	fs.IntVar(&cfg.chains, "chains", 1000, "chains to run")
	fs.IntVar(&cfg.length, "length", 10, "tasks per chain")
	fs.IntVar(&cfg.concurrency, "concurrency", 32, "asynq server concurrency (workers)")
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
	case cfg.chains < 1, cfg.length < 1, cfg.concurrency < 1:
		return cfg, fmt.Errorf("--chains %d, --length %d, --concurrency %d: want 1 or more each", cfg.chains, cfg.length, cfg.concurrency)
	case cfg.timeout <= 0:
		return cfg, fmt.Errorf("--timeout %s: want a positive duration", cfg.timeout)
	}
	if _, err := redis.ParseURL(cfg.redisURL); err != nil {
		return cfg, fmt.Errorf("--redis %q: %w", cfg.redisURL, err)
	}
	return cfg, nil
}

// link is one task's payload: its chain and its place in it (1-based).
type link struct {
	Chain int `json:"c"`
	Step  int `json:"s"`
}

const taskType = "chain:link"

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

	// asynq's clients: one for enqueuing (the handlers' successors), one
	// for the server, both counting round trips.
	rt := &cost.RoundTrips{}
	enqRdb, srvRdb := redis.NewClient(opts), redis.NewClient(opts)
	defer enqRdb.Close()
	defer srvRdb.Close()
	client := asynq.NewClientFromRedisClient(enqRdb)
	defer client.Close()
	enqueue := func(ctx context.Context, l link) error {
		payload, _ := json.Marshal(l)
		_, err := client.EnqueueContext(ctx, asynq.NewTask(taskType, payload))
		return err
	}
	t0 := time.Now()
	for c := 1; c <= cfg.chains; c++ {
		if err := enqueue(ctx, link{Chain: c, Step: 1}); err != nil {
			return nil, fmt.Errorf("enqueuing the chains: %w", err)
		}
	}
	rep := &report{Chains: cfg.chains, Length: cfg.length, Concurrency: cfg.concurrency, Redis: opts.Addr, StartSeconds: time.Since(t0).Seconds()}

	var tasks, done atomic.Int64
	allDone := make(chan struct{})
	mux := asynq.NewServeMux()
	mux.HandleFunc(taskType, func(ctx context.Context, t *asynq.Task) error {
		var l link
		if err := json.Unmarshal(t.Payload(), &l); err != nil {
			return fmt.Errorf("payload %q: %w", t.Payload(), err)
		}
		if l.Step < cfg.length {
			if err := enqueue(ctx, link{Chain: l.Chain, Step: l.Step + 1}); err != nil {
				return err
			}
		}
		tasks.Add(1)
		if l.Step == cfg.length && done.Add(1) == int64(cfg.chains) {
			close(allDone)
		}
		return nil
	})
	srv := asynq.NewServerFromRedisClient(srvRdb, asynq.Config{Concurrency: cfg.concurrency, LogLevel: asynq.WarnLevel})

	enqRdb.AddHook(rt)
	srvRdb.AddHook(rt)
	before, err := cost.Info(ctx, ctl)
	if err != nil {
		return nil, err
	}
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	rt.Reset()
	start, cpu0 := time.Now(), cost.ProcessCPU()
	if err := srv.Start(mux); err != nil {
		return nil, fmt.Errorf("asynq server: %w", err)
	}
	var waitErr error
	select {
	case <-allDone:
	case <-ctx.Done():
		waitErr = fmt.Errorf("stopped (%v) after %d of %d chains (%d tasks)", ctx.Err(), done.Load(), cfg.chains, tasks.Load())
	}
	elapsed, clientCPU := time.Since(start), cost.ProcessCPU()-cpu0
	runtime.ReadMemStats(&ms1)
	trips := rt.N()
	after, infoErr := cost.Info(context.WithoutCancel(ctx), ctl)
	srv.Shutdown()
	if waitErr != nil {
		return nil, waitErr
	}
	if infoErr != nil {
		return nil, infoErr
	}
	rep.fill(tasks.Load(), elapsed, clientCPU, trips, before, after, ms1.Mallocs-ms0.Mallocs)
	return rep, nil
}
