package testenv

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient/simulated"

	"github.com/xgr-sidecar/xgr/internal/chain"
)

// devBalance is what each development account holds on the simulated chain:
// 10 000 ether, as on anvil.
var devBalance = new(big.Int).Mul(big.NewInt(10_000), big.NewInt(1e18))

// Sim is an in-process chain (go-ethereum's simulated backend) that mines a
// block right after every transaction it accepts, like anvil's default.
type Sim struct {
	// Simulated is the underlying backend (Commit mines, AdjustTime moves
	// time).
	Simulated *simulated.Backend
	// Client sends and reads; its SendTransaction mines at once.
	Client simulated.Client
	// Keys are the funded development keys (DevKeys).
	Keys []*ecdsa.PrivateKey
}

// NewSim builds a simulated chain with the development accounts funded. The
// caller closes it.
func NewSim() (*Sim, error) {
	keys, err := DevKeys(DevAccounts)
	if err != nil {
		return nil, err
	}
	alloc := types.GenesisAlloc{}
	for _, k := range keys {
		alloc[chain.Address(k)] = types.Account{Balance: devBalance}
	}
	b := simulated.NewBackend(alloc)
	// The genesis block has timestamp 0. Gas estimates run on the head block,
	// so a contract that stores block.timestamp would be estimated against a
	// zero time (a cheaper store) and its first transaction run out of gas.
	// One empty block gives the head a real timestamp.
	b.Commit()
	return &Sim{Simulated: b, Client: autoMine{Client: b.Client(), backend: b}, Keys: keys}, nil
}

// StartSim is NewSim for a test: it fails the test on error and closes the
// chain when the test ends.
func StartSim(t testing.TB) *Sim {
	t.Helper()
	s, err := NewSim()
	if err != nil {
		t.Fatalf("testenv: simulated chain: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// Close stops the chain.
func (s *Sim) Close() error { return s.Simulated.Close() }

// Backend is the auto-mining client.
func (s *Sim) Backend() chain.Backend { return s.Client }

// ChainID is the simulated chain's id (always 1337).
func (s *Sim) ChainID() *big.Int {
	id, err := s.Client.ChainID(context.Background())
	if err != nil {
		panic("simulated chain has no chain id: " + err.Error())
	}
	return id
}

// Key is the i-th development key.
func (s *Sim) Key(i int) *ecdsa.PrivateKey { return s.Keys[i] }

// Address is the account of Key(i).
func (s *Sim) Address(i int) common.Address { return chain.Address(s.Keys[i]) }

// Mine mines n empty blocks.
func (s *Sim) Mine(n int) {
	for range n {
		s.Simulated.Commit()
	}
}

// autoMine mines a block after each accepted transaction.
type autoMine struct {
	simulated.Client
	backend *simulated.Backend
}

func (a autoMine) SendTransaction(ctx context.Context, tx *types.Transaction) error {
	if err := a.Client.SendTransaction(ctx, tx); err != nil {
		return err
	}
	a.backend.Commit()
	return nil
}

// CallContractAtHash serves calls at a block hash (EIP-1898), which the
// simulated chain's client supports but its interface type does not list.
func (a autoMine) CallContractAtHash(ctx context.Context, msg ethereum.CallMsg, hash common.Hash) ([]byte, error) {
	c, ok := a.Client.(interface {
		CallContractAtHash(context.Context, ethereum.CallMsg, common.Hash) ([]byte, error)
	})
	if !ok {
		return nil, errors.New("simulated client cannot call at a block hash")
	}
	return c.CallContractAtHash(ctx, msg, hash)
}

// CodeAtHash is CodeAt at a block hash (see CallContractAtHash).
func (a autoMine) CodeAtHash(ctx context.Context, addr common.Address, hash common.Hash) ([]byte, error) {
	c, ok := a.Client.(interface {
		CodeAtHash(context.Context, common.Address, common.Hash) ([]byte, error)
	})
	if !ok {
		return nil, errors.New("simulated client cannot read code at a block hash")
	}
	return c.CodeAtHash(ctx, addr, hash)
}
