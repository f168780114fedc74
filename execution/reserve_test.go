package execution_test

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/testenv"
)

func TestReserveExecutionSingle(t *testing.T) {
	testReserveExecution(t, testenv.StartRedis(t).Client())
}

func TestReserveExecutionCluster(t *testing.T) {
	testReserveExecution(t, testenv.StartCluster(t, 3).Client(t))
}

func wei(s string) *big.Int {
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic(s)
	}
	return v
}

func testReserveExecution(t *testing.T, rdb redis.UniversalClient) {
	ctx := context.Background()
	b := execution.NewBudget(rdb, time.Hour)
	owner := common.HexToAddress("0x00000000000000000000000000000000000000Ab")
	s1 := execution.Scope{Owner: owner, Session: 1}
	s2 := execution.Scope{Owner: owner, Session: 2}
	if got := execution.OwnerDayKey(s1, "2025-03-04"); got != "xgr:{0x00000000000000000000000000000000000000ab}:execday:2025-03-04" {
		t.Fatalf("owner-day key %s", got)
	}
	day1 := time.Date(2025, 3, 4, 23, 59, 0, 0, time.UTC)
	day2 := day1.Add(2 * time.Minute)
	fee := big.NewInt(10)
	lim := execution.Ceilings{SessionGas: 300, SessionGasLimit: execution.LimitSessionGas, SessionValue: wei("5000000000000000000"),
		OwnerDayGas: 500, OwnerDayValue: wei("7000000000000000000"), OwnerDaySpend: wei("7000000000000000999")}
	reserve := func(s execution.Scope, key string, now time.Time, gas uint64, value string) execution.ExecReservation {
		t.Helper()
		r, err := b.ReserveExecution(ctx, s, key, now, execution.Charge{Gas: gas, Value: wei(value), MaxFeePerGas: fee}, lim)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	refused := func(r execution.ExecReservation, limit, contains string) {
		t.Helper()
		if r.Refusal == nil || r.Refusal.Limit != limit || !strings.Contains(r.Refusal.Reason, contains) {
			t.Errorf("want a refusal %s containing %q, got %+v", limit, contains, r.Refusal)
		}
	}
	usage := func(day string) execution.OwnerDayUsage {
		t.Helper()
		u, err := b.OwnerDay(ctx, s1, day)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}

	// 3 ether over 2^53 wei, exact.
	r := reserve(s1, "k1", day1, 100, "3000000000000000001")
	if r.Refusal != nil || r.Existed || r.Gas != 100 || r.Value.String() != "3000000000000000001" || r.Day != "2025-03-04" {
		t.Fatalf("first: %+v", r)
	}
	// A retry after midnight: the first try's reservation and day, nothing more counted.
	r = reserve(s1, "k1", day2, 150, "1")
	if r.Refusal != nil || !r.Existed || r.Gas != 100 || r.Value.String() != "3000000000000000001" || r.Day != "2025-03-04" {
		t.Fatalf("retry: %+v", r)
	}
	if u := usage("2025-03-04"); u.Gas != 100 || u.Value.String() != "3000000000000000001" || u.Spend.String() != "3000000000000001001" {
		t.Errorf("day after the retry: %+v", u)
	}
	if u := usage("2025-03-05"); u.Gas != 0 || u.Value.Sign() != 0 {
		t.Errorf("the next day counted the retry: %+v", u)
	}
	// The session's value cap: 3 ether + 2 ether is over 5 ether by 1 wei.
	refused(reserve(s1, "k2", day1, 10, "2000000000000000000"), execution.LimitSessionValue, "exceeds the session's value cap 5000000000000000000 wei")
	// The session's gas budget.
	refused(reserve(s1, "k3", day1, 201, "0"), execution.LimitSessionGas, "exceeds the session's gas budget 300")
	if n, _ := b.Reserved(ctx, s1); n != 100 {
		t.Errorf("session after its refusals: %d", n)
	}

	// The owner's day counts every session: session 2 fits its own budget
	// but not the owner's value per day (3 + 4.000…1 > 7 ether)...
	refused(reserve(s2, "j1", day1, 100, "4000000000000000000"), execution.LimitOwnerValue, "exceeds the owner's value per day 7000000000000000000 wei")
	// ... and its session reservation is released again.
	if n, _ := b.Reserved(ctx, s2); n != 0 {
		t.Errorf("session 2 keeps %d gas of a refused execution", n)
	}
	if v := rdb.HGet(ctx, execution.BudgetKey(s2), "value").Val(); v != "0" {
		t.Errorf("session 2 keeps value %q", v)
	}
	// 3.999… ether: the value fits, the spend (+ 100 gas × 10 wei) does
	// not: 3000000000000000001 + 1000 + 3999999999999999999 + 1000 > cap.
	refused(reserve(s2, "j2", day1, 100, "3999999999999999999"), execution.LimitOwnerSpend, "exceeds the owner's spend per day 7000000000000000999 wei")
	// The owner's gas per day: 100 + 300 + 101 > 500.
	if r := reserve(s2, "j3", day1, 300, "0"); r.Refusal != nil {
		t.Fatalf("j3: %+v", r.Refusal)
	}
	refused(reserve(execution.Scope{Owner: owner, Session: 3}, "i1", day1, 101, "0"), execution.LimitOwnerGas, "exceeds the owner's gas per day 500")
	if u := usage("2025-03-04"); u.Gas != 400 || u.Value.String() != "3000000000000000001" || u.Spend.String() != "3000000000000004001" {
		t.Errorf("day: %+v", u)
	}
	// Another day, another owner: their own limits.
	if r := reserve(execution.Scope{Owner: owner, Session: 3}, "i1", day2, 101, "0"); r.Refusal != nil || r.Day != "2025-03-05" {
		t.Errorf("next day: %+v", r)
	}
	other := execution.Scope{Owner: common.HexToAddress("0x00000000000000000000000000000000000000cd"), Session: 1}
	if r := reserve(other, "o1", day1, 300, "0"); r.Refusal != nil {
		t.Errorf("other owner: %+v", r.Refusal)
	}
	// No spend cap of its own: only gas and value bound the day.
	free := lim
	free.OwnerDaySpend = nil
	if r, err := b.ReserveExecution(ctx, execution.Scope{Owner: other.Owner, Session: 2}, "o2", day1, execution.Charge{Gas: 100, MaxFeePerGas: wei("1" + strings.Repeat("0", 40))}, free); err != nil || r.Refusal != nil {
		t.Errorf("no spend cap: %+v %v", r, err)
	}
	// Owner-day keys expire (a few days); session keys with the budget's TTL.
	if ttl := rdb.PTTL(ctx, execution.OwnerDayKey(s1, "2025-03-04")).Val(); ttl <= 0 || ttl > execution.OwnerDayTTL {
		t.Errorf("owner-day ttl %v", ttl)
	}
	if ttl := rdb.PTTL(ctx, execution.BudgetKey(s2)).Val(); ttl <= 0 || ttl > time.Hour {
		t.Errorf("session ttl %v", ttl)
	}
	if _, err := b.ReserveExecution(ctx, s1, "z", day1, execution.Charge{Gas: 0}, lim); err == nil {
		t.Error("zero gas accepted")
	}
	if _, err := b.ReserveExecution(ctx, s1, "z", day1, execution.Charge{Gas: 1, Value: big.NewInt(-1)}, lim); err == nil {
		t.Error("negative value accepted")
	}
}

// Many sessions of one owner reserving at once never exceed the owner's
// day, in gas or in wei, and each key counts once.
func TestReserveOwnerDayConcurrentSingle(t *testing.T) {
	testReserveOwnerDayConcurrent(t, testenv.StartRedis(t).Client())
}

func TestReserveOwnerDayConcurrentCluster(t *testing.T) {
	testReserveOwnerDayConcurrent(t, testenv.StartCluster(t, 3).Client(t))
}

func testReserveOwnerDayConcurrent(t *testing.T, rdb redis.UniversalClient) {
	ctx := context.Background()
	b := execution.NewBudget(rdb, time.Hour)
	owner := common.HexToAddress("0x00000000000000000000000000000000000000Ef")
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	oneEther := wei("1000000000000000000")
	for _, c := range []struct {
		name   string
		lim    execution.Ceilings
		charge execution.Charge
		limit  string
	}{
		{"gas", execution.Ceilings{SessionGas: 1000, OwnerDayGas: 255}, execution.Charge{Gas: 10}, execution.LimitOwnerGas},
		{"value", execution.Ceilings{SessionGas: 1000, SessionValue: oneEther, OwnerDayGas: execution.MaxGas, OwnerDayValue: wei("25500000000000000000")},
			execution.Charge{Gas: 10, Value: oneEther}, execution.LimitOwnerValue},
		{"spend", execution.Ceilings{SessionGas: 1000, OwnerDayGas: execution.MaxGas, OwnerDaySpend: wei("25500000000000000000")},
			execution.Charge{Gas: 10, MaxFeePerGas: wei("100000000000000000")}, execution.LimitOwnerSpend},
	} {
		t.Run(c.name, func(t *testing.T) {
			var wg sync.WaitGroup
			var mu sync.Mutex
			granted := map[string]bool{}
			for i := range 40 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					s := execution.Scope{Owner: owner, Session: uint64(i + 1)}
					key := fmt.Sprintf("%s/%d", c.name, i)
					for range 2 { // each key twice: a retried Send
						r, err := b.ReserveExecution(ctx, s, key, now, c.charge, c.lim)
						if err != nil {
							t.Error(err)
							return
						}
						if r.Refusal != nil && r.Refusal.Limit != c.limit {
							t.Errorf("%s: %v", key, r.Refusal)
						}
						mu.Lock()
						if r.Refusal == nil {
							granted[key] = true
						}
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			u, err := b.OwnerDay(ctx, execution.Scope{Owner: owner}, execution.Day(now))
			if err != nil {
				t.Fatal(err)
			}
			if len(granted) != 25 {
				t.Errorf("%d executions granted, want 25", len(granted))
			}
			switch c.name {
			case "gas":
				if u.Gas != 250 {
					t.Errorf("day gas %d, want 250", u.Gas)
				}
			case "value":
				if u.Value.Cmp(wei("25000000000000000000")) != 0 {
					t.Errorf("day value %s, want 25 ether", u.Value)
				}
			case "spend":
				if u.Spend.Cmp(wei("25000000000000000000")) != 0 {
					t.Errorf("day spend %s, want 25 ether", u.Spend)
				}
			}
			// The refused sessions hold nothing.
			var held uint64
			for i := range 40 {
				n, _ := b.Reserved(ctx, execution.Scope{Owner: owner, Session: uint64(i + 1)})
				held += n
			}
			if want := uint64(len(granted)) * 10; held != want {
				t.Errorf("sessions hold %d gas, want %d", held, want)
			}
			// A fresh owner-day per case.
			rdb.Del(ctx, execution.OwnerDayKey(execution.Scope{Owner: owner}, execution.Day(now)))
			for i := range 40 {
				rdb.Del(ctx, execution.BudgetKey(execution.Scope{Owner: owner, Session: uint64(i + 1)}))
			}
		})
	}
}
