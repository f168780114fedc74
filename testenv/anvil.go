package testenv

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/devnet/anvil"
	"github.com/xgr-sidecar/xgr/testenv/provider"
)

// Anvil is a running anvil on a loopback port: a local process or a
// container of provider.FoundryImage with its port published on 127.0.0.1.
type Anvil struct {
	// URL is the JSON-RPC endpoint, http://127.0.0.1:PORT.
	URL string
	// Client is connected to URL.
	Client *ethclient.Client
	// Keys are the funded development keys (DevKeys).
	Keys []*ecdsa.PrivateKey

	chainID *big.Int
	log     func() string
}

// StartAnvil starts anvil on the test provider (see Provider) with
// DevMnemonic's accounts funded and instant mining, waits until it answers
// eth_chainId and stops it when the test ends, printing its log if the test
// failed. Locally that is devnet/anvil (a free loopback port, retried on
// a taken port); a missing binary fails the test with the command that
// installs it.
func StartAnvil(t testing.TB) *Anvil {
	t.Helper()
	return startAnvil(t, kind(t))
}

func startAnvil(t testing.TB, k provider.Kind) *Anvil {
	t.Helper()
	keys, err := DevKeys(DevAccounts)
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	a := &Anvil{Keys: keys}
	if k == provider.Docker {
		if a.URL, a.log, err = dockerAnvil(t); err != nil {
			t.Fatalf("testenv: cannot start anvil: %v", err)
		}
	} else {
		p, err := anvil.Start(context.Background())
		if err != nil {
			t.Fatalf("testenv: cannot start anvil: %v", err)
		}
		a.URL, a.log, a.chainID = p.URL, p.Log, p.ChainID
		t.Cleanup(func() {
			p.Stop()
			if t.Failed() {
				t.Logf("anvil log (%s):\n%s", a.URL, p.Log())
			}
		})
	}
	if a.Client, err = ethclient.Dial(a.URL); err != nil {
		t.Fatalf("testenv: %v", err)
	}
	t.Cleanup(a.Client.Close)
	if a.chainID == nil {
		if a.chainID, err = a.Client.ChainID(context.Background()); err != nil {
			t.Fatalf("testenv: anvil eth_chainId: %v", err)
		}
	}
	return a
}

// Backend is the anvil client.
func (a *Anvil) Backend() chain.Backend { return a.Client }

// ChainID is anvil's chain id (31337 unless configured otherwise).
func (a *Anvil) ChainID() *big.Int { return new(big.Int).Set(a.chainID) }

// Key is the i-th development key.
func (a *Anvil) Key(i int) *ecdsa.PrivateKey { return a.Keys[i] }

// Address is the account of Key(i).
func (a *Anvil) Address(i int) common.Address { return chain.Address(a.Keys[i]) }

// Log is everything anvil printed so far.
func (a *Anvil) Log() string { return a.log() }

// Mine asks anvil to mine n empty blocks at once (anvil_mine).
func (a *Anvil) Mine(t testing.TB, n int) {
	t.Helper()
	if err := a.Client.Client().CallContext(context.Background(), nil, "anvil_mine", hexutil.Uint64(n)); err != nil {
		t.Fatalf("anvil_mine %d: %v", n, err)
	}
}
