// Package devchain is an in-process development chain (go-ethereum's
// simulated backend) with anvil's development accounts funded, mining a
// block right after every transaction: for tests and for "xgr dev".
package devchain

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient/simulated"

	"github.com/xgr-sidecar/xgr/internal/chain"
)

// Balance is what each development account holds: 10 000 ether, as on anvil.
var Balance = new(big.Int).Mul(big.NewInt(10_000), big.NewInt(1e18))

// Chain is an in-process chain that mines a block right after every
// transaction it accepts, like anvil's default.
type Chain struct {
	// Simulated is the underlying backend (Commit mines, Fork reorgs).
	Simulated *simulated.Backend
	// Client sends and reads; its SendTransaction mines at once.
	Client simulated.Client
	// Keys are the funded development keys (DevKeys).
	Keys []*ecdsa.PrivateKey
}

// New builds a chain with the development accounts funded. The caller closes it.
func New() (*Chain, error) {
	keys, err := DevKeys(DevAccounts)
	if err != nil {
		return nil, err
	}
	alloc := types.GenesisAlloc{}
	for _, k := range keys {
		alloc[chain.Address(k)] = types.Account{Balance: Balance}
	}
	b := simulated.NewBackend(alloc)
	// The genesis block has timestamp 0. Gas estimates run on the head block,
	// so a contract that stores block.timestamp would be estimated against a
	// zero time (a cheaper store) and its first transaction run out of gas.
	// One empty block gives the head a real timestamp.
	b.Commit()
	return &Chain{Simulated: b, Client: autoMine{Client: b.Client(), backend: b}, Keys: keys}, nil
}

// Close stops the chain.
func (c *Chain) Close() error { return c.Simulated.Close() }

// Backend is the auto-mining client.
func (c *Chain) Backend() chain.Backend { return c.Client }

// ChainID is the chain's id (always 1337).
func (c *Chain) ChainID() *big.Int {
	id, err := c.Client.ChainID(context.Background())
	if err != nil {
		panic("simulated chain has no chain id: " + err.Error())
	}
	return id
}

// Key is the i-th development key.
func (c *Chain) Key(i int) *ecdsa.PrivateKey { return c.Keys[i] }

// Address is the account of Key(i).
func (c *Chain) Address(i int) common.Address { return chain.Address(c.Keys[i]) }

// Mine mines n empty blocks.
func (c *Chain) Mine(n int) {
	for range n {
		c.Simulated.Commit()
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
