package testenv

import (
	"context"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/xgr-sidecar/xgr/chain"
)

// deployTimeout bounds a helper's wait for a receipt.
const deployTimeout = 30 * time.Second

// Sender returns a sender for development key i that waits for one
// confirmation and polls quickly.
func Sender(t testing.TB, c Chain, i int) *chain.Sender {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deployTimeout)
	defer cancel()
	s, err := chain.NewSender(ctx, c.Backend(), c.Key(i), 1)
	if err != nil {
		t.Fatalf("testenv: sender for key %d: %v", i, err)
	}
	s.Poll = 20 * time.Millisecond
	return s
}

// DeployXRC729 deploys a registry from development key 0 with the given
// initial state and fails the test unless it is mined successfully.
func DeployXRC729(t testing.TB, c Chain, init chain.RegistryInit) (*chain.Registry, *types.Receipt) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deployTimeout)
	defer cancel()
	reg, r, err := chain.DeployRegistry(ctx, Sender(t, c, 0), init)
	if err != nil {
		t.Fatalf("testenv: deploy XRC-729: %v", err)
	}
	return reg, r
}

// DeployXRC137 deploys a rule contract holding text from development key 0
// and fails the test unless it is mined successfully.
func DeployXRC137(t testing.TB, c Chain, text string) (*chain.Rule, chain.RuleWrite) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deployTimeout)
	defer cancel()
	rule, w, err := chain.DeployRule(ctx, Sender(t, c, 0), []byte(text))
	if err != nil {
		t.Fatalf("testenv: deploy XRC-137: %v", err)
	}
	return rule, w
}

// Receipt waits for the receipt of hash and fails the test if it does not
// come within the helper timeout.
func Receipt(t testing.TB, c Chain, hash common.Hash) *types.Receipt {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deployTimeout)
	defer cancel()
	for {
		r, err := c.Backend().TransactionReceipt(ctx, hash)
		if err == nil {
			return r
		}
		select {
		case <-ctx.Done():
			t.Fatalf("testenv: no receipt for %s: %v", hash.Hex(), err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
