package onchain_test

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/execution/onchain"
	"github.com/xgr-sidecar/xgr/txmanager"
)

// What the node would refuse for good is refused at the preflight, before a
// nonce is reserved (issue 37, item 2): gas.limit 1, a value above the
// executor's balance, 129 KiB of calldata (16 × 8000-character strings),
// and with preflightEstimate a call that reverts. Each is a refusal naming
// its check; nothing is recorded, no budget reserved, and the next
// execution gets the executor's next nonce (none was used).
func TestPreflightRefusesBeforeANonce(t *testing.T) {
	f := newFixture(t, func(c *execution.Config) {
		c.Policy.MaxGasLimit = 6_000_000
		c.PreflightEstimate = true
		// The policy lets value through (caps far above any balance), so
		// that the value above the balance meets the preflight.
		lots := new(big.Int).Exp(big.NewInt(10), big.NewInt(30), nil)
		c.Policy.Targets[0].Value, c.Policy.Targets[0].MaxValue = true, lots
		c.Policy.Value = execution.ValueCaps{MaxPerExecution: lots, MaxPerSession: lots, MaxPerOwnerPerDay: lots}
	})
	ctx := context.Background()
	sc := f.scope(2, 7)
	bal, err := f.anvil.Client.BalanceAt(ctx, f.sender.Address(), nil)
	if err != nil {
		t.Fatal(err)
	}
	nonce, err := f.anvil.Client.PendingNonceAt(ctx, f.sender.Address())
	if err != nil {
		t.Fatal(err)
	}
	gas1 := f.target.settle(t, 5, "gas1")
	gas1.GasLimit = 1
	rich := f.target.settle(t, 5, "rich")
	rich.GasLimit, rich.Value = 100_000, new(big.Int).Add(bal, big.NewInt(1))
	huge := f.target.settle(t, 5, strings.Repeat("x", 16*8000+4000))
	huge.GasLimit = 5_900_000
	reverts := f.target.settle(t, 0, "zero")
	reverts.GasLimit = 100_000
	for i, c := range []struct {
		call           execution.Call
		limit, contain string
	}{
		{gas1, onchain.LimitIntrinsicGas, "gas limit 1 is below"},
		{rich, onchain.LimitBalance, "is more than the executor's balance"},
		{huge, onchain.LimitTxSize, "the node takes at most 131072 (executions.maxTxBytes)"},
		{reverts, onchain.LimitEstimate, "amount is zero"},
	} {
		key := "0xowner/7/7:" + string(rune('a'+i))
		err := f.sender.Send(ctx, sc, key, c.call)
		refusal(t, err, c.limit, c.contain)
		if _, err := f.sender.Manager().Status(ctx, key); !errors.Is(err, txmanager.ErrNotFound) {
			t.Errorf("%s: refused at the preflight but the manager holds it (%v)", c.limit, err)
		}
	}
	if n, err := execution.NewBudget(f.rdb, 0).Reserved(ctx, sc); err != nil || n != 0 {
		t.Errorf("budget reserved by refused calls: %d %v", n, err)
	}
	ok := f.target.settle(t, 5, "ok")
	ok.GasLimit = 100_000
	if err := f.sender.Send(ctx, sc, "0xowner/7/7:ok", ok); err != nil {
		t.Fatal(err)
	}
	o := f.outcome(t, "0xowner/7/7:ok")
	tx, _, err := f.anvil.Client.TransactionByHash(ctx, o.TxHash)
	if err != nil || o.Status != 1 || tx.Nonce() != nonce {
		t.Fatalf("the next execution: %+v, nonce %d (%v); want success under nonce %d, the one no refused call used", o, tx.Nonce(), err, nonce)
	}
}

// A permanent send error after signing (the preflight bypassed: the call
// submitted to the manager directly, as a call whose condition changed
// between preflight and send would be) fails the step's execution with
// the node's reason, and another owner's execution sent behind it lands
// within one poll (the reactor's default, 1 s) of that failure.
func TestPermanentSendErrorFailsTheExecution(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	bad := f.target.settle(t, 5, "bad")
	if _, err := f.sender.Manager().Submit(ctx, txmanager.Request{Key: "0xowner1/7/7:1", To: bad.To, Data: bad.Data, GasLimit: 1}); err != nil {
		t.Fatal(err)
	}
	if err := f.sender.Send(ctx, f.scope(2, 8), "0xowner2/8/8:1", f.target.settle(t, 5, "good")); err != nil {
		t.Fatal(err)
	}
	var failedAt, landedAt time.Time
	var ob, og execution.Outcome
	deadline := time.Now().Add(20 * time.Second)
	for (failedAt.IsZero() || landedAt.IsZero()) && time.Now().Before(deadline) {
		if o, ok, err := f.sender.Outcome(ctx, "0xowner1/7/7:1"); err != nil {
			t.Fatal(err)
		} else if ok && failedAt.IsZero() {
			ob, failedAt = o, time.Now()
		}
		if o, ok, err := f.sender.Outcome(ctx, "0xowner2/8/8:1"); err != nil {
			t.Fatal(err)
		} else if ok && landedAt.IsZero() {
			og, landedAt = o, time.Now()
		}
		time.Sleep(10 * time.Millisecond)
	}
	if failedAt.IsZero() {
		t.Fatal("the execution the node refuses is not final after 20 s: it jams the executor's nonce")
	}
	if !ob.Lost || !strings.Contains(ob.Error, "intrinsic gas too low") || !strings.Contains(ob.Error, "refused the transaction for good") {
		t.Errorf("the refused execution's outcome: %+v; want Lost with the node's reason", ob)
	}
	if landedAt.IsZero() || og.Status != 1 {
		t.Fatalf("the next owner's execution: %+v (final %v); want success", og, !landedAt.IsZero())
	}
	if d := landedAt.Sub(failedAt); d > time.Second {
		t.Errorf("the next owner's execution landed %s after the failure; want within one poll (1 s)", d)
	}
	if n := f.target.calls(t, f.anvil, "bad"); n != 0 {
		t.Errorf("the refused call ran %d times", n)
	}
}
