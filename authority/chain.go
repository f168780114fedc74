package authority

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sync"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/contracts/xrc729"
)

// Backend is what ChainReader needs from a node (chain.Backend has it).
type Backend interface {
	ethereum.ContractCaller
	HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error)
}

// maxParallelReads bounds the contracts read at once.
const maxParallelReads = 8

// The XRC-729 and XRC-137 standards declare owner() and getExecutorList()
// alike, so one ABI reads both kinds.
var accessABI = xrc729.NewXRC729()

// ChainReader reads facts from a node: owner() and getExecutorList() of
// each contract at the node's head block. The facts of a block are kept
// until the head moves on, so every check within one block costs one
// header read, and a changed executor list or owner is seen from the
// block that changed it. Safe for concurrent use.
type ChainReader struct {
	backend Backend

	mu    sync.Mutex
	head  common.Hash
	at    uint64
	cache map[common.Address]Facts
}

// NewChainReader returns a reader of the node behind b.
func NewChainReader(b Backend) *ChainReader {
	return &ChainReader{backend: b, cache: map[common.Address]Facts{}}
}

// Facts implements Reader.
func (r *ChainReader) Facts(ctx context.Context, contracts []common.Address) ([]Facts, error) {
	h, err := r.backend.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("the node's head block: %w", err)
	}
	if h == nil {
		return nil, errors.New("the node's head block: no header")
	}
	out := make([]Facts, len(contracts))
	var todo []int
	r.mu.Lock()
	if h.Hash() != r.head && h.Number.Uint64() >= r.at {
		r.head, r.at, r.cache = h.Hash(), h.Number.Uint64(), map[common.Address]Facts{}
	}
	current := h.Hash() == r.head
	for i, c := range contracts {
		if f, ok := r.cache[c]; ok && current {
			out[i] = f
		} else {
			todo = append(todo, i)
		}
	}
	r.mu.Unlock()

	errs := make([]error, len(contracts))
	var wg sync.WaitGroup
	slots := make(chan struct{}, maxParallelReads)
	for _, i := range todo {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			out[i], errs[i] = readFacts(ctx, r.backend, contracts[i], h.Number)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	r.mu.Lock()
	if r.head == h.Hash() {
		for _, i := range todo {
			r.cache[contracts[i]] = out[i]
		}
	}
	r.mu.Unlock()
	return out, nil
}

// readFacts reads one contract at block n. A function the contract lacks
// (the call reverts or returns nothing) is a fact: no owner, or no
// executor list (owner-only). Any other failure is an error.
func readFacts(ctx context.Context, b Backend, c common.Address, n *big.Int) (Facts, error) {
	f := Facts{Contract: c, Block: n.Uint64()}
	out, ok, err := call(ctx, b, c, n, "owner", accessABI.PackOwner())
	if err != nil {
		return f, err
	}
	if ok {
		if o, err := accessABI.UnpackOwner(out); err == nil {
			f.Owner = o
		}
	}
	out, ok, err = call(ctx, b, c, n, "getExecutorList", accessABI.PackGetExecutorList())
	if err != nil {
		return f, err
	}
	if ok {
		if list, err := accessABI.UnpackGetExecutorList(out); err == nil {
			f.ExecutorList, f.Executors = true, list
		}
	}
	return f, nil
}

// call runs one eth_call at block n; ok is false when the contract reverted
// or returned nothing (it does not implement the function).
func call(ctx context.Context, b Backend, c common.Address, n *big.Int, method string, data []byte) ([]byte, bool, error) {
	out, err := b.CallContract(ctx, ethereum.CallMsg{To: &c, Data: data}, n)
	if err != nil {
		if _, reverted := chain.AsRevert(method, err); reverted {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("%s() of %s at block %d: %w", method, c.Hex(), n, err)
	}
	return out, len(out) > 0, nil
}
