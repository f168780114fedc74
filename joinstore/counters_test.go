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
