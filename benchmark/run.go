package benchmark

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/internal/proccpu"
	"github.com/xgr-sidecar/xgr/internal/redisserver"
	"github.com/xgr-sidecar/xgr/internal/redisstat"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/replica"
	"github.com/xgr-sidecar/xgr/session"
)

// XRC729 is the registry name of bench sessions: no real replica serves an
// orchestration under it, so one that finds a bench session in a shared
// Redis cannot run it.
const XRC729 = "xgr-bench"

// Config is one run.
type Config struct {
	// Orch is the orchestration whose sessions run; every step's outcome is
	// valid at once (no rule runs, no wait).
	Orch *registry.Orchestration
	// Sessions are started (untimed), then Replicas session managers run,
	// each up to Concurrency sessions at once, polling every Poll, until
	// every session finished or Timeout.
	Sessions, Concurrency, Replicas int
	Poll, Timeout                   time.Duration
	// Store is the store configuration (as xgr run's).
	Store joinstore.Config
	// LogBundles stores every step's log bundle, as xgr run --log-bundles
	// (the report adds how many and their mean body size).
	LogBundles bool
	// Progress receives a progress line each second when it is a terminal.
	Progress io.Writer
	// Log: nil is slog.Default().
	Log *slog.Logger
}

// Run starts cfg.Sessions sessions of a fresh random owner on the Redis
// dial connects to (where names it in the report), runs the replicas until
// every session finished and measures (docs/performance.md defines each
// figure). Every key of the run's owner is deleted at the end, whatever
// happened. ctl is a client of the same Redis for starts, polls and INFO.
func Run(ctx context.Context, cfg Config, ctl *redis.Client, dial func() *redis.Client, where string) (*Report, error) {
	owner, err := newOwner()
	if err != nil {
		return nil, err
	}
	b := &bench{cfg: cfg, ctl: ctl, store: joinstore.New(ctl, cfg.Store), owner: owner, where: where}
	// Whatever happens from here on, the bench's keys go: no real replica
	// may ever find a bench session.
	defer b.cleanup()
	return b.run(ctx, dial)
}

func (b *bench) log() *slog.Logger {
	if b.cfg.Log != nil {
		return b.cfg.Log
	}
	return slog.Default()
}

// Redis returns how to connect to the bench's Redis: opts (--redis), or
// a private redis-server in a temporary directory that stop removes.
func Redis(opts *redis.Options) (dial func() *redis.Client, where string, stop func(), err error) {
	if opts != nil {
		return func() *redis.Client { return redis.NewClient(opts) }, opts.Addr, func() {}, nil
	}
	srv, err := redisserver.StartPrivate("bench")
	if err != nil {
		return nil, "", nil, err
	}
	return srv.Client, "private (unix socket)", srv.Stop, nil
}

// newOwner is a fresh random owner address for one run's sessions.
func newOwner() (string, error) {
	var b [20]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return "0x" + hex.EncodeToString(b[:]), nil
}

// bench is one run.
type bench struct {
	cfg   Config
	ctl   *redis.Client // starts, completion polls, INFO, cleanup
	store *joinstore.Store
	owner string
	where string
	polls int64 // ZCARDs of the completion poll
}

// run starts the sessions, runs the replicas until every session finished
// and measures.
func (b *bench) run(ctx context.Context, dial func() *redis.Client) (*Report, error) {
	cfg := b.cfg
	report := &Report{Orchestration: cfg.Orch.ID, Redis: b.where, Replicas: cfg.Replicas, Concurrency: cfg.Concurrency,
		Poll: cfg.Poll.String(), Sessions: cfg.Sessions}
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	if err := b.store.Preload(ctx); err != nil {
		return nil, fmt.Errorf("redis %s: %w", b.where, err)
	}
	memBefore, err := b.info(ctx)
	if err != nil {
		return nil, err
	}
	src := reactor.NewStaticSource(cfg.Orch)
	t0 := time.Now()
	if err := b.start(ctx, src); err != nil {
		switch {
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			return nil, fmt.Errorf("stopped by the timeout %s while starting the sessions", cfg.Timeout)
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
	replicas := make([]*replica.Replica, cfg.Replicas)
	for i := range replicas {
		rdb := dial() // each replica its own connection pool
		defer rdb.Close()
		rep, err := replica.New(ctx, replica.Config{Client: rdb, Store: cfg.Store, Name: fmt.Sprintf("bench-%d-%s", i+1, b.owner[2:10]),
			Orchestrations: []*registry.Orchestration{cfg.Orch}, Rules: replica.Rules{Outcomes: scripted}, Evidence: replica.Evidence{Bundles: cfg.LogBundles},
			Poll: cfg.Poll, MaxSessions: cfg.Concurrency, OnEvent: clock.onEvent, Log: cfg.Log})
		var re *replica.Error
		if errors.As(err, &re) && re.Part == replica.PartRedis {
			return nil, fmt.Errorf("redis %s: %w", b.where, re.Err)
		} else if err != nil {
			return nil, err
		}
		defer rep.Close()
		rdb.AddHook(rt) // after the scripts were loaded: the run's round trips only
		replicas[i] = rep
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
	for _, rep := range replicas {
		wg.Add(1)
		go func() { defer wg.Done(); rep.Run(runCtx) }()
	}
	finished, waitErr := b.wait(ctx, clock, start)
	elapsed, clientCPU := time.Since(start), proccpu.Used()-cpu0
	var ms1 runtime.MemStats
	runtime.ReadMemStats(&ms1)
	if waitErr == nil {
		// The root actors give their finished sessions back (part of the
		// engine's work per session) before the second reading.
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) && running(replicas) > 0; {
			time.Sleep(time.Millisecond)
		}
	}
	after, infoErr := b.info(context.WithoutCancel(ctx))
	stopRun()
	wg.Wait()
	if waitErr != nil {
		return nil, fmt.Errorf("%w after %d of %d sessions finished (%d steps in %.1fs)", waitErr, finished, cfg.Sessions, clock.steps.Load(), elapsed.Seconds())
	}
	if infoErr != nil {
		return nil, infoErr
	}
	if cfg.LogBundles {
		if report.Bundles, report.BundleBodyBytes, err = b.bundles(context.WithoutCancel(ctx)); err != nil {
			return nil, err
		}
	}
	report.fill(measure{
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
	return report, nil
}

// running is how many sessions the replicas run now.
func running(rs []*replica.Replica) int {
	n := 0
	for _, r := range rs {
		n += r.Running()
	}
	return n
}

// start creates the sessions, a few at a time.
func (b *bench) start(ctx context.Context, src reactor.Source) error {
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	slots := make(chan struct{}, 8)
	for i := 0; i < b.cfg.Sessions; i++ {
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			_, err := session.Starter{Store: b.store, Source: src, Trusted: true}.Start(ctx, session.Request{Owner: b.owner, Registry: XRC729,
				OstcID: b.cfg.Orch.ID, Step: b.cfg.Orch.StartStep("")})
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
				return finished, fmt.Errorf("stopped by the timeout %s", b.cfg.Timeout)
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
		if progress != nil && (time.Since(lastPrint) >= time.Second || finished >= int64(b.cfg.Sessions)) {
			lastPrint = time.Now()
			secs := time.Since(start).Seconds()
			steps := clock.steps.Load()
			fmt.Fprintf(progress, "\r%d/%d sessions finished, %d steps, %.0f steps/s   ", finished, b.cfg.Sessions, steps, float64(steps)/secs)
		}
		if finished >= int64(b.cfg.Sessions) {
			if progress != nil {
				fmt.Fprintln(progress)
			}
			return finished, nil
		}
	}
}

// progressWriter is Config.Progress when it is a terminal; nil otherwise.
func (b *bench) progressWriter() io.Writer {
	f, ok := b.cfg.Progress.(*os.File)
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
	if b.cfg.LogBundles {
		if err := b.deleteBundles(ctx); err != nil {
			b.log().Error("bench: deleting the bench's log bundles failed; delete the keys xgr:log:{"+b.owner+":*} and their grants by hand", "err", err)
		}
	}
	if _, err := b.store.DeleteOwner(ctx, b.owner); err != nil {
		b.log().Error("bench: deleting the bench's sessions failed; delete the keys xgr:{"+b.owner+":*} and xgr:{own:"+b.owner+"}:* by hand", "err", err)
	}
}
