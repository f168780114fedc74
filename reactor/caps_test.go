package reactor

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/testenv"
)

// A runaway session is stopped by its caps: a step that would take the
// session over its live-process cap (a process spawning two of itself),
// or over its step cap (an endless loop), kills it with the reason, and
// every other process is aborted; nothing is left live.
func TestSessionCaps(t *testing.T) {
	for name, tc := range map[string]struct {
		ostc       string
		cfg        joinstore.Config
		wantReason string
	}{
		"live cap": {`{"id": "boom", "structure": {"A1": {"rule": "x", "onValid": {"spawns": ["A1", "A1"]}}}}`,
			joinstore.Config{MaxLive: 50}, "live process cap: the session would have 51 live processes, at most 50"},
		"step cap": {`{"id": "loop", "structure": {"L1": {"rule": "x", "onValid": {"spawns": ["L1"]}}}}`,
			joinstore.Config{MaxSteps: 20}, "step cap: the session committed its step 21, at most 20"},
	} {
		t.Run(name, func(t *testing.T) {
			o, err := registry.Parse([]byte(tc.ostc))
			if err != nil {
				t.Fatal(err)
			}
			tc.cfg.SessionTTL = time.Hour
			store, ctx := joinstore.New(testenv.StartRedis(t).Client(), tc.cfg), context.Background()
			res, err := Start(ctx, store, NewStaticSource(o), StartRequest{Owner: owner, XRC729: "t", OstcID: o.ID, Step: o.Steps[0].ID}, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			exec, _ := ParseOutcomes([]byte(`{"default": {"result": "valid"}}`))
			var capped []string
			r := &Runner{Store: store, Orch: o, Exec: exec, Worker: "w", Now: time.Now, Advance: func(time.Time) {}, MaxSteps: 10000,
				OnEvent: func(e Event) {
					if e.Type == "capped" {
						capped = append(capped, e.Detail)
					}
				}}
			if err := r.Run(ctx, res.Root); err != nil {
				t.Fatal(err)
			}
			meta, _ := store.SessionMeta(ctx, res.Root)
			if meta.Status != joinstore.SessionFinished || meta.Live != 0 || !strings.Contains(meta.KillReason, tc.wantReason) {
				t.Fatalf("session after the cap: %v", meta)
			}
			if len(capped) != 1 || !strings.Contains(capped[0], tc.wantReason) {
				t.Errorf("capped events: %q", capped)
			}
			procs, _ := store.Processes(ctx, res.Root)
			aborted := 0
			for _, p := range procs {
				if p.Status == joinstore.StatusAborted {
					aborted++
				}
			}
			if aborted == 0 {
				t.Error("no process was aborted")
			}
		})
	}
}

// A kill of a large session costs a bounded amount of work (one mark and
// one batch); the replica running the session aborts the rest.
func TestKillIsBoundedAndReaped(t *testing.T) {
	o, err := registry.Parse([]byte(`{"id": "wide", "structure": {
  "A1": {"rule": "x", "onValid": {"spawns": ["B1", "B1", "B1", "B1", "B1", "B1", "B1", "B1", "B1", "B1", "B1", "B1", "B1", "B1", "B1", "B1", "B1", "B1", "B1", "B1", "B1", "B1", "B1", "B1", "B1", "B1", "B1", "B1", "B1", "B1", "B1", "B1"]}},
  "B1": {"rule": "x", "onValid": {"spawns": ["C1", "C1", "C1", "C1", "C1", "C1", "C1", "C1", "C1", "C1", "C1", "C1", "C1", "C1", "C1", "C1", "C1", "C1", "C1", "C1", "C1", "C1", "C1", "C1", "C1", "C1", "C1", "C1", "C1", "C1", "C1", "C1"]}},
  "C1": {"rule": "x"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	store, ctx := joinstore.New(testenv.StartRedis(t).Client(), joinstore.Config{SessionTTL: time.Hour}), context.Background()
	src := NewStaticSource(o)
	exec, _ := ParseOutcomes([]byte(`{"default": {"result": "valid"}, "B1": {"result": "valid", "waitSec": 3600}}`))
	m := &Manager{Store: store, Source: src, Exec: exec, Replica: "r", Poll: 20 * time.Millisecond, RootLease: 300 * time.Millisecond, Log: discardLog()}
	mctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { m.Run(mctx); close(done) }()
	defer func() { cancel(); <-done }()
	roots := startMany(t, store, src, o, 1)
	root := roots[0]
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		meta, _ := store.SessionMeta(ctx, root)
		if meta.Live == 1024 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the session never reached 1024 waiting processes: %v", meta)
		}
	}
	res, err := Kill(ctx, store, root, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) > joinstore.ReapBatch || res.Live < 1024-joinstore.ReapBatch {
		t.Fatalf("the kill did %d aborts inline (bound %d), %d left", len(res.Results), joinstore.ReapBatch, res.Live)
	}
	waitFinished(t, store, roots, 20*time.Second)
	procs, _ := store.Processes(ctx, root)
	for _, p := range procs {
		if p.ResumeStep == "C1" && p.Status != joinstore.StatusAborted {
			t.Fatalf("%s %s after the kill", p.Pid, p.Status)
		}
	}
}
