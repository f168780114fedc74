package execution_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/testenv"
)

func TestBudgetSingle(t *testing.T) { testBudget(t, testenv.StartRedis(t).Client()) }

func TestBudgetCluster(t *testing.T) { testBudget(t, testenv.StartCluster(t, 3).Client(t)) }

func testBudget(t *testing.T, rdb redis.UniversalClient) {
	ctx := context.Background()
	b := execution.NewBudget(rdb, time.Hour)
	s := execution.Scope{Owner: common.HexToAddress("0x00000000000000000000000000000000000000Ab"), Session: 7}
	if got := execution.BudgetKey(s); got != "xgr:{0x00000000000000000000000000000000000000ab:7}:execgas" {
		t.Fatalf("key %s", got)
	}
	r, err := b.Reserve(ctx, s, "k1", 60, 100)
	if err != nil || r.Existed || r.Over || r.Gas != 60 || r.Total != 60 {
		t.Fatalf("first: %+v %v", r, err)
	}
	// A retry of the same key reserves nothing more, whatever it asks now.
	r, err = b.Reserve(ctx, s, "k1", 90, 100)
	if err != nil || !r.Existed || r.Gas != 60 || r.Total != 60 {
		t.Fatalf("retry: %+v %v", r, err)
	}
	// Over the budget: nothing written.
	r, err = b.Reserve(ctx, s, "k2", 41, 100)
	if err != nil || !r.Over || r.Total != 60 {
		t.Fatalf("over: %+v %v", r, err)
	}
	if r, err = b.Reserve(ctx, s, "k2", 40, 100); err != nil || r.Over || r.Total != 100 {
		t.Fatalf("exactly the budget: %+v %v", r, err)
	}
	if n, err := b.Reserved(ctx, s); err != nil || n != 100 {
		t.Errorf("reserved %d %v", n, err)
	}
	if ttl := rdb.PTTL(ctx, execution.BudgetKey(s)).Val(); ttl <= 0 || ttl > time.Hour {
		t.Errorf("ttl %v", ttl)
	}
	// Another session has its own budget; an unknown one has reserved nothing.
	other := execution.Scope{Owner: s.Owner, Session: 8}
	if n, err := b.Reserved(ctx, other); err != nil || n != 0 {
		t.Errorf("other: %d %v", n, err)
	}
	if _, err := b.Reserve(ctx, s, "k3", 0, 100); err == nil {
		t.Error("zero gas accepted")
	}
	if _, err := b.Reserve(ctx, s, "k3", 1, execution.MaxGas+1); err == nil {
		t.Error("budget above execution.MaxGas accepted")
	}

	// Concurrent reservations never exceed the budget, and each key counts once.
	par := execution.Scope{Owner: s.Owner, Session: 9}
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 2 { // each key twice: a retried Send
				if _, err := b.Reserve(ctx, par, fmt.Sprintf("p%d", i), 10, 255); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	n, _ := b.Reserved(ctx, par)
	fields, _ := rdb.HLen(ctx, execution.BudgetKey(par)).Result()
	if n != 250 || fields != 51 { // 25 keys of 10 (gas and day each) and the total
		t.Errorf("concurrent: total %d, %d fields", n, fields)
	}
}
