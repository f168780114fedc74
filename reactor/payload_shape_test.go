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

// nested is a value n arrays deep.
func nested(n int) any {
	var v any = []any{}
	for i := 1; i < n; i++ {
		v = []any{v}
	}
	return v
}

// Payload nesting is capped (joinstore.MaxPayloadDepth) and duplicate
// names are refused where payloads enter: a start creates nothing, a
// step whose next payload nests too deeply aborts and creates nothing, a
// wake whose merge would nest too deeply wakes nothing.
func TestPayloadShape(t *testing.T) {
	o, err := registry.Parse([]byte(`{"id": "shape", "structure": {"A1": {"rule": "x", "onValid": {"spawns": ["B1"]}}, "B1": {"rule": "x"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	rdb := testenv.StartRedis(t).Client()
	store, ctx := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour}), context.Background()
	src := NewStaticSource(o)
	deep, _ := json.Marshal(map[string]any{"a": nested(9000)})
	for _, tc := range []struct{ payload, want string }{
		{string(deep), "the start payload: payload.a" + strings.Repeat("[0]", 31) + ": nested deeper than 32 levels (at most 32 are allowed)"},
		{`{"__wakeUp": {"steps": {}}, "__wakeUp": {"steps": {"A1": {"rpc": ["0x00000000000000000000000000000000000000aa"]}}}}`, "the start payload: payload.__wakeUp: duplicate member name"},
	} {
		_, err = Start(ctx, store, src, StartRequest{Owner: owner, XRC729: "t", OstcID: "shape", Step: "A1", Payload: json.RawMessage(tc.payload)}, time.Now())
		if !errors.Is(err, joinstore.ErrPayloadShape) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("start %.40s…: %v, want %q", tc.payload, err, tc.want)
		}
		// The store refuses it too (callers that skip CheckStartPayload).
		_, err = store.Start(ctx, joinstore.StartRequest{Owner: owner, XRC729: "t", OstcID: "shape", OstcHash: o.Hash.Hex(), StartStep: "A1", Payload: json.RawMessage(tc.payload), Now: time.Now()})
		if !errors.Is(err, joinstore.ErrPayloadShape) {
			t.Errorf("store start %.40s…: %v", tc.payload, err)
		}
	}
	if n, _ := rdb.DBSize(ctx).Result(); n != 0 {
		t.Fatalf("refused starts left %d keys", n)
	}

	res, err := Start(ctx, store, src, StartRequest{Owner: owner, XRC729: "t", OstcID: "shape", Step: "A1", Payload: json.RawMessage(`{"n": 1}`)}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	exec := execFunc(func(_ context.Context, e Execution) (Result, error) {
		return Result{Valid: true, Output: map[string]any{"deep": nested(40)}}, nil
	})
	r := &Runner{Store: store, Orch: o, Exec: exec, Worker: "w", Now: time.Now, Advance: func(time.Time) {}}
	if err := r.Run(ctx, res.Root); err != nil {
		t.Fatal(err)
	}
	p, _ := store.Process(ctx, res.Root, 1)
	if p.Status != joinstore.StatusAborted || !strings.Contains(p.AbortReason, "the step's next payload: payload.deep"+strings.Repeat("[0]", 31)+": nested deeper than 32 levels") || string(p.ResumePlain) != `{"n": 1}` {
		t.Fatalf("an output nested too deeply: %+v", p)
	}
	if procs, _ := store.Processes(ctx, res.Root); len(procs) != 1 {
		t.Fatalf("an aborted step created children: %v", procs)
	}

	// A wake: the payload is refused where it is read, and a merge that
	// would nest too deeply wakes nothing.
	if _, err := ParseWakePayload(deep); !errors.Is(err, joinstore.ErrPayloadShape) || !strings.Contains(err.Error(), "the wake payload: payload.a") {
		t.Errorf("a deep wake payload: %v", err)
	}
	if _, err := ParseWakePayload([]byte(`{"__wakeUp": 1, "__wakeUp": 2}`)); !errors.Is(err, joinstore.ErrPayloadShape) {
		t.Errorf("a wake payload with a duplicate name: %v", err)
	}
	w, _ := Start(ctx, store, src, StartRequest{Owner: owner, XRC729: "t", OstcID: "shape", Step: "A1", WakeAt: time.Now().Add(time.Hour)}, time.Now())
	wres, notes, err := Wake(ctx, store, w.Root, "", []int64{1}, WakeRequest{Runner: owner, Operator: true,
		Overlay: map[string]any{"deep": nested(40)}}, "test", time.Now())
	if err != nil || len(wres.Woken) != 0 || !strings.Contains(notes[0].Reason, "not woken: the merged payload: payload.deep") {
		t.Fatalf("a wake nesting too deeply: %+v %+v %v", wres, notes, err)
	}
}
