package joinstore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/testenv"
)

// TestCommitGasBudget: each commit adds its gas to the session's gasUsed
// and its proc_steps entry; the commit that takes gasUsed over the budget
// (the permit's maxTotalGas, under the operator's ceiling) kills the
// session with killKind budget, is recorded aborted and creates nothing.
func TestCommitGasBudget(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		now := time.UnixMilli(1_800_000_000_000)
		table := joinstore.StepTable{"L": {Reserve: 1}}
		for n, tc := range []struct {
			name         string
			ceiling      int64
			permit       uint64
			fit          int // commits within the budget (of 20,000 gas each)
			budgetByName string
		}{
			{"permit budget", 0, 50_000, 2, "maxTotalGas"},
			{"ceiling under the permit", 40_000, 1_000_000, 2, "XGR_SESSION_GAS_CEILING"},
			{"no budget", -1, 0, 6, ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				store := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour, GasCeiling: tc.ceiling})
				owner := fmt.Sprintf("0x%040x", 0xa0+n)
				res, err := store.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: "L", Now: now, MaxTotalGas: tc.permit})
				if err != nil {
					t.Fatal(err)
				}
				claims, err := store.Claim(ctx, res.Root, now, time.Minute, "w", table, []int64{1})
				if err != nil || len(claims) != 1 {
					t.Fatalf("claim %v %v", claims, err)
				}
				c, valid, commits := claims[0], true, 0
				for i := 0; i < 6; i++ {
					cr, err := store.Commit(ctx, c, now, joinstore.Commit{Status: "done", Valid: &valid, Worker: "w", Gas: 20_000, ClaimLease: time.Minute,
						Children: []joinstore.Child{{Iter: c.FirstChild, ResumeStep: "L", JoinGroupID: "0", Reserve: 1}}})
					if err != nil {
						t.Fatalf("step %d: %v", i, err)
					}
					commits++
					if i >= tc.fit {
						if !cr.Killed || !strings.Contains(cr.Capped, "gas budget") || !strings.Contains(cr.Capped, tc.budgetByName) || len(cr.Claims) != 0 {
							t.Fatalf("step %d (gas %d): %+v", i, 20_000*(i+1), cr)
						}
						break
					}
					if cr.Killed || cr.Capped != "" || len(cr.Claims) != 1 {
						t.Fatalf("step %d (gas %d) within the budget: %+v", i, 20_000*(i+1), cr)
					}
					c = cr.Claims[0]
				}
				meta, err := store.SessionMeta(ctx, res.Root)
				if err != nil {
					t.Fatal(err)
				}
				if meta.GasUsed != int64(20_000*commits) {
					t.Fatalf("gasUsed %d, want %d", meta.GasUsed, 20_000*commits)
				}
				if tc.budgetByName != "" && (meta.KillKind != joinstore.KillKindBudget || meta.Status != joinstore.SessionFinished ||
					joinstore.OutcomeOf(meta) != joinstore.OutcomeBudget || !strings.Contains(meta.KillReason, "gas budget")) {
					t.Fatalf("meta %+v: outcome %q", meta, joinstore.OutcomeOf(meta))
				}
				if tc.budgetByName == "" && (!meta.KilledAt.IsZero() || meta.Live != 1) {
					t.Fatalf("a session without a budget was stopped: %+v", meta)
				}
				hist, err := store.History(ctx, res.Root)
				if err != nil || len(hist) != commits || hist[0].Gas != "20000" {
					t.Fatalf("history %+v %v", hist, err)
				}
			})
		}
	})
}
