package testenv

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/xgr-sidecar/xgr/internal/anvil"
	"github.com/xgr-sidecar/xgr/internal/chain"
)

// Anvil is a running anvil process on a loopback port.
type Anvil struct {
	// URL is the JSON-RPC endpoint, http://127.0.0.1:PORT.
	URL string
	// Client is connected to URL.
	Client *ethclient.Client
	// Keys are the funded development keys (DevKeys).
	Keys []*ecdsa.PrivateKey

	proc *anvil.Process
}

// StartAnvil starts anvil (internal/anvil: a free loopback port with
// DevMnemonic's accounts funded and instant mining, retried on a taken
// port) and stops it when the test ends, printing its log if the test
// failed. A missing binary fails the test with the command that installs it.
func StartAnvil(t testing.TB) *Anvil {
	t.Helper()
	keys, err := DevKeys(DevAccounts)
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	p, err := anvil.Start(context.Background())
	if err != nil {
		t.Fatalf("testenv: cannot start anvil: %v", err)
	}
	a := &Anvil{URL: p.URL, Keys: keys, proc: p}
	if a.Client, err = ethclient.Dial(p.URL); err != nil {
		p.Stop()
		t.Fatalf("testenv: %v", err)
	}
	t.Cleanup(func() {
		a.Client.Close()
		p.Stop()
		if t.Failed() {
			t.Logf("anvil log (%s):\n%s", a.URL, p.Log())
		}
	})
	return a
}

// Backend is the anvil client.
func (a *Anvil) Backend() chain.Backend { return a.Client }

// ChainID is anvil's chain id (31337 unless configured otherwise).
func (a *Anvil) ChainID() *big.Int { return new(big.Int).Set(a.proc.ChainID) }

// Key is the i-th development key.
func (a *Anvil) Key(i int) *ecdsa.PrivateKey { return a.Keys[i] }

// Address is the account of Key(i).
func (a *Anvil) Address(i int) common.Address { return chain.Address(a.Keys[i]) }

// Log is everything anvil printed so far.
func (a *Anvil) Log() string { return a.proc.Log() }

// Mine asks anvil to mine n empty blocks at once (anvil_mine).
func (a *Anvil) Mine(t testing.TB, n int) {
	t.Helper()
	if err := a.Client.Client().CallContext(context.Background(), nil, "anvil_mine", hexutil.Uint64(n)); err != nil {
		t.Fatalf("anvil_mine %d: %v", n, err)
	}
}
