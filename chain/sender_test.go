package chain_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/testenv"
)

func TestSenderWaitsForConfirmations(t *testing.T) {
	a := testenv.StartAnvil(t)
	g, _ := testenv.DeployXRC729(t, a, chain.RegistryInit{})
	s := testenv.Sender(t, a, 0)
	s.Confirmations = 3

	type result struct {
		w    chain.OSTCWrite
		head uint64
		err  error
	}
	done := make(chan result, 1)
	go func() {
		w, err := g.Put(context.Background(), s, "x", []byte("{}"))
		head, _ := a.Client.BlockNumber(context.Background())
		done <- result{w, head, err}
	}()
	// anvil mines the transaction at once; confirmations need more blocks.
	deadline := time.After(20 * time.Second)
	for {
		select {
		case res := <-done:
			if res.err != nil {
				t.Fatal(res.err)
			}
			mined := res.w.Receipt.BlockNumber.Uint64()
			if res.head < mined+2 {
				t.Fatalf("Put returned at head %d for a transaction in block %d; 3 confirmations need head >= %d", res.head, mined, mined+2)
			}
			return
		case <-deadline:
			t.Fatal("Put with 3 confirmations did not return while blocks were mined")
		case <-time.After(100 * time.Millisecond):
			a.Mine(t, 1)
		}
	}
}

func TestSenderGivesUpWithTheContext(t *testing.T) {
	a := testenv.StartAnvil(t)
	g, _ := testenv.DeployXRC729(t, a, chain.RegistryInit{})
	s := testenv.Sender(t, a, 0)
	s.Confirmations = 5 // no blocks follow: never satisfied
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err := g.Put(ctx, s, "x", []byte("{}"))
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "gave up waiting") {
		t.Fatalf("Put past its deadline: %v", err)
	}
}

func TestSenderExplainsAMinedRevert(t *testing.T) {
	a := testenv.StartAnvil(t)
	g, _ := testenv.DeployXRC729(t, a, chain.RegistryInit{})
	intruder := testenv.Sender(t, a, 1)
	intruder.Auth.GasLimit = 300_000 // skip the estimate, so the revert is mined

	w, err := g.Put(context.Background(), intruder, "x", []byte("{}"))
	var re *chain.RevertError
	if !errors.As(err, &re) || re.Reason != chain.ReasonNotOwner {
		t.Fatalf("mined revert: %v, want reason %q", err, chain.ReasonNotOwner)
	}
	if w.Receipt == nil || w.Receipt.Status != types.ReceiptStatusFailed {
		t.Fatalf("mined revert should return its failed receipt, got %+v", w.Receipt)
	}
	if !strings.Contains(err.Error(), w.Receipt.TxHash.Hex()) {
		t.Fatalf("error %q does not name the transaction", err)
	}
}

// anvil mines on demand by default (automine); with automine off it mines
// on its own (interval mining) or not at all, and MinesOnDemand says no.
func TestMinesOnDemand(t *testing.T) {
	a := testenv.StartAnvil(t)
	ctx := context.Background()
	if got := chain.MinesOnDemand(ctx, a.Client); got != "anvil_getAutomine is true" {
		t.Errorf("anvil with automine: %q", got)
	}
	if err := a.Client.Client().Call(nil, "evm_setAutomine", false); err != nil {
		t.Fatal(err)
	}
	if got := chain.MinesOnDemand(ctx, a.Client); got != "" {
		t.Errorf("anvil without automine: %q", got)
	}
	if got := chain.MinesOnDemand(ctx, struct{}{}); got != "" {
		t.Errorf("a backend without a raw client: %q", got)
	}
}
