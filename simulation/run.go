package simulation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/authority"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/session"
)

// Config is one simulation.
type Config struct {
	Orch *registry.Orchestration
	// Request is the start; its Paused is set from Shared.
	Request session.Request
	// Exec runs the steps; Scripted is the outcomes executor inside it, if
	// any (it sleeps in real time unless Deterministic).
	Exec     reactor.Executor
	Scripted *reactor.Scripted
	// Rules resolves the steps' rule references (Steps).
	Rules authority.Resolver
	// Authority, when set, judges the owner on chain.
	Authority *authority.Checker
	// Redis is the store's Redis; Shared says other programs use it: the
	// session is then held away from replicas and deleted at the end.
	Redis  redis.UniversalClient
	Shared bool
	// Executions treats the steps' executions (nil: not performed).
	Executions *Executions
	// Deterministic runs on a virtual clock.
	Deterministic bool
	// MaxSteps stops after this many executed steps (0: no bound).
	MaxSteps int
	ExecPoll time.Duration
	// Timeout is the bound on ctx, named when it ends the run.
	Timeout time.Duration
	// Out gets the timeline and the summary, as JSON lines with JSON.
	Out  io.Writer
	JSON bool
}

// StartError is a start the use case refused (a *session.Error) or could
// not decide.
type StartError struct{ Err error }

func (e *StartError) Error() string { return e.Err.Error() }
func (e *StartError) Unwrap() error { return e.Err }

// Run starts the session as every session is started (session.Starter,
// the file's text, its steps' rule references resolved as this
// simulation runs them), runs it to its end (or MaxSteps, or ctx's end),
// writes each event and then the summary to Out. A refused start is a
// *StartError; a run that ctx stopped is an error naming how far it got.
func Run(ctx context.Context, cfg Config) error {
	starter := session.Starter{Source: reactor.NewStaticSource(cfg.Orch), Rules: cfg.Rules, Authority: cfg.Authority}
	flipper, _ := cfg.Exec.(reactor.Flipper)
	if fw, ok := cfg.Exec.(reactor.FixedWait); ok {
		flipper, _ = fw.Exec.(reactor.Flipper)
	}
	// Not a replica's store (replica.OpenStore): the caller's clock, virtual
	// when deterministic, judges leases and due times.
	store := joinstore.New(cfg.Redis, joinstore.Config{Unmetered: true}) // a simulation is no owner's usage
	clock := time.Now().Truncate(time.Millisecond)
	now := time.Now
	var advance func(time.Time)
	if cfg.Deterministic {
		clock = time.UnixMilli(1_700_000_000_000)
		now = func() time.Time { return clock }
		advance = func(t time.Time) { clock = t }
	} else if cfg.Scripted != nil {
		cfg.Scripted.Sleep = reactor.SleepContext
	}
	t0 := now()
	req := cfg.Request
	starter.Store, starter.Now, req.Paused = store, now, cfg.Shared
	res, err := starter.Start(ctx, req)
	if err != nil {
		return &StartError{err}
	}
	if cfg.Shared {
		// Whatever happens from here on, the session goes.
		defer func() {
			if err := store.Purge(context.WithoutCancel(ctx), res.Root); err != nil {
				slog.Error("simulate: the simulated session could not be deleted from the shared Redis", "session", res.Root.String(), "err", err)
			}
		}()
		host, _ := os.Hostname()
		release, err := reactor.Holder{Store: store, Name: fmt.Sprintf("simulate-%s-%d", host, os.Getpid())}.Hold(ctx, res.Root, now())
		if err != nil {
			return err
		}
		defer release()
	}
	runner := &reactor.Runner{Store: store, Orch: cfg.Orch, Exec: cfg.Exec, Worker: "simulate", Now: now, Advance: advance,
		MaxSteps: cfg.MaxSteps, OnEvent: func(e reactor.Event) { reactor.WriteEvent(cfg.Out, cfg.Executions.Describe(res.Root, e), t0, cfg.JSON) },
		Actuator: cfg.Executions.Actuator(advance != nil, cfg.ExecPoll), Flipper: flipper, ExecPoll: cfg.ExecPoll}
	runErr := runner.Run(ctx, res.Root)
	// The summary is read even when the run was stopped (a signal or the
	// timeout ended ctx).
	procs, err := store.Processes(context.WithoutCancel(ctx), res.Root)
	if err != nil {
		return err
	}
	sum, err := reactor.Summarize(procs)
	if err != nil {
		return err
	}
	live := 0
	for _, p := range sum.Processes {
		if p.Status == "waiting" || p.Status == "running" {
			live++
		}
	}
	switch {
	case errors.Is(runErr, reactor.ErrStepLimit):
		sum.Stopped = fmt.Sprintf("stopped after %d executed steps (--max-steps %d); %d live process(es) not run", runner.Executed(), cfg.MaxSteps, live)
		runErr = nil
	case errors.Is(runErr, context.DeadlineExceeded):
		sum.Stopped = fmt.Sprintf("stopped by --timeout %s after %d executed steps; %d live process(es) not run", cfg.Timeout, runner.Executed(), live)
		runErr = errors.New(sum.Stopped)
	case errors.Is(runErr, context.Canceled):
		sum.Stopped = fmt.Sprintf("interrupted after %d executed steps; %d live process(es) not run", runner.Executed(), live)
		runErr = errors.New(sum.Stopped)
	}
	if meta, err := store.SessionMeta(context.WithoutCancel(ctx), res.Root); err == nil {
		sum.Outcome = joinstore.OutcomeOf(meta)
	}
	if cfg.JSON {
		if err := json.NewEncoder(cfg.Out).Encode(sum); err != nil {
			return err
		}
	} else {
		sum.WriteText(cfg.Out)
	}
	return runErr
}
