package chain

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"
)

// CallAt is one eth_call in the state after the block with the given hash
// (EIP-1898), so that a reorg cannot mix two chains' answers. A nil To
// sends the call without `to`: Data is then creation code, run but not
// deployed, and the answer is what its constructor returns.
type CallAt struct {
	To    *common.Address
	Data  []byte
	Block common.Hash
}

// CallResult is the answer to one CallAt: the return data, or the node's
// error for this call alone (a revert keeps its data; see AsRevert).
type CallResult struct {
	Out []byte
	Err error
}

// Batcher sends many independent reads as JSON-RPC batches: Size requests
// per batch and at most Parallel batches in flight. Nodes limit batches
// (XGR's --json-rpc-batch-request-limit, geth's BatchRequestLimit and
// response size); a batch the node refuses as too large halves Size (down
// to single requests) and is sent again, so the limit is learned. A backend
// that does not expose its *rpc.Client (simulated chains, wrappers) is read
// one request at a time, Parallel at once. It also remembers whether the
// node answers calls without `to` (see Deployless). Safe for concurrent use.
type Batcher struct {
	backend Backend
	rpc     *rpc.Client

	mu         sync.Mutex
	size       int
	parallel   int
	deployless deployless
	refusedAt  time.Time // when the node last refused calls without `to`
}

// deployless is what a batcher knows of the node's calls without `to`.
type deployless int

const (
	deploylessUntried deployless = iota
	deploylessWorks
	deploylessRefused
)

// DefaultBatchSize and DefaultBatchParallel are a new Batcher's settings.
const (
	DefaultBatchSize     = 100
	DefaultBatchParallel = 4
)

// NewBatcher returns a batcher over b. It batches when b exposes its RPC
// client (an *ethclient.Client does) and reads one request at a time
// otherwise.
func NewBatcher(b Backend) *Batcher {
	out := &Batcher{backend: b, size: DefaultBatchSize, parallel: DefaultBatchParallel}
	if c, ok := b.(interface{ Client() *rpc.Client }); ok {
		out.rpc = c.Client()
	}
	return out
}

// Batching reports whether requests go out as JSON-RPC batches.
func (b *Batcher) Batching() bool { return b.rpc != nil }

// Size is the current number of requests per batch.
func (b *Batcher) Size() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.size
}

// SetLimits sets the requests per batch and the batches in flight (values
// below 1 keep the current setting).
func (b *Batcher) SetLimits(size, parallel int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if size > 0 {
		b.size = size
	}
	if parallel > 0 {
		b.parallel = parallel
	}
}

// Deployless reports whether calls without `to` are worth sending: the
// batcher has an RPC client and the node has not refused the first one.
func (b *Batcher) Deployless() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.rpc != nil && (b.deployless != deploylessRefused || time.Since(b.refusedAt) >= deploylessRetry)
}

// deploylessRetry is how long a refusal of calls without `to` stands: a
// failure that only looked like one (a timeout, a gateway's 502 on the
// first try) must not turn the one-call-per-block reads off for good.
const deploylessRetry = 10 * time.Minute

// learnDeployless records how the node answered a call without `to`. Once
// one worked, a later failure is that call's alone (its reads are retried
// one by one) and changes nothing; a failure before that counts as a
// refusal for deploylessRetry, after which such calls are tried again.
func (b *Batcher) learnDeployless(worked bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case worked:
		b.deployless = deploylessWorks
	case b.deployless != deploylessWorks:
		b.deployless, b.refusedAt = deploylessRefused, time.Now()
	}
}

// shrink halves the batch size after the node refused a batch of n
// requests; it reports false when single requests were refused too.
func (b *Batcher) shrink(n int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n <= 1 {
		return false
	}
	if b.size >= n {
		b.size = max(1, n/2)
	}
	return true
}

// CallsAt runs the calls and returns their results in order. The error is
// for the batch as a whole (the node unreachable, the context ended); an
// eth_call the node answers with an error (a revert) is that call's Err.
func (b *Batcher) CallsAt(ctx context.Context, calls []CallAt) ([]CallResult, error) {
	out := make([]CallResult, len(calls))
	if b.rpc == nil {
		caller, ok := b.backend.(interface {
			CallContractAtHash(context.Context, ethereum.CallMsg, common.Hash) ([]byte, error)
		})
		if !ok {
			return nil, errors.New("the chain backend cannot call at a block hash (EIP-1898)")
		}
		err := b.each(ctx, len(calls), func(ctx context.Context, i int) error {
			c := calls[i]
			out[i].Out, out[i].Err = caller.CallContractAtHash(ctx, ethereum.CallMsg{To: c.To, Data: c.Data}, c.Block)
			return ctx.Err()
		})
		return out, err
	}
	elems := make([]rpc.BatchElem, len(calls))
	res := make([]hexutil.Bytes, len(calls))
	for i, c := range calls {
		arg := map[string]any{"data": hexutil.Bytes(c.Data)}
		if c.To != nil {
			arg["to"] = *c.To
		}
		elems[i] = rpc.BatchElem{Method: "eth_call", Args: []any{arg, rpc.BlockNumberOrHashWithHash(c.Block, false)}, Result: &res[i]}
	}
	if err := b.batch(ctx, elems); err != nil {
		return nil, err
	}
	for i, e := range elems {
		out[i] = CallResult{Out: res[i], Err: e.Error}
	}
	return out, nil
}

// Headers returns the headers of the given block numbers, in order; a block
// the node does not have is an error.
func (b *Batcher) Headers(ctx context.Context, numbers []uint64) ([]*types.Header, error) {
	out := make([]*types.Header, len(numbers))
	if b.rpc == nil {
		err := b.each(ctx, len(numbers), func(ctx context.Context, i int) error {
			h, err := b.backend.HeaderByNumber(ctx, new(big.Int).SetUint64(numbers[i]))
			if err != nil {
				return fmt.Errorf("header %d: %w", numbers[i], err)
			}
			out[i] = h
			return nil
		})
		return out, err
	}
	elems := make([]rpc.BatchElem, len(numbers))
	for i, n := range numbers {
		elems[i] = rpc.BatchElem{Method: "eth_getBlockByNumber", Args: []any{hexutil.EncodeUint64(n), false}, Result: &out[i]}
	}
	if err := b.batch(ctx, elems); err != nil {
		return nil, err
	}
	for i, e := range elems {
		switch {
		case e.Error != nil:
			return nil, fmt.Errorf("header %d: %w", numbers[i], e.Error)
		case out[i] == nil:
			return nil, fmt.Errorf("header %d: %w", numbers[i], ethereum.NotFound)
		}
	}
	return out, nil
}

// each runs fn for 0..n-1, Parallel at a time; the first error stops the
// rest and is returned.
func (b *Batcher) each(ctx context.Context, n int, fn func(context.Context, int) error) error {
	b.mu.Lock()
	parallel := b.parallel
	b.mu.Unlock()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, parallel)
	var once sync.Once
	var first error
	var wg sync.WaitGroup
	for i := 0; i < n && ctx.Err() == nil; i++ {
		sem <- struct{}{}
		wg.Add(1)
		go func(i int) {
			defer func() { <-sem; wg.Done() }()
			if err := fn(ctx, i); err != nil {
				once.Do(func() { first = err; cancel() })
			}
		}(i)
	}
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		first = ctx.Err()
	}
	return first
}

// batch sends elems in batches of the current size, Parallel at a time,
// halving the size and resending when the node refuses a batch.
func (b *Batcher) batch(ctx context.Context, elems []rpc.BatchElem) error {
	var parts [][]rpc.BatchElem
	for size := b.Size(); len(elems) > 0; {
		n := min(size, len(elems))
		parts, elems = append(parts, elems[:n]), elems[n:]
	}
	return b.each(ctx, len(parts), func(ctx context.Context, i int) error {
		return b.send(ctx, parts[i])
	})
}

// send sends one batch; a refused batch is split in two and each half sent
// again.
func (b *Batcher) send(ctx context.Context, part []rpc.BatchElem) error {
	if len(part) == 1 {
		// A single request goes out as a plain call, which every node takes.
		e := &part[0]
		e.Error = b.rpc.CallContext(ctx, e.Result, e.Method, e.Args...)
		if e.Error != nil && !isCallError(e.Error) {
			return fmt.Errorf("%s: %w", e.Method, e.Error)
		}
		return nil
	}
	err := b.rpc.BatchCallContext(ctx, part)
	if BatchRefused(err, part) {
		if !b.shrink(len(part)) {
			return fmt.Errorf("the node refuses JSON-RPC batches: %w", err)
		}
		for i := range part {
			part[i].Error = nil
		}
		half := len(part) / 2
		if err := b.send(ctx, part[:half]); err != nil {
			return err
		}
		return b.send(ctx, part[half:])
	}
	if err != nil {
		return fmt.Errorf("JSON-RPC batch of %d requests: %w", len(part), err)
	}
	return nil
}

// isCallError reports whether err is the node's answer to one request (a
// JSON-RPC error object, such as a revert) rather than a transport failure.
func isCallError(err error) bool {
	var rerr rpc.Error
	return errors.As(err, &rerr)
}

// batchRefusals are fragments of the errors nodes return for a batch that
// is too long or whose answer is too large (geth: "batch too large",
// "response too large"; XGR/Polygon Edge: "batch request length too long",
// answered with one error object instead of an array).
var batchRefusals = []string{
	"batch too large",
	"batch request length",
	"batch size",
	"batch limit",
	"too many requests in batch",
	"response too large",
	"cannot unmarshal object into go value of type []",
}

// BatchRefused reports whether a batch was refused as a whole, from the
// batch's error or its elements' errors: a refusal message, or answers
// missing for some requests.
func BatchRefused(err error, elems []rpc.BatchElem) bool {
	if refusal(err) {
		return true
	}
	if err != nil {
		return false
	}
	for _, e := range elems {
		if errors.Is(e.Error, rpc.ErrMissingBatchResponse) || refusal(e.Error) {
			return true
		}
	}
	return false
}

func refusal(err error) bool {
	if err == nil {
		return false
	}
	msg := strings.ToLower(err.Error())
	for _, f := range batchRefusals {
		if strings.Contains(msg, f) {
			return true
		}
	}
	return false
}
