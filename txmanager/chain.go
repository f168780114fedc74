package txmanager

import (
	"context"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Chain is what the manager needs from a node; *ethclient.Client has it.
type Chain interface {
	ChainID(ctx context.Context) (*big.Int, error)
	HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error)
	SuggestGasTipCap(ctx context.Context) (*big.Int, error)
	SuggestGasPrice(ctx context.Context) (*big.Int, error)
	NonceAt(ctx context.Context, account common.Address, blockNumber *big.Int) (uint64, error)
	PendingNonceAt(ctx context.Context, account common.Address) (uint64, error)
	EstimateGas(ctx context.Context, call ethereum.CallMsg) (uint64, error)
	SendTransaction(ctx context.Context, tx *types.Transaction) error
	TransactionReceipt(ctx context.Context, txHash common.Hash) (*types.Receipt, error)
}

// benignSendError reports a broadcast error that means the node has the
// transaction or its nonce already: the same bytes were sent before, a
// replacement of ours with higher fees is in the pool, or the nonce is
// mined (receipts tell by which attempt).
func benignSendError(err error) bool {
	msg := strings.ToLower(err.Error())
	for _, s := range []string{"already known", "known transaction", "already imported", "nonce too low",
		"replacement transaction underpriced", "transaction already exists"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}
