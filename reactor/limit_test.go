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

type execFunc func(context.Context, Execution) (Result, error)

func (f execFunc) Execute(ctx context.Context, e Execution) (Result, error) { return f(ctx, e) }

// A step that spawns itself runs forever; MaxSteps stops it, FixedWait
// removes its waits, and the payload flows with its numbers' exact text.
func TestRunnerStepLimitAndFixedWait(t *testing.T) {
	o, err := registry.Parse([]byte(`{"id":"loop","structure":{"L":{"rule":"<L-Addr>","onValid":{"spawns":["L"]},"onInvalid":{"spawns":["L"]}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	store := joinstore.New(testenv.StartRedis(t).Client(), joinstore.Config{SessionTTL: time.Hour})
	ctx := context.Background()
	clock := time.UnixMilli(1_800_000_000_000)
	start := clock
	res, err := store.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: "L", Now: clock, OstcHash: o.Hash.Hex(),
		Payload: json.RawMessage(`{"n": 0, "big": 9007199254740993}`)})
	if err != nil {
		t.Fatal(err)
	}
	var seen []any
	step := execFunc(func(_ context.Context, e Execution) (Result, error) {
		seen = append(seen, e.Payload["big"])
		n, err := e.Payload["n"].(json.Number).Int64()
		if err != nil {
			return Result{}, err
		}
		return Result{Valid: n%2 == 0, Output: map[string]any{"n": n + 1}, Wait: time.Hour,
			Reasons: []string{"rules[0] is false"}, NotPerformed: []string{"1 grants"}}, nil
	})
	var events []Event
	r := &Runner{Store: store, Orch: o, Exec: FixedWait{Exec: step}, Worker: "test", MaxSteps: 5,
		Now: func() time.Time { return clock }, Advance: func(t time.Time) { clock = t },
		OnEvent: func(e Event) { events = append(events, e) }}
	err = r.Run(ctx, res.Root)
	if !errors.Is(err, ErrStepLimit) || r.Executed() != 5 || !strings.Contains(err.Error(), "after 5 executed steps") {
		t.Fatalf("run: %v, %d executed", err, r.Executed())
	}
	if !clock.Equal(start) {
		t.Errorf("the waits were not replaced: the clock moved by %s", clock.Sub(start))
	}
	for i, v := range seen {
		if v != json.Number("9007199254740993") {
			t.Errorf("step %d saw big = %#v; the payload must keep the number's text", i, v)
		}
	}
	var details []string
	for _, e := range events {
		if e.Type == "executed" {
			details = append(details, e.Detail)
		}
	}
	if len(details) != 5 || details[0] != "valid (not performed: 1 grants)" || details[1] != "invalid: rules[0] is false (not performed: 1 grants)" {
		t.Errorf("executed details: %q", details)
	}
	procs, err := store.Processes(ctx, res.Root)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Summarize(procs)
	if err != nil {
		t.Fatal(err)
	}
	last := sum.Processes[len(sum.Processes)-1]
	if len(sum.Processes) != 6 || last.Status != "waiting" || string(last.Payload) != `{"big":9007199254740993,"n":5}` {
		t.Errorf("summary: %+v, last payload %s", sum.Processes, last.Payload)
	}
}

func TestUnmarshalPayload(t *testing.T) {
	p, err := UnmarshalPayload([]byte(` {"a": 1.50, "b": [2], "c": null} `))
	if err != nil || p["a"] != json.Number("1.50") || p["c"] != nil {
		t.Errorf("%#v, %v", p, err)
	}
	for _, bad := range []string{``, `[1]`, `{"a":1} {"b":2}`, `{"a":`} {
		if _, err := UnmarshalPayload([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
