package txmanager

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
)

// TestSurvivorLearnsItsReceiptWhileTheHolderIsDead: the replica holding
// the sender's lease dies (stops ticking) with a long lease left. Another
// replica's own execution is mined; Observe reports it final from the
// chain within a few Polls, as the holder's tick would record it, without
// writing it. Before, it waited for the dead replica's lease to end (15 s
// by default) and a tick of the next holder.
func TestSurvivorLearnsItsReceiptWhileTheHolderIsDead(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	const poll = 200 * time.Millisecond
	dead := f.manager(func(c *Config) { c.Replica = "replica-a"; c.LeaseTTL = time.Minute; c.Poll = poll })
	if rep, err := dead.Tick(ctx); err != nil || !rep.Holder {
		t.Fatalf("the first replica's tick: %+v, %v; want it to hold the lease", rep, err)
	}
	holder := f.rdb.HGet(ctx, dead.k.sender(), "lease").Val()
	if !strings.HasPrefix(holder, "replica-a/") {
		t.Errorf("the lease holder is recorded as %q; want the replica's name, replica-a/<random>", holder)
	}
	live := f.manager(func(c *Config) { c.Replica = "replica-b"; c.LeaseTTL = time.Minute; c.Poll = poll })
	rec, err := live.Submit(ctx, request("own"))
	if err != nil || rec.State != Signed {
		t.Fatalf("submit: %+v, %v", rec, err)
	}
	f.mined(rec.TxHash)
	// While the holder is fresh, Observe is Status: the holder records.
	if token, err := dead.lease(ctx); err != nil || token == "" { // a renewal, without a tick's settle
		t.Fatalf("renew: %q, %v", token, err)
	}
	if got, err := live.Observe(ctx, "own"); err != nil || got.Done() {
		t.Fatalf("observe while the holder renews: %s, %v; want it left to the holder", got.State, err)
	}
	silentSince := time.Now()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if rep, err := live.Tick(ctx); err != nil || rep.Holder {
			t.Fatalf("tick of the survivor: %+v, %v; want the lease still held by the dead replica", rep, err)
		}
		got, err := live.Observe(ctx, "own")
		if err != nil {
			t.Fatal(err)
		}
		if got.Done() {
			if got.Outcome != Success || !got.Learned || got.TxHash != rec.TxHash || got.Block == 0 {
				t.Fatalf("learned %+v; want final success of %s", got, rec.TxHash)
			}
			t.Logf("final from the chain %v after the holder's last renewal (Poll %v, lease %v)", time.Since(silentSince).Round(10*time.Millisecond), poll, time.Minute)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still %s 5 s after the holder went silent (its lease has %v left); want final from the chain", got.State, time.Minute)
		}
		time.Sleep(poll)
	}
	if st, _ := live.Status(ctx, "own"); st.State != Signed {
		t.Errorf("Observe wrote the record (%s); the next holder records it", st.State)
	}
	// The dead replica's lease ends; the survivor takes over, names the
	// previous holder and records the key.
	f.rdb.HSet(ctx, dead.k.sender(), "leaseUntil", "0")
	final := f.settle(live, false, "own")
	if final["own"].Outcome != Success || final["own"].Learned {
		t.Errorf("recorded %+v; want final success", final["own"])
	}
	if h := f.rdb.HGet(ctx, live.k.sender(), "lease").Val(); !strings.HasPrefix(h, "replica-b/") {
		t.Errorf("lease holder after the takeover %q; want replica-b/…", h)
	}
}

// TestFirstReservationSyncsWithTheChain: a replica ran an execution and
// stopped; the key then sent a transaction outside xgr. A new replica's
// first execution reserves the chain's next nonce, not the stale one in
// Redis, so it lands without waiting for a tick. Before, it reserved the
// used nonce and the key ended lost.
func TestFirstReservationSyncsWithTheChain(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	old := f.manager(nil)
	f.settle(old, false, f.submitKey(old, "before"))
	// The key sends nonce 1 outside xgr.
	tx, err := types.SignNewTx(f.anvil.Key(f.keyIdx), types.LatestSignerForChainID(f.anvil.ChainID()), &types.DynamicFeeTx{
		ChainID: f.anvil.ChainID(), Nonce: 1, GasTipCap: gwei(1), GasFeeCap: gwei(10), Gas: 21000, To: &sink})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.anvil.Client.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	f.mined(tx.Hash())
	fresh := f.manager(nil)
	rec, err := fresh.Submit(ctx, request("after"))
	if err != nil {
		t.Fatal(err)
	}
	if rec.Nonce != 2 {
		t.Fatalf("the new replica reserved nonce %d; want 2 (the chain used 0 and 1)", rec.Nonce)
	}
	got := f.settle(fresh, false, "after")["after"]
	if got.Outcome != Success {
		t.Fatalf("record %+v; want success", got)
	}
}

// submitKey submits key through m and returns it.
func (f *fixture) submitKey(m *Manager, key string) string {
	f.t.Helper()
	if _, err := m.Submit(context.Background(), request(key)); err != nil {
		f.t.Fatal(err)
	}
	return key
}
