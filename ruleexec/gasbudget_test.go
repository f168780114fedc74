package ruleexec_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/ruleexec"
	"github.com/xgr-sidecar/xgr/testenv"
)

// TestBackloopEndsWithItsGasBudget runs the public IterationOfPi loop (a
// step that spawns itself) with its waits removed. Each step costs the
// rule's validation gas, 23,450; with a permit budget (maxTotalGas) of
// 100,000 the fifth commit goes over it and ends the session with the
// budget outcome; without one (the operator's default ceiling) the same
// loop runs on, its gas counted, until the runner's own bound.
func TestBackloopEndsWithItsGasBudget(t *testing.T) {
	rule, err := os.ReadFile("../examples/iteration-of-pi/rules/Iterationstep-Addr.json")
	if err != nil {
		t.Fatal(err)
	}
	o, err := registry.Parse([]byte(`{"id":"IterationOfPi","structure":{"PiIterationStep":{"rule":"<Iterationstep-Addr>","onValid":{"spawns":["PiIterationStep"]}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	x := &ruleexec.Executor{Rules: files(t, map[string]string{"Iterationstep-Addr.json": string(rule)})}
	store := joinstore.New(testenv.StartRedis(t).Client(), joinstore.Config{SessionTTL: time.Hour})
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		budget uint64
	}{{"budget 100000", 100_000}, {"no budget", 0}} {
		t.Run(tc.name, func(t *testing.T) {
			clock := time.UnixMilli(1_800_000_000_000)
			res, err := store.Start(ctx, joinstore.StartRequest{Owner: "0x00000000000000000000000000000000000000b1", StartStep: "PiIterationStep",
				Now: clock, OstcID: o.ID, OstcHash: o.Hash.Hex(), MaxTotalGas: tc.budget, Payload: json.RawMessage(`{"Iter": 0, "S": 0.0, "Pi": 0.0}`)})
			if err != nil {
				t.Fatal(err)
			}
			r := &reactor.Runner{Store: store, Orch: o, Exec: reactor.FixedWait{Exec: x}, Worker: "test", MaxSteps: 12,
				Now: func() time.Time { return clock }, Advance: func(at time.Time) { clock = at }}
			err = r.Run(ctx, res.Root)
			meta, merr := store.SessionMeta(ctx, res.Root)
			if merr != nil {
				t.Fatal(merr)
			}
			hist, herr := store.History(ctx, res.Root)
			if herr != nil {
				t.Fatal(herr)
			}
			for _, h := range hist {
				if h.Commit() && h.Gas != "23450" {
					t.Fatalf("a step's gas is %q, want 23450 (the rule's validation gas with one spawn)", h.Gas)
				}
			}
			if tc.budget == 0 {
				if !errors.Is(err, reactor.ErrStepLimit) || meta.GasUsed != 12*23_450 || !meta.KilledAt.IsZero() || meta.Status == joinstore.SessionFinished {
					t.Fatalf("within the budget: run %v, meta %+v", err, meta)
				}
				return
			}
			if err != nil || r.Executed() != 5 || meta.GasUsed != 5*23_450 || joinstore.OutcomeOf(meta) != joinstore.OutcomeBudget ||
				!strings.Contains(meta.KillReason, "maxTotalGas") {
				t.Fatalf("run %v after %d steps; meta %+v, outcome %q", err, r.Executed(), meta, joinstore.OutcomeOf(meta))
			}
			if len(hist) != 5 || hist[4].Status != "aborted" || !strings.Contains(hist[4].AbortReason, "gas budget") {
				t.Fatalf("history: %+v", hist)
			}
		})
	}
}
