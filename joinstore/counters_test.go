package joinstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/testenv"
)

// After Redis lost writes of owners' root pid counters while sessions above
// them survived (indexed, or paused and only probed), RepairCounters
// reports each owner and raises its counter, so no id is handed out twice;
// a second pass finds nothing.
func TestRepairCounters(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour}), context.Background()
		const other = "0x00000000000000000000000000000000000000bb"
		for i := 0; i < 3; i++ {
			for _, req := range []joinstore.StartRequest{{Owner: owner, StartStep: "A1", Now: t0}, {Owner: other, StartStep: "A1", Now: t0, Paused: true}} {
				if _, err := s.Start(ctx, req); err != nil {
					t.Fatal(err)
				}
			}
		}
		if got, err := s.RepairCounters(ctx); err != nil || len(got) != 0 {
			t.Fatalf("nothing lost: %v %v", got, err)
		}
		for _, o := range []string{owner, other} {
			own := "xgr:{own:" + o + "}:"
			rdb.Set(ctx, own+"seq", 1, 0)
			rdb.ZRemRangeByRank(ctx, own+"roots", 1, -1)
		}
		got, err := s.RepairCounters(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]joinstore.CounterRepair{owner: {Owner: owner, Counter: 1, Newest: 3}, other: {Owner: other, Counter: 1, Newest: 3}}
		if len(got) != 2 || got[0] != want[got[0].Owner] || got[1] != want[got[1].Owner] {
			t.Fatalf("repairs %+v, want %+v", got, want)
		}
		for _, o := range []string{owner, other} {
			if next, _ := s.NextRootPid(ctx, o); next != 4 {
				t.Errorf("%s: next root pid %d, want 4", o, next)
			}
		}
		if got, err := s.RepairCounters(ctx); err != nil || len(got) != 0 {
			t.Fatalf("second pass: %v %v", got, err)
		}
	})
}

// A start that lands while RepairCounters reads an owner (after its counter,
// before the probe of the session keys above it) is not a lost write: no
// repair is reported. Before, one start-up in seven under load logged
// "redis lost acknowledged writes" on a healthy Redis.
func TestRepairCountersIgnoresAStartInFlight(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour}), context.Background()
		// Paused, so the session is only found by the probe of its keys.
		start := func() {
			if _, err := s.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: "A1", Now: t0, Paused: true}); err != nil {
				t.Fatal(err)
			}
		}
		start()
		once := true
		s.SetRepairHook(func(string) {
			if once {
				once = false
				start()
			}
		})
		got, err := s.RepairCounters(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 0 {
			t.Fatalf("a start in flight reported as lost writes: %+v", got)
		}
		if next, _ := s.NextRootPid(ctx, owner); next != 3 {
			t.Errorf("next root pid %d, want 3", next)
		}
	})
}
