// Package testenv gives tests a real chain to talk to: a local anvil process
// (StartAnvil) or go-ethereum's in-process simulated chain (StartSim), both
// with the same funded development accounts and helpers that deploy the
// XRC-729 and XRC-137 contracts and wait for their receipts.
//
// A missing anvil binary fails the test with a message that says to run
// `make tools`; it never skips.
package testenv

import (
	"crypto/ecdsa"
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/internal/chain"
)

// Chain is what the deploy helpers need from either kind of chain.
type Chain interface {
	// Backend is the client tests use for calls and transactions.
	Backend() chain.Backend
	// ChainID is the chain's EIP-155 id.
	ChainID() *big.Int
	// Key is the i-th funded development key (0-based).
	Key(i int) *ecdsa.PrivateKey
	// Address is the account of Key(i).
	Address(i int) common.Address
}
