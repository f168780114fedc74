package chain

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
)

// fakeEth answers eth_call by echoing the calldata with the block hash's
// first byte prepended (calldata "revert" reverts with a reason) and
// eth_getBlockByNumber with a header for blocks up to 100.
type fakeEth struct{ calls atomic.Int64 }

type fakeCallArgs struct {
	To   common.Address `json:"to"`
	Data hexutil.Bytes  `json:"data"`
}

type fakeRevert struct{ data string }

func (e fakeRevert) Error() string          { return "execution reverted: nope" }
func (e fakeRevert) ErrorCode() int         { return 3 }
func (e fakeRevert) ErrorData() interface{} { return e.data }

func (s *fakeEth) Call(args fakeCallArgs, block rpc.BlockNumberOrHash) (hexutil.Bytes, error) {
	s.calls.Add(1)
	h, ok := block.Hash()
	if !ok {
		return nil, errors.New("want a block hash")
	}
	if string(args.Data) == "revert" {
		return nil, fakeRevert{data: hexutil.Encode(append([]byte{0x08, 0xc3, 0x79, 0xa0}, make([]byte, 96)...))}
	}
	return append([]byte{h[0]}, args.Data...), nil
}

func (s *fakeEth) GetBlockByNumber(n hexutil.Uint64, full bool) (map[string]any, error) {
	if n > 100 {
		return nil, nil // the node does not have the block: null
	}
	raw, err := (&types.Header{Number: new(big.Int).SetUint64(uint64(n)), Difficulty: new(big.Int), Extra: []byte{}}).MarshalJSON()
	var out map[string]any
	if err == nil {
		err = json.Unmarshal(raw, &out)
	}
	return out, err
}

// fakeNode serves fakeEth over HTTP. limit > 0 refuses longer batches:
// geth-style (the server's own batch limit) or, with edge set, as XGR's
// node does, with one error object instead of an array.
func fakeNode(t *testing.T, limit int, edge bool) (*Batcher, *fakeEth) {
	svc := &fakeEth{}
	srv := rpc.NewServer()
	if err := srv.RegisterName("eth", svc); err != nil {
		t.Fatal(err)
	}
	if limit > 0 && !edge {
		srv.SetBatchLimits(limit, 0)
	}
	h := http.Handler(srv)
	if edge {
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			if n := bytes.Count(body, []byte(`"jsonrpc"`)); bytes.HasPrefix(bytes.TrimSpace(body), []byte("[")) && n > limit {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Batch request length too long"}}`)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			srv.ServeHTTP(w, r)
		})
	}
	web := httptest.NewServer(h)
	t.Cleanup(web.Close)
	t.Cleanup(srv.Stop)
	c, err := rpc.Dial(web.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return NewBatcher(ethclient.NewClient(c)), svc
}

func TestBatcherCallsAtLearnsTheBatchLimit(t *testing.T) {
	for _, tc := range []struct {
		name  string
		limit int
		edge  bool
	}{
		{"no limit", 0, false},
		{"geth limit 7", 7, false},
		{"XGR node limit 20", 20, true},
		{"XGR node limit 1", 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, svc := fakeNode(t, tc.limit, tc.edge)
			var calls []CallAt
			for i := range 250 {
				data := []byte(fmt.Sprintf("call%d", i))
				if i == 111 {
					data = []byte("revert")
				}
				calls = append(calls, CallAt{To: &common.Address{1}, Data: data, Block: common.Hash{byte(i)}})
			}
			res, err := b.CallsAt(context.Background(), calls)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range res {
				if i == 111 {
					if re, ok := AsRevert("x", r.Err); !ok || r.Out != nil {
						t.Fatalf("call 111 should revert alone: %v %v", re, r.Out)
					}
					continue
				}
				want := append([]byte{byte(i)}, fmt.Sprintf("call%d", i)...)
				if r.Err != nil || !bytes.Equal(r.Out, want) {
					t.Fatalf("call %d: %q %v, want %q", i, r.Out, r.Err, want)
				}
			}
			if tc.limit > 0 && b.Size() > tc.limit {
				t.Fatalf("batch size %d after a node limit of %d", b.Size(), tc.limit)
			}
			if n := svc.calls.Load(); n < 250 {
				t.Fatalf("the node answered %d calls", n)
			}
		})
	}
}

func TestBatcherHeaders(t *testing.T) {
	b, _ := fakeNode(t, 3, false)
	hs, err := b.Headers(context.Background(), []uint64{9, 1, 5, 7, 2})
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range []uint64{9, 1, 5, 7, 2} {
		if hs[i].Number.Uint64() != n {
			t.Fatalf("header %d is block %d, want %d", i, hs[i].Number, n)
		}
	}
	if _, err := b.Headers(context.Background(), []uint64{3, 101}); err == nil || !strings.Contains(err.Error(), "header 101") || !errors.Is(err, ethereum.NotFound) {
		t.Fatalf("a missing block: %v", err)
	}
}

// hashCaller serves the one-at-a-time path: a backend without an RPC client.
type hashCaller struct {
	Backend
	calls atomic.Int64
}

func (h *hashCaller) CallContractAtHash(_ context.Context, msg ethereum.CallMsg, hash common.Hash) ([]byte, error) {
	h.calls.Add(1)
	return append([]byte{hash[0]}, msg.Data...), nil
}

func TestBatcherWithoutRPCClientCallsOneByOne(t *testing.T) {
	hc := &hashCaller{}
	b := NewBatcher(hc)
	if b.Batching() {
		t.Fatal("a backend without Client() cannot batch")
	}
	res, err := b.CallsAt(context.Background(), []CallAt{{Data: []byte("a"), Block: common.Hash{7}}, {Data: []byte("b"), Block: common.Hash{8}}})
	if err != nil || string(res[0].Out) != "\x07a" || string(res[1].Out) != "\x08b" || hc.calls.Load() != 2 {
		t.Fatalf("results %q, %v, %d calls", res, err, hc.calls.Load())
	}
}

func TestBatchRefused(t *testing.T) {
	tooLarge := rpc.BatchElem{Error: errors.New("batch too large")}
	missing := rpc.BatchElem{Error: rpc.ErrMissingBatchResponse}
	revert := rpc.BatchElem{Error: errors.New("execution reverted: XRC729: not found")}
	for _, tc := range []struct {
		name  string
		err   error
		elems []rpc.BatchElem
		want  bool
	}{
		{"all answered", nil, []rpc.BatchElem{{}, revert}, false},
		{"geth: first element says batch too large, the rest are missing", nil, []rpc.BatchElem{tooLarge, missing}, true},
		{"an answer is missing", nil, []rpc.BatchElem{{}, missing}, true},
		{"XGR node: one error object instead of an array", errors.New("json: cannot unmarshal object into Go value of type []*rpc.jsonrpcMessage"), nil, true},
		{"batch request length too long", errors.New("Batch request length too long"), nil, true},
		{"response too large", errors.New("response too large"), nil, true},
		{"the node is down", errors.New("dial tcp 127.0.0.1:1: connect: connection refused"), []rpc.BatchElem{{}}, false},
	} {
		if got := BatchRefused(tc.err, tc.elems); got != tc.want {
			t.Errorf("%s: BatchRefused = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A refusal of calls without `to` stands for deploylessRetry, then such
// calls are tried again (a glitch on the first try must not turn them off
// for good); once one worked, a failure changes nothing.
func TestDeploylessRefusalIsRetried(t *testing.T) {
	b := &Batcher{rpc: &rpc.Client{}}
	if !b.Deployless() {
		t.Fatal("untried: want deployless calls tried")
	}
	b.learnDeployless(false)
	if b.Deployless() {
		t.Fatal("just refused: want no deployless calls")
	}
	b.refusedAt = time.Now().Add(-deploylessRetry - time.Second)
	if !b.Deployless() {
		t.Fatalf("refused %v ago: want them tried again", deploylessRetry+time.Second)
	}
	b.learnDeployless(false)
	if b.Deployless() {
		t.Fatal("refused again: want no deployless calls")
	}
	b.learnDeployless(true)
	b.learnDeployless(false)
	if !b.Deployless() {
		t.Fatal("worked once, then one failure: want deployless calls kept")
	}
}
