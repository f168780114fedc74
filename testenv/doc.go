// Package testenv is the one way tests get real servers: Redis
// (StartRedis, a 3-master StartCluster, StartSentinel, Backends for single
// and cluster) and a chain to talk to, anvil (StartAnvil) or go-ethereum's
// in-process simulated chain (StartSim), both with the same funded
// development accounts and helpers that deploy the XRC-729 and XRC-137
// contracts and wait for their receipts.
//
// Where the servers run is decided once per test binary by
// XGR_TEST_PROVIDER (package provider): "docker" runs them in containers
// through testcontainers-go (images pinned by digest, ports published on
// 127.0.0.1), "local" runs the binaries that `make tools` installs, "auto"
// (the default) picks docker when an engine answers and local otherwise.
// The choice is printed once on stderr. Addresses and URLs are on
// 127.0.0.1 either way, so tests and the xgr binary they run cannot tell
// the difference. There is no fallback: a missing binary (local) fails the
// test with the command that installs it; docker without an engine fails
// every server start at once with one line that says what to do.
package testenv

import (
	"crypto/ecdsa"
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/chain"
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
