package reactor

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/testenv"
)

// Payloads are capped on every path: a start payload over the cap creates
// nothing; a step whose next payload would be over it aborts with the
// reason and creates nothing; a wake whose merge would be over it wakes
// nothing.
func TestPayloadCap(t *testing.T) {
	o, err := registry.Parse([]byte(`{"id": "cap", "structure": {"A1": {"rule": "x", "onValid": {"spawns": ["B1"]}}, "B1": {"rule": "x"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	rdb := testenv.StartRedis(t).Client()
	store, ctx := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour, MaxPayloadBytes: 100}), context.Background()
	src := NewStaticSource(o)
	big := json.RawMessage(`{"x": "` + strings.Repeat("a", 200) + `"}`)
	_, err = Start(ctx, store, src, StartRequest{Owner: owner, XRC729: "t", OstcID: "cap", Step: "A1", Payload: big}, time.Now())
	if !errors.Is(err, joinstore.ErrPayloadTooLarge) || !strings.Contains(err.Error(), "the start payload is 209 bytes, at most 100") {
		t.Fatalf("a start payload over the cap: %v", err)
	}
	if n, _ := rdb.DBSize(ctx).Result(); n != 0 {
		t.Fatalf("a refused start left %d keys", n)
	}
	res, err := Start(ctx, store, src, StartRequest{Owner: owner, XRC729: "t", OstcID: "cap", Step: "A1", Payload: json.RawMessage(`{"n": 1}`)}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	exec := execFunc(func(_ context.Context, e Execution) (Result, error) {
		return Result{Valid: true, Output: map[string]any{"blob": strings.Repeat("b", 200)}}, nil
	})
	r := &Runner{Store: store, Orch: o, Exec: exec, Worker: "w", Now: time.Now, Advance: func(time.Time) {}}
	if err := r.Run(ctx, res.Root); err != nil {
		t.Fatal(err)
	}
	p, _ := store.Process(ctx, res.Root, 1)
	if p.Status != joinstore.StatusAborted || !strings.Contains(p.AbortReason, "the step's next payload is") || string(p.ResumePlain) != `{"n": 1}` { // the input, as stored
		t.Fatalf("an output over the cap: %+v", p)
	}
	if procs, _ := store.Processes(ctx, res.Root); len(procs) != 1 {
		t.Fatalf("an aborted step created children: %v", procs)
	}

	// A stored payload a step passes on unchanged is held to the cap of the
	// replica that runs the step (its shape was checked when stored; its
	// size is checked again): one started under a larger cap aborts.
	wide := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour, MaxPayloadBytes: 1000})
	pass, err := Start(ctx, wide, src, StartRequest{Owner: owner, XRC729: "t", OstcID: "cap", Step: "A1", Payload: big}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	same := execFunc(func(_ context.Context, e Execution) (Result, error) { return Result{Valid: true}, nil })
	r = &Runner{Store: store, Orch: o, Exec: same, Worker: "w", Now: time.Now, Advance: func(time.Time) {}}
	if err := r.Run(ctx, pass.Root); err != nil {
		t.Fatal(err)
	}
	if p, _ := store.Process(ctx, pass.Root, 1); p.Status != joinstore.StatusAborted || !strings.Contains(p.AbortReason, "the step's next payload is 209 bytes, at most 100") {
		t.Fatalf("a passed-on payload over the cap: %+v", p)
	}

	// A wake whose merge would be over the cap.
	w, _ := Start(ctx, store, src, StartRequest{Owner: owner, XRC729: "t", OstcID: "cap", Step: "A1", WakeAt: time.Now().Add(time.Hour)}, time.Now())
	wres, notes, err := Wake(ctx, store, w.Root, "", []int64{1}, WakeRequest{Runner: owner, Operator: true,
		Overlay: map[string]any{"blob": strings.Repeat("c", 200)}}, "test", time.Now())
	if err != nil || len(wres.Woken) != 0 || !strings.Contains(notes[0].Reason, "not woken: the merged payload would be") {
		t.Fatalf("a wake over the cap: %+v %+v %v", wres, notes, err)
	}
}

// A join whose merged payload would be over the cap closes with its inbox,
// and its target aborts with the reason instead of running.
func TestJoinMergeCap(t *testing.T) {
	o, err := registry.Parse([]byte(`{"id": "merge", "structure": {
  "A1": {"rule": "x", "onValid": {"spawns": ["P1", "P2"],
         "join": {"joinid": "J1", "mode": "all", "waitonjoin": "drain", "from": [{"node": "P1", "when": "valid"}, {"node": "P2", "when": "valid"}]}}},
  "P1": {"rule": "x"}, "P2": {"rule": "x"}, "J1": {"rule": "x"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	store, ctx := joinstore.New(testenv.StartRedis(t).Client(), joinstore.Config{SessionTTL: time.Hour, MaxPayloadBytes: 150}), context.Background()
	res, err := Start(ctx, store, NewStaticSource(o), StartRequest{Owner: owner, XRC729: "t", OstcID: "merge", Step: "A1"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	// Each producer's payload fits (about 110 bytes); the two merged do not.
	exec := execFunc(func(_ context.Context, e Execution) (Result, error) {
		if e.Step.ID == "A1" || e.Step.ID == "J1" {
			return Result{Valid: true}, nil
		}
		return Result{Valid: true, Output: map[string]any{e.Step.ID: strings.Repeat("p", 100)}}, nil
	})
	r := &Runner{Store: store, Orch: o, Exec: exec, Worker: "w", Now: time.Now, Advance: func(time.Time) {}}
	if err := r.Run(ctx, res.Root); err != nil {
		t.Fatal(err)
	}
	procs, _ := store.Processes(ctx, res.Root)
	sum, _ := Summarize(procs)
	if len(sum.Joins) != 1 || sum.Joins[0].Status != JoinClosed || sum.Joins[0].TargetStatus != "aborted" ||
		!strings.Contains(sum.Joins[0].TargetReason, "the join's merged payload is") {
		t.Fatalf("join over the cap: %+v", sum.Joins)
	}
}
