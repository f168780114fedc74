// Package devnet is an in-process development chain (go-ethereum's
// simulated backend) with anvil's development accounts funded, mining a
// block right after every transaction: for tests and for "xgr dev".
package devnet

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/node"

	"github.com/xgr-sidecar/xgr/chain"
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
	// URL is the JSON-RPC endpoint (WithHTTP), "" when not served.
	URL string

	stop   chan struct{}
	commit *sync.Mutex
}

// Option configures New.
type Option func(*options)

type options struct {
	http string
}

// WithHTTP serves the chain's eth_*, net_* and web3_* JSON-RPC over HTTP
// on addr (host:port; port 0 picks a free one; Chain.URL says which), so
// that wallets, ethers.js scripts and dApps reach the contracts deployed
// on it. Transactions sent there are mined within 50 ms.
func WithHTTP(addr string) Option { return func(o *options) { o.http = addr } }

// New builds a chain with the development accounts funded. The caller closes it.
func New(opts ...Option) (c *Chain, err error) {
	var o options
	for _, f := range opts {
		f(&o)
	}
	keys, err := DevKeys(DevAccounts)
	if err != nil {
		return nil, err
	}
	alloc := types.GenesisAlloc{}
	for _, k := range keys {
		alloc[chain.Address(k)] = types.Account{Balance: Balance}
	}
	var nodeOpts []func(*node.Config, *ethconfig.Config)
	var url string
	if o.http != "" {
		host, port, err := freeAddr(o.http)
		if err != nil {
			return nil, err
		}
		url = "http://" + net.JoinHostPort(host, strconv.Itoa(port))
		nodeOpts = append(nodeOpts, func(nc *node.Config, _ *ethconfig.Config) {
			nc.HTTPHost, nc.HTTPPort = host, port
			nc.HTTPModules = []string{"eth", "net", "web3"}
			nc.HTTPVirtualHosts, nc.HTTPCors = []string{"localhost", host}, []string{"*"}
		})
	}
	// The simulated backend panics when its node cannot start (a port
	// taken since it was checked).
	defer func() {
		if p := recover(); p != nil {
			c, err = nil, fmt.Errorf("development chain: %v", p)
		}
	}()
	b := simulated.NewBackend(alloc, nodeOpts...)
	// The genesis block has timestamp 0. Gas estimates run on the head block,
	// so a contract that stores block.timestamp would be estimated against a
	// zero time (a cheaper store) and its first transaction run out of gas.
	// One empty block gives the head a real timestamp.
	b.Commit()
	mu := &sync.Mutex{}
	c = &Chain{Simulated: b, Client: autoMine{Client: b.Client(), backend: b, commit: mu}, Keys: keys, URL: url, stop: make(chan struct{}), commit: mu}
	if url != "" {
		go c.mineRPC()
	}
	return c, nil
}

// freeAddr splits addr and, for port 0, finds a free port. A port that is
// taken is an error now, before anything is deployed.
func freeAddr(addr string) (string, int, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, err
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return "", 0, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return host, port, nil
}

// mineRPC mines the transactions that arrive over the JSON-RPC endpoint
// (the Go client mines its own at once).
func (c *Chain) mineRPC() {
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
		}
		if n, err := c.Simulated.Client().PendingTransactionCount(context.Background()); err == nil && n > 0 {
			c.commit.Lock()
			c.Simulated.Commit()
			c.commit.Unlock()
		}
	}
}

// Close stops the chain.
func (c *Chain) Close() error {
	if c.stop != nil {
		select {
		case <-c.stop:
		default:
			close(c.stop)
		}
	}
	return c.Simulated.Close()
}

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
	c.commit.Lock()
	defer c.commit.Unlock()
	for range n {
		c.Simulated.Commit()
	}
}

// autoMine mines a block after each accepted transaction.
type autoMine struct {
	simulated.Client
	backend *simulated.Backend
	// commit serializes blocks: the simulated beacon is not safe for
	// concurrent commits (the JSON-RPC miner commits too).
	commit *sync.Mutex
}

func (a autoMine) SendTransaction(ctx context.Context, tx *types.Transaction) error {
	if err := a.Client.SendTransaction(ctx, tx); err != nil {
		return err
	}
	a.commit.Lock()
	a.backend.Commit()
	a.commit.Unlock()
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
