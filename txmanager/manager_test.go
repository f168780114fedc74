package txmanager

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/xgr-sidecar/xgr/testenv"
)

// An execution is signed, broadcast, mined and final with its receipt; a
// second submission of the key returns the record and sends nothing.
func TestSubmitToFinalSuccess(t *testing.T) {
	f := newFixture(t)
	m := f.manager(func(c *Config) { c.Finality.Confirmations = 3 })
	ctx := context.Background()
	keys := []string{"0xowner/1/1:1", "0xowner/1/1:2", "0xowner/1/1:3"}
	var sent []common.Hash
	for i, k := range keys {
		r, err := m.Submit(ctx, request(k))
		if err != nil {
			t.Fatal(err)
		}
		if r.State != Signed || r.Nonce != uint64(i) || r.Attempts != 1 {
			t.Fatalf("submit %q: %+v; want signed with nonce %d", k, r, i)
		}
		sent = append(sent, r.TxHash)
	}
	f.mined(sent...)
	// Mined at once (automine), one block each: with 3 confirmations the
	// first is final, the others are included.
	if rep, err := m.Tick(ctx); err != nil || rep.Included != 3 || rep.Final != 1 {
		t.Fatalf("first tick: %+v %v; want 3 included, 1 final", rep, err)
	}
	if r, _ := m.Status(ctx, keys[2]); r.State != Included || r.Block == 0 {
		t.Fatalf("after the first tick: %+v", r)
	}
	recs := f.settle(m, true, keys...)
	for _, k := range keys {
		r := recs[k]
		rc := testenv.Receipt(t, f.anvil, r.TxHash)
		if r.Outcome != Success || r.Block != rc.BlockNumber.Uint64() || r.BlockHash != rc.BlockHash || r.GasUsed != rc.GasUsed || r.GasUsed == 0 {
			t.Errorf("%q: %+v; receipt %+v", k, r, rc)
		}
	}
	again, err := m.Submit(ctx, request(keys[1]))
	if err != nil || again.TxHash != recs[keys[1]].TxHash || again.State != Final {
		t.Fatalf("submit again: %+v %v; want the final record", again, err)
	}
	f.exactlyOnce(m.Sender(), recs)
	if got := f.counter("xgr_txm_final_total", m, "success"); got != 3 {
		t.Errorf("xgr_txm_final_total{outcome=success} = %v; want 3", got)
	}
}

// revertingContract is init code whose runtime code always reverts
// (PUSH1 0 PUSH1 0 REVERT).
const revertingContract = "0x6460006000fd6000526005601bf3"

func deployReverting(t *testing.T, f *fixture) common.Address {
	t.Helper()
	s := testenv.Sender(t, f.anvil, 0)
	r, err := s.Deploy(context.Background(), "deploy a reverting contract", common.FromHex(revertingContract), nil)
	if err != nil {
		t.Fatal(err)
	}
	return r.ContractAddress
}

// A call that reverts on chain ends final with outcome reverted; one that
// would revert without a gas limit is refused by the estimate, storing
// nothing.
func TestRevertedAndRefused(t *testing.T) {
	f := newFixture(t)
	target := deployReverting(t, f)
	m := f.manager(nil)
	ctx := context.Background()
	if _, err := m.Submit(ctx, Request{Key: "est", To: target}); err == nil || !strings.Contains(err.Error(), "estimate gas") {
		t.Fatalf("submit without gas limit to a reverting contract: %v; want an estimate error", err)
	}
	if _, err := m.Status(ctx, "est"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a refused request left a record: %v", err)
	}
	if _, err := m.Submit(ctx, Request{Key: "rev", To: target, GasLimit: 60000}); err != nil {
		t.Fatal(err)
	}
	r := f.settle(m, false, "rev")["rev"]
	if r.Outcome != Reverted || r.ReceiptStatus != types.ReceiptStatusFailed || r.GasUsed == 0 {
		t.Fatalf("reverted call: %+v", r)
	}
	if got := f.counter("xgr_txm_final_total", m, "reverted"); got != 1 {
		t.Errorf("xgr_txm_final_total{outcome=reverted} = %v; want 1", got)
	}
	// The estimate fails for a known key too; its record answers.
	if again, err := m.Submit(ctx, Request{Key: "rev", To: target}); err != nil || again.TxHash != r.TxHash {
		t.Fatalf("a known key whose call no longer estimates: %+v %v; want its record", again, err)
	}
}

// With MaxInFlight 2, further executions queue without a nonce and get
// theirs in submission order as earlier ones are mined.
func TestInFlightCapQueues(t *testing.T) {
	f := newFixture(t)
	m := f.manager(func(c *Config) { c.MaxInFlight = 2 })
	ctx := context.Background()
	var keys []string
	for i := range 6 {
		k := fmt.Sprintf("q/%d", i)
		keys = append(keys, k)
		r, err := m.Submit(ctx, request(k))
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]State{true: Signed, false: Queued}[i < 2]; r.State != want {
			t.Fatalf("%s: %s; want %s", k, r.State, want)
		}
	}
	recs := f.settle(m, false, keys...)
	for i, k := range keys {
		if recs[k].Nonce != uint64(i) {
			t.Errorf("%s has nonce %d; want %d (submission order)", k, recs[k].Nonce, i)
		}
	}
	f.exactlyOnce(m.Sender(), recs)
}

// Two replicas submitting the same keys at once: each key gets one nonce
// and is on chain once; no nonce is skipped.
func TestConcurrentReplicasSubmitOnce(t *testing.T) {
	f := newFixture(t)
	a, b := f.manager(nil), f.manager(nil)
	ctx := context.Background()
	var keys []string
	for i := range 20 {
		keys = append(keys, fmt.Sprintf("c/%d", i))
	}
	errs := make(chan error, 2*len(keys))
	for _, m := range []*Manager{a, b} {
		for _, k := range keys {
			go func() {
				_, err := m.Submit(ctx, request(k))
				errs <- err
			}()
		}
	}
	for range 2 * len(keys) {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	recs := f.settle(a, false, keys...)
	f.exactlyOnce(a.Sender(), recs)
}

// Only the lease holder ticks; a holder whose lease passed to another
// replica commits nothing (its token is fenced off).
func TestLeaseFencesTheTick(t *testing.T) {
	f := newFixture(t)
	a, b := f.manager(nil), f.manager(nil)
	ctx := context.Background()
	if rep, err := a.Tick(ctx); err != nil || !rep.Holder {
		t.Fatalf("a: %+v %v; want the lease", rep, err)
	}
	oldToken := a.token
	if rep, err := b.Tick(ctx); err != nil || rep.Holder {
		t.Fatalf("b while a holds the lease: %+v %v; want no lease", rep, err)
	}
	// a stops renewing; b takes over after the lease expires.
	deadline := 0
	for {
		rep, err := b.Tick(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Holder {
			break
		}
		if deadline++; deadline > 100 {
			t.Fatal("b never took the lease over")
		}
		<-timeAfter(20)
	}
	if nb, na := mustAtoi(t, b.token), mustAtoi(t, oldToken); nb <= na {
		t.Fatalf("b's token %s is not larger than a's %s", b.token, oldToken)
	}
	r, err := a.Submit(ctx, request("k"))
	if err != nil {
		t.Fatal(err)
	}
	err = scriptSettle.Run(ctx, f.rdb, []string{a.k.sender(), a.k.record("k"), a.k.attempts("k"), a.k.pending(), a.k.included()},
		oldToken, "k", "0", r.TxHash.Hex(), "0x", "1", common.Hash{}.Hex(), "21000", "1", "1", "1", "0", "").Err()
	if err == nil || !strings.HasPrefix(err.Error(), "LEASE_LOST") {
		t.Fatalf("settle with the old token: %v; want LEASE_LOST", err)
	}
	if r2, _ := a.Status(ctx, "k"); r2.State != Signed {
		t.Fatalf("after a stale holder's settle: %s; want signed (unchanged)", r2.State)
	}
	recs := f.settle(b, false, "k")
	f.exactlyOnce(b.Sender(), recs)
}

func mustAtoi(t *testing.T, s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("token %q: %v", s, err)
	}
	return n
}

// A batch is submitted in order (nonces follow it) with 2 Redis round trips
// for the submission; beyond MaxInFlight its keys queue. A batch with a key
// twice, or a request that fails its check, stores nothing.
func TestSubmitBatch(t *testing.T) {
	f := newFixture(t)
	m := f.manager(func(c *Config) { c.MaxInFlight = 4 })
	ctx := context.Background()
	if _, err := m.SubmitBatch(ctx, []Request{request("b/x"), request("b/x")}); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Fatalf("a key twice: %v", err)
	}
	if _, err := m.SubmitBatch(ctx, []Request{request("b/y"), {Key: "b/z"}}); err == nil {
		t.Fatal("a request without to accepted")
	}
	for _, k := range []string{"b/x", "b/y"} {
		if _, err := m.Status(ctx, k); !errors.Is(err, ErrNotFound) {
			t.Fatalf("a refused batch left %q: %v", k, err)
		}
	}
	var reqs []Request
	var keys []string
	for i := range 10 {
		keys = append(keys, fmt.Sprintf("b/%d", i))
		reqs = append(reqs, request(keys[i]))
	}
	recs, err := m.SubmitBatch(ctx, reqs)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range recs {
		want := Queued
		if i < 4 {
			want = Signed
		}
		if r.State != want || (i < 4 && r.Nonce != uint64(i)) {
			t.Fatalf("%s: %+v; want %s", keys[i], r, want)
		}
	}
	final := f.settle(m, false, keys...)
	for i, k := range keys {
		if final[k].Nonce != uint64(i) {
			t.Errorf("%s has nonce %d; want %d", k, final[k].Nonce, i)
		}
	}
	f.exactlyOnce(m.Sender(), final)
}
