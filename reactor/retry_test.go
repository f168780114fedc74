package reactor

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/testenv"
)

// flaky fails its first n executions with a transient error, then is valid.
type flaky struct {
	n     int64
	calls atomic.Int64
}

type nodeDown struct{}

func (nodeDown) Error() string   { return "node down" }
func (nodeDown) Transient() bool { return true }

func (f *flaky) Execute(context.Context, Execution) (Result, error) {
	if f.calls.Add(1) <= f.n {
		return Result{}, nodeDown{}
	}
	return Result{Valid: true}, nil
}

// A step that cannot be decided now (its node did not answer) is not
// aborted: its lease goes back and it runs again after a backoff, under
// both drivers (issue #28 point 7).
func TestTransientFailureRetriesTheStep(t *testing.T) {
	o, err := registry.Parse([]byte(`{"id":"r","structure":{"A":{"rule":"0x0000000000000000000000000000000000000001","onValid":{"spawns":["B"]}},"B":{"rule":"0x0000000000000000000000000000000000000001"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	rdb := testenv.StartRedis(t).Client()
	store := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour})
	ctx := context.Background()

	t.Run("simulate", func(t *testing.T) {
		clock := time.UnixMilli(1_800_000_000_000)
		res, err := store.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: "A", Now: clock, OstcHash: o.Hash.Hex()})
		if err != nil {
			t.Fatal(err)
		}
		var retries []Event
		ex := &flaky{n: 3}
		r := &Runner{Store: store, Orch: o, Exec: ex, Worker: "sim", Now: func() time.Time { return clock },
			Advance: func(t time.Time) { clock = t },
			OnEvent: func(e Event) {
				if e.Type == EvRetry {
					retries = append(retries, e)
				}
			}}
		t0 := clock
		if err := r.Run(ctx, res.Root); err != nil {
			t.Fatal(err)
		}
		procs, err := store.Processes(ctx, res.Root)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range procs {
			if p.Status != joinstore.StatusDone {
				t.Errorf("%s %s: %s %q, want done", p.Pid, p.ResumeStep, p.Status, p.AbortReason)
			}
		}
		if len(procs) != 2 || len(retries) != 3 || !strings.Contains(retries[0].Detail, "node down") {
			t.Fatalf("%d processes, retries %v; want 2 processes done after 3 retries", len(procs), retries)
		}
		if waited := clock.Sub(t0); waited != 7*time.Second {
			t.Errorf("the virtual clock moved %v, want 7s (backoffs 1s, 2s, 4s)", waited)
		}
	})

	t.Run("replica", func(t *testing.T) {
		res, err := store.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: "A", Now: time.Now(), OstcHash: o.Hash.Hex()})
		if err != nil {
			t.Fatal(err)
		}
		retries := make(chan Event, 16)
		m := &Manager{Store: store, Source: staticSource{o}, Exec: &flaky{n: 1}, Replica: "r1", Poll: 20 * time.Millisecond,
			OnEvent: func(_ joinstore.Root, e Event) {
				if e.Type == EvRetry {
					retries <- e
				}
			}}
		runCtx, stop := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- m.Run(runCtx) }()
		defer func() { stop(); <-done }()
		deadline := time.Now().Add(20 * time.Second)
		for {
			meta, err := store.SessionMeta(ctx, res.Root)
			if err != nil {
				t.Fatal(err)
			}
			if meta.Status == joinstore.SessionFinished {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the session did not finish: %+v", meta)
			}
			time.Sleep(20 * time.Millisecond)
		}
		procs, err := store.Processes(ctx, res.Root)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range procs {
			if p.Status != joinstore.StatusDone {
				t.Errorf("%s %s: %s %q, want done", p.Pid, p.ResumeStep, p.Status, p.AbortReason)
			}
		}
		select {
		case e := <-retries:
			if e.Pid != res.Root.Pid(1) {
				t.Errorf("retry of %s, want the root process", e.Pid)
			}
		default:
			t.Fatal("no retry line in the replica's timeline")
		}
	})
}

// staticSource serves one orchestration.
type staticSource struct{ o *registry.Orchestration }

func (s staticSource) Orchestration(context.Context, string, string, common.Hash) (*registry.Orchestration, error) {
	return s.o, nil
}
