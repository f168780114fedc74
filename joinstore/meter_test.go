package joinstore

import (
	"context"
	"math/big"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// finishOne starts a session of o and ends it with one step of gas gas;
// defer leaves its indexes to the hand-back (Commit.DeferFinish).
func finishOne(t *testing.T, s *Store, o, key string, gas uint64, deferFinish bool) (Root, SessionMeta) {
	t.Helper()
	ctx := context.Background()
	r := start(t, s, StartRequest{Owner: o, IdempotencyKey: key})
	c := claimAll(t, s, r.Root, t0, 0)
	if _, err := s.Commit(ctx, c[0], t0.Add(20*time.Second), Commit{Status: "done", Gas: gas, DeferFinish: deferFinish}); err != nil {
		t.Fatal(err)
	}
	m, err := s.SessionMeta(ctx, r.Root)
	if err != nil || m.Status != SessionFinished {
		t.Fatalf("the session did not finish: %+v %v", m, err)
	}
	return r.Root, m
}

// A finished session is added to its owner's meter of the day it finished
// once, however often its end is reported (the commit that ended it, an
// adoption that finds it finished, a hand-back); the owners' index lists
// its owner with its gas; the hook hears of it once.
func TestMeterCountsASessionOnce(t *testing.T) {
	backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		s := newStore(rdb)
		var heard atomic.Int64
		s.SetMeterHook(func(u SessionUsage) { heard.Add(1) })
		root, m := finishOne(t, s, owner, "a", 500, false)
		day := MeterDay(m.FinishedAt)
		// Reported finished again: by a replica's adoption and a hand-back.
		if s.MarkFinished(ctx, root, t0.Add(time.Hour)) {
			t.Error("MarkFinished took a session out of the root index twice")
		}
		if _, err := s.ReleaseFinished(ctx, root, "w1", 1, t0.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		s.finished(ctx, root, t0.Add(2*time.Hour))
		got, err := s.Meter(ctx, owner, m.FinishedAt, m.FinishedAt)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 {
			t.Fatalf("meter: %+v, want one day", got)
		}
		u := got[0]
		if u.Owner != owner || u.Day != day || u.Sessions != 1 || u.Steps != 1 || u.ValidationGas != 500 || u.DurationMs != 20_000 || u.Bytes <= 0 {
			t.Errorf("meter of a session reported finished 4 times: %+v, want 1 session, 1 step, gas 500, 20 s, bytes > 0", u)
		}
		if n := heard.Load(); n != 1 {
			t.Errorf("the meter hook heard of the session %d times, want 1", n)
		}
		// A second session the same day adds up; the index ranks by gas.
		other := "0x00000000000000000000000000000000000000bb"
		finishOne(t, s, owner, "b", 250, false)
		finishOne(t, s, other, "c", 100, false)
		got, _ = s.Meter(ctx, owner, m.FinishedAt, m.FinishedAt)
		if len(got) != 1 || got[0].Sessions != 2 || got[0].Steps != 2 || got[0].ValidationGas != 750 {
			t.Errorf("meter after a second session: %+v, want 2 sessions, 2 steps, gas 750", got)
		}
		owners, err := s.MeteredOwners(ctx, day)
		if err != nil || len(owners) != 2 || owners[0] != owner || owners[1] != other {
			t.Errorf("owners metered on %s: %v %v, want %s and %s", day, owners, err, owner, other)
		}
		top, err := s.TopOwners(ctx, day, 1)
		if err != nil || len(top) != 1 || top[0] != (OwnerGas{Owner: owner, Gas: 750}) {
			t.Errorf("top owner: %+v %v, want %s with 750", top, err, owner)
		}
		// The day's meter and index expire after the retention, its
		// markers with the session's records (the session TTL).
		ok := ownerKeysOf(owner)
		for _, k := range []string{ok.meter(day), meterOwnersKey(day)} {
			if ttl := rdb.TTL(ctx, k).Val(); ttl <= MeterRetention-time.Minute || ttl > MeterRetention {
				t.Errorf("%s lives %v, want the retention %v", k, ttl, MeterRetention)
			}
		}
		if ttl, meta := rdb.TTL(ctx, ok.metered(day)).Val(), rdb.TTL(ctx, keysOf(root).meta()).Val(); ttl < meta || ttl > time.Hour {
			t.Errorf("the markers live %v, the session's meta %v: want at least as long, at most the session TTL (1h)", ttl, meta)
		}
	})
}

// A replica that stops between a session's last commit and its hand-back
// leaves the session unmetered and in the root index: the replica that
// finds it finished there meters it, once.
func TestMeterAfterAStoppedHolder(t *testing.T) {
	backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		s := newStore(rdb)
		root, m := finishOne(t, s, owner, "a", 40, true)
		if got, _ := s.Meter(ctx, owner, m.FinishedAt, m.FinishedAt); len(got) != 0 {
			t.Fatalf("metered before its end was handled: %+v", got)
		}
		if !s.MarkFinished(ctx, root, t0.Add(time.Hour)) {
			t.Fatal("the adoption did not find the finished session in the root index")
		}
		s.MarkFinished(ctx, root, t0.Add(time.Hour))
		got, _ := s.Meter(ctx, owner, m.FinishedAt, m.FinishedAt)
		if len(got) != 1 || got[0].Sessions != 1 || got[0].ValidationGas != 40 {
			t.Errorf("meter after the adoption: %+v, want 1 session with gas 40", got)
		}
		// A throwaway owner's meter goes with it, and its index entry.
		if _, err := s.DeleteOwner(ctx, owner); err != nil {
			t.Fatal(err)
		}
		if n := rdb.DBSize(ctx).Val(); n != 0 {
			t.Errorf("%d keys left after DeleteOwner", n)
		}
	})
}

// A live session is not metered (it is when it finishes), nor a gone one.
func TestMeterSkipsLiveSessions(t *testing.T) {
	backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		s := newStore(rdb)
		r := start(t, s, StartRequest{IdempotencyKey: "live"})
		if _, ok := s.meterSession(ctx, r.Root, t0); ok {
			t.Error("a live session was metered")
		}
		if _, ok := s.meterSession(ctx, Root{Owner: owner, RootPid: 999}, t0); ok {
			t.Error("a session that does not exist was metered")
		}
		if n := rdb.ZCard(ctx, meterOwnersKey(MeterDay(t0))).Val(); n != 0 {
			t.Errorf("the owners' index lists %d owners, want none", n)
		}
	})
}

// usageOf scales the sampled process records to the session's processes.
func TestUsageOfScalesSampledProcesses(t *testing.T) {
	root := Root{Owner: owner, RootPid: 1}
	m := SessionMeta{Steps: 3, GasUsed: 7, Iter: 64, CreatedAt: t0, FinishedAt: t0.Add(time.Second)}
	u := usageOf(root, m, []int64{100, 50}, []int64{10, 10, 0, 0}, t0)
	if u.Bytes != 150+20*64/4 || u.DurationMs != 1000 || u.Day != MeterDay(t0) {
		t.Errorf("usage: %+v", u)
	}
}

// A range that ends before it starts or is longer than the retention is
// refused, naming it.
func TestMeterRefusesBadRanges(t *testing.T) {
	if _, err := meterDays(t0, t0.Add(-24*time.Hour)); err == nil {
		t.Error("a range ending before it starts was taken")
	}
	if _, err := meterDays(t0, t0.Add(MeterRetention+24*time.Hour)); err == nil {
		t.Error("a range longer than the retention was taken")
	}
	if d, err := meterDays(t0, t0.Add(48*time.Hour)); err != nil || len(d) != 3 {
		t.Errorf("3 days: %v %v", d, err)
	}
}

// An execution is metered once per key on the day it became final (gas,
// value and fee exact past 64 bits of wei), and its session's metering
// counts only the rest of its gas as validation gas.
func TestMeterExecutionOnceAndApartFromValidation(t *testing.T) {
	backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		s := newStore(rdb)
		var heard atomic.Int64
		s.SetExecMeterHook(func(ExecUsage) { heard.Add(1) })
		r := start(t, s, StartRequest{IdempotencyKey: "x"})
		value, _ := new(big.Int).SetString("20000000000000000001", 10) // 20 ETH and 1 wei
		e := ExecUsage{Root: r.Root, Key: "k1", FinalAt: t0.Add(10 * time.Second), Gas: 400, Value: value, Fee: big.NewInt(400 * 7)}
		for range 3 { // polled again after a restart: once
			if _, err := s.MeterExecution(ctx, e, t0); err != nil {
				t.Fatal(err)
			}
		}
		c := claimAll(t, s, r.Root, t0, 0)
		if _, err := s.Commit(ctx, c[0], t0.Add(20*time.Second), Commit{Status: "done", Gas: 100 + 400}); err != nil {
			t.Fatal(err)
		}
		got, err := s.Meter(ctx, owner, t0, t0)
		if err != nil || len(got) != 1 {
			t.Fatalf("meter: %+v %v", got, err)
		}
		u := got[0]
		if u.Sessions != 1 || u.ValidationGas != 100 || u.Executions != 1 || u.ExecGas != 400 || u.ValueWei != value.String() || u.FeeWei != "2800" {
			t.Errorf("meter: %+v, want 1 session with validation gas 100, 1 execution with gas 400, value %s, fee 2800", u, value)
		}
		if n := heard.Load(); n != 1 {
			t.Errorf("the exec hook heard of the execution %d times, want 1", n)
		}
		if n := rdb.HLen(ctx, ownerKeysOf(owner).execGas()).Val(); n != 0 {
			t.Errorf("the session's execution gas is still kept after its metering (%d entries)", n)
		}
		if _, err := s.MeterExecution(ctx, ExecUsage{Root: r.Root, Key: "k2", Gas: 1, Value: big.NewInt(-1)}, t0); err == nil {
			t.Error("a negative value was metered")
		}
	})
}
