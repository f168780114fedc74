package chain

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/xgr-sidecar/xgr/internal/redact"
)

// Backend is what xgr needs from a node. *ethclient.Client and the client of
// go-ethereum's simulated backend both satisfy it.
type Backend interface {
	bind.ContractBackend
	ethereum.ChainIDReader
	ethereum.BlockNumberReader
	TransactionReceipt(ctx context.Context, txHash common.Hash) (*types.Receipt, error)
}

// Dial connects to the node at url (http, https, ws, wss or an IPC path) and
// checks that it answers by asking for its chain id.
func Dial(ctx context.Context, url string) (*ethclient.Client, *big.Int, error) {
	if url == "" {
		return nil, nil, fmt.Errorf("no node URL: pass --rpc URL or set XGR_RPC (e.g. http://127.0.0.1:8545)")
	}
	c, err := ethclient.DialContext(ctx, url)
	if err != nil {
		return nil, nil, redact.Error(fmt.Errorf("connect to node %s: %w", url, err), url)
	}
	id, err := c.ChainID(ctx)
	if err != nil {
		c.Close()
		return nil, nil, redact.Error(fmt.Errorf("node %s does not answer eth_chainId (is it running, is --rpc/XGR_RPC right?): %w", url, err), url)
	}
	return c, id, nil
}
