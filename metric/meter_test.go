package metric

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/testenv"
)

// The meter's counters add what this replica metered, without an owner
// label; xgr_meter_top_owner_gas names only the TopOwners owners whose
// sessions of the day used the most gas, however many owners there are.
func TestMeterMetricsBoundTheOwners(t *testing.T) {
	rdb := testenv.StartRedis(t).Client()
	store := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour})
	s := New(nil)
	s.AddMeter(store)
	ctx := context.Background()
	now := time.Now().Truncate(time.Millisecond)
	owners := TopOwners + 5
	for i := 1; i <= owners; i++ {
		owner := fmt.Sprintf("0x%040x", i)
		res, err := store.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: "A1", Now: now})
		if err != nil {
			t.Fatal(err)
		}
		iters, err := store.DueIters(ctx, res.Root, now, 10)
		if err != nil {
			t.Fatal(err)
		}
		claims, err := store.Claim(ctx, res.Root, now, time.Minute, "w1", joinstore.StepTable{"A1": {}}, iters)
		if err != nil || len(claims) != 1 {
			t.Fatalf("claim: %v %v", claims, err)
		}
		if _, err := store.Commit(ctx, claims[0], now, joinstore.Commit{Status: "done", Gas: uint64(100 * i)}); err != nil {
			t.Fatal(err)
		}
	}
	mfs, err := s.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	top := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			if mf.GetName() == "xgr_meter_top_owner_gas" {
				top[m.GetLabel()[0].GetValue()] = m.GetGauge().GetValue()
				continue
			}
			if len(m.GetLabel()) == 0 && m.Counter != nil {
				got[mf.GetName()] = m.GetCounter().GetValue()
			}
		}
	}
	gas := float64(100 * owners * (owners + 1) / 2)
	if got["xgr_meter_sessions_total"] != float64(owners) || got["xgr_meter_steps_total"] != float64(owners) ||
		got["xgr_meter_validation_gas_total"] != gas || got["xgr_meter_bytes_total"] <= 0 {
		t.Errorf("meter counters %v, want %d sessions, %d steps, gas %v, bytes > 0", got, owners, owners, gas)
	}
	if len(top) != TopOwners {
		t.Fatalf("xgr_meter_top_owner_gas names %d owners, want %d: %v", len(top), TopOwners, top)
	}
	for i := owners; i > owners-TopOwners; i-- {
		if g := top[fmt.Sprintf("0x%040x", i)]; g != float64(100*i) {
			t.Errorf("owner %d's gas is %v in the top, want %d", i, g, 100*i)
		}
	}
}
