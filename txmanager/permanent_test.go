package txmanager

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/txpool"
	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/testenv"
)

// PermanentReason on the errors go-ethereum's pool and core give (wrapped
// as txpool.ValidateTransaction wraps them), anvil's strings (as anvil
// 1.7.1 answered eth_sendRawTransaction in TestNoJam's variants), and
// errors that must stay transient.
func TestPermanentReason(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		// go-ethereum
		{fmt.Errorf("%w: gas 1, minimum needed 21000", core.ErrIntrinsicGas), ReasonIntrinsicGas},
		{fmt.Errorf("%w: gas 2200000, minimum needed 5304840", core.ErrFloorDataGas), ReasonIntrinsicGas},
		{fmt.Errorf("%w: balance 0, tx cost 21000000, overshot 21000000", core.ErrInsufficientFunds), ReasonFunds},
		{core.ErrInsufficientFundsForTransfer, ReasonFunds},
		{fmt.Errorf("%w: balance 10, queued cost 8, tx cost 5, overshot 3", errors.New("transaction would cause overdraft")), ReasonFunds},
		{fmt.Errorf("%w: transaction size 132210, limit 131072", txpool.ErrOversizedData), ReasonOversized},
		{txpool.ErrGasLimit, ReasonGasLimit},
		{fmt.Errorf("%w (cap: 16777216, tx: 30000000)", core.ErrGasLimitTooHigh), ReasonGasLimit},
		{fmt.Errorf("%w: address 0x70997970C51812dc3A010C7d01b50e0d17dc79C8, maxFeePerGas: 1, baseFee: 7", core.ErrFeeCapTooLow), ReasonFeeCap},
		{errors.New("tx fee (1.50 ether) exceeds the configured cap (1.00 ether)"), ReasonTxFeeCap},
		{errors.New("413 Request Entity Too Large"), ReasonOversized},
		// anvil 1.7.1
		{errors.New("intrinsic gas too low"), ReasonIntrinsicGas},
		{errors.New("Insufficient funds for gas * price + value"), ReasonFunds},
		{errors.New("max fee per gas less than block base fee"), ReasonFeeCap},
		{errors.New("intrinsic gas too high -- tx.gas_limit > env.block.gas_limit"), ReasonGasLimit},
		// transient, or the node has the transaction or its nonce
		{nil, ""},
		{txpool.ErrAlreadyKnown, ""},
		{core.ErrNonceTooLow, ""},
		{core.ErrNonceTooHigh, ""},
		{txpool.ErrReplaceUnderpriced, ""},
		{txpool.ErrUnderpriced, ""},
		{txpool.ErrTxGasPriceTooLow, ""},
		{errors.New("txpool is full"), ""},
		{txpool.ErrAccountLimitExceeded, ""},
		{errors.New(`Post "http://127.0.0.1:8545": dial tcp 127.0.0.1:8545: connect: connection refused`), ""},
		{context.DeadlineExceeded, ""},
	} {
		if got := PermanentReason(c.err); got != c.want {
			t.Errorf("PermanentReason(%v) = %q; want %q", c.err, got, c.want)
		}
	}
}

// The three ways one execution jammed the sender for every owner
// (issue 37, item 2), each after signing (the manager has no preflight):
// gas limit 1 (anvil: intrinsic gas too low), a value above the balance
// (insufficient funds), and 129 KiB of calldata under its EIP-7623 floor
// (anvil accepts it and drops it, every time). The bad key ends failed
// with the node's reason and is not on chain; its nonce is filled in the
// same tick; the next owner's execution, submitted behind it, is mined by
// then and final on the next tick; the sender's nonces on chain are
// contiguous. On a single Redis and on a 3-master cluster.
func TestNoJam(t *testing.T) {
	for _, topo := range []string{"single", "cluster"} {
		t.Run(topo, func(t *testing.T) {
			var rdb redis.UniversalClient
			if topo == "single" {
				rdb = testenv.StartRedis(t).Client()
			} else {
				rdb = testenv.StartCluster(t, 3).Client(t)
				if err := Preload(context.Background(), rdb); err != nil {
					t.Fatal(err)
				}
			}
			for i, v := range []struct {
				name, reason, nodeSays string
				bad                    func(f *fixture, key string) Request
			}{
				{"intrinsic-gas", ReasonIntrinsicGas, "intrinsic gas too low", func(f *fixture, key string) Request {
					r := request(key)
					r.GasLimit = 1
					return r
				}},
				{"insufficient-funds", ReasonFunds, "nsufficient funds", func(f *fixture, key string) Request {
					bal, err := f.anvil.Client.BalanceAt(context.Background(), f.anvil.Address(f.keyIdx), nil)
					if err != nil {
						t.Fatal(err)
					}
					r := request(key)
					r.GasLimit, r.Value = 50_000, new(big.Int).Add(bal, big.NewInt(1e18))
					return r
				}},
				{"oversized-dropped", ReasonDropped, "kept it neither in its pool nor in a block", func(f *fixture, key string) Request {
					// 16 × 8000 characters of string arguments, as in the
					// issue: 129 KiB, intrinsic gas 2,134,536, floor 5,304,840.
					r := request(key)
					r.Data, r.GasLimit = bytes.Repeat([]byte{0xab}, 129*1024), 3_000_000
					return r
				}},
			} {
				t.Run(v.name, func(t *testing.T) {
					f := newFixtureOn(t, rdb)
					f.keyIdx = i + 1
					noJam(t, f, v.bad(f, fmt.Sprintf("0xowner1/%d/1:1", i)), v.reason, v.nodeSays)
				})
			}
		})
	}
}

func noJam(t *testing.T, f *fixture, bad Request, reason, nodeSays string) {
	ctx := context.Background()
	// A long lease: a tick on a loaded machine must not lose it midway.
	m := f.manager(func(c *Config) { c.Rebroadcast, c.LeaseTTL = time.Millisecond, 10*time.Second })
	if _, err := m.Submit(ctx, bad); err != nil {
		t.Fatalf("submit the bad execution: %v", err)
	}
	good, err := m.Submit(ctx, request("0xowner2/9/1:1"))
	if err != nil {
		t.Fatal(err)
	}
	if good.Nonce != 1 {
		t.Fatalf("the next owner's execution got nonce %d; want 1, behind the bad one", good.Nonce)
	}
	// Tick until the bad key fails (before the fix it is sent again
	// forever and the next owner's execution never lands).
	deadline := time.Now().Add(15 * time.Second)
	var rep TickReport
	for {
		rep = m.mustTick(t)
		rec, err := m.Status(ctx, bad.Key)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Done() {
			if rec.Outcome != Failed || !strings.Contains(rec.Error, nodeSays) || !strings.Contains(rec.Error, "("+reason+")") {
				t.Fatalf("bad key final as %s, error %q; want failed, (%s), %q", rec.Outcome, rec.Error, reason, nodeSays)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the bad execution is still %s after 15 s (attempts %d): it jams nonce %d and the next owner's execution behind it",
				rec.State, rec.Attempts, rec.Nonce)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if rep.Failed != 1 || rep.Filled != 1 {
		t.Fatalf("the failing tick: %+v; want 1 failed and its nonce filled in the same tick", rep)
	}
	if _, err := m.Status(ctx, "fill:0"); err != nil {
		t.Fatal(err)
	}
	// Within one poll of the failure the next owner's execution is mined
	// (the fill closed the gap under it: anvil mines both once it has the
	// fill, here waited for as the sender's mined nonce 2; the attempt may
	// be a bump of the one submitted) and the next tick makes it final.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		n, err := f.anvil.Client.NonceAt(ctx, m.Sender(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if n >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the sender's mined nonce is %d 30 s after the failure; want 2 (the fill and the next owner's execution)", n)
		}
	}
	m.mustTick(t)
	g, err := m.Status(ctx, good.Key)
	if err != nil {
		t.Fatal(err)
	}
	if g.Outcome != Success {
		t.Fatalf("next owner's execution one tick after the failure: %s %s; want final success", g.State, g.Outcome)
	}
	f.exactlyOnce(m.Sender(), map[string]Record{good.Key: g})
	if txs := f.sent(m.Sender()); len(txs) != 2 {
		t.Errorf("sender has %d transactions on chain; want 2 (the fill at 0, the next owner's at 1)", len(txs))
	}
	if got := f.permanentFailures(m, reason); got != 1 {
		t.Errorf("xgr_txm_permanent_failures_total{reason=%q} = %v; want 1", reason, got)
	}
	if got := f.counter("xgr_txm_final_total", m, string(Failed)); got != 1 {
		t.Errorf("xgr_txm_final_total{outcome=failed} = %v; want 1", got)
	}
	// The failed key is final: submitted again it is answered from its
	// record, never signed under another nonce.
	again, err := m.Submit(ctx, bad)
	if err != nil || again.Outcome != Failed || again.Nonce != 0 {
		t.Fatalf("resubmitted bad key: %+v, %v; want its failed record under nonce 0", again.Outcome, err)
	}
}

// permanentFailures reads xgr_txm_permanent_failures_total{reason} of m's
// sender.
func (f *fixture) permanentFailures(m *Manager, reason string) float64 {
	f.t.Helper()
	fams, err := f.reg.Gather()
	if err != nil {
		f.t.Fatal(err)
	}
	for _, fam := range fams {
		if fam.GetName() != "xgr_txm_permanent_failures_total" {
			continue
		}
	next:
		for _, mt := range fam.GetMetric() {
			for _, l := range mt.GetLabel() {
				want := map[string]string{"chain_id": m.labels[0], "sender": m.labels[1], "reason": reason}
				if l.GetValue() != want[l.GetName()] {
					continue next
				}
			}
			return mt.GetCounter().GetValue()
		}
	}
	return 0
}
