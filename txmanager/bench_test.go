package txmanager

import (
	"context"
	"fmt"
	"math/big"
	"net"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/testenv"
)

// roundTrips counts the commands and pipelines a client sends: each is one
// round trip to Redis.
type roundTrips struct{ n atomic.Int64 }

func (c *roundTrips) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) { return next(ctx, network, addr) }
}

func (c *roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error { c.n.Add(1); return next(ctx, cmd) }
}

func (c *roundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error { c.n.Add(1); return next(ctx, cmds) }
}

// benchBatch is how many executions one benchmark iteration sends.
const benchBatch = 200

// BenchmarkExecutions measures executions per second of one sender through
// the manager (submit, sign, record, broadcast, receipts, final at one
// confirmation) next to a bare sender that signs and sends the same calls
// with its own nonces and waits for the last receipt, both polling every
// 100 ms, on anvil with automine and with 1-second blocks. The manager's
// caller submits one execution per call (single) or 20 per SubmitBatch
// (batch20); the bare sender sends one transaction per call or 20 per
// JSON-RPC batch alike. It reports both rates, their ratio, Redis round trips per
// execution and the latency from submission to final (p50, p99).
//
//	go test -run '^$' -bench BenchmarkExecutions -benchtime 3x ./txmanager/
func BenchmarkExecutions(b *testing.B) {
	for _, bench := range []struct {
		mode  string
		batch int
	}{{"automine", 1}, {"automine", 20}, {"1s-blocks", 1}, {"1s-blocks", 20}} {
		mode := bench.mode
		name := mode + "/single"
		if bench.batch > 1 {
			name = fmt.Sprintf("%s/batch%d", mode, bench.batch)
		}
		b.Run(name, func(b *testing.B) {
			anvil := testenv.StartAnvil(b)
			if mode == "1s-blocks" {
				rpcc := anvil.Client.Client()
				if err := rpcc.Call(nil, "evm_setAutomine", false); err != nil {
					b.Fatal(err)
				}
				if err := rpcc.Call(nil, "evm_setIntervalMining", 1); err != nil {
					b.Fatal(err)
				}
			}
			srv := testenv.StartRedis(b)
			counted, plain := srv.Client(), srv.Client()
			rtt := &roundTrips{}
			counted.AddHook(rtt)
			ctx := context.Background()
			if err := Preload(ctx, counted); err != nil {
				b.Fatal(err)
			}
			m, err := New(ctx, Config{Redis: counted, Chain: anvil.Client, Key: anvil.Key(1), MaxInFlight: 256,
				Finality: Finality{Mode: "confirmations", Confirmations: 1}, Poll: 100 * time.Millisecond})
			if err != nil {
				b.Fatal(err)
			}
			runCtx, stop := context.WithCancel(ctx)
			defer stop()
			go m.Run(runCtx)
			var mgr, bare time.Duration
			var trips int64
			var latencies []time.Duration
			b.ResetTimer()
			var ratios []float64
			for i := range b.N {
				// Alternate which goes first, so that a burst of load from
				// elsewhere does not always hit the same side.
				var bareT, mgrT time.Duration
				runBare := func() {
					start := time.Now()
					bareBatch(b, anvil, 2, bench.batch)
					bareT = time.Since(start)
				}
				if i%2 == 0 {
					runBare()
				}
				rtt.n.Store(0)
				start := time.Now()
				keys := make([]string, benchBatch)
				for j := 0; j < benchBatch; j += bench.batch {
					var reqs []Request
					for k := j; k < j+bench.batch; k++ {
						keys[k] = fmt.Sprintf("bench/%d/%d", i, k)
						reqs = append(reqs, request(keys[k]))
					}
					if _, err := m.SubmitBatch(ctx, reqs); err != nil {
						b.Fatal(err)
					}
				}
				waitFinal(b, plain, m, keys)
				mgrT = time.Since(start)
				trips += rtt.n.Load()
				if i%2 == 1 {
					runBare()
				}
				bare, mgr = bare+bareT, mgr+mgrT
				ratios = append(ratios, bareT.Seconds()/mgrT.Seconds())
				for _, k := range keys {
					h, err := plain.HGetAll(ctx, m.k.record(k)).Result()
					if err != nil {
						b.Fatal(err)
					}
					r, err := parseRecord(h)
					if err != nil || r.Outcome != Success {
						b.Fatalf("%s: %+v %v", k, r, err)
					}
					latencies = append(latencies, r.FinalAt.Sub(r.CreatedAt))
				}
			}
			b.StopTimer()
			n := float64(b.N * benchBatch)
			mRate, bRate := n/mgr.Seconds(), n/bare.Seconds()
			slices.Sort(latencies)
			b.ReportMetric(mRate, "exec/s")
			b.ReportMetric(bRate, "bare-exec/s")
			slices.Sort(ratios)
			b.ReportMetric(mRate/bRate, "ratio")
			b.ReportMetric(ratios[len(ratios)/2], "median-ratio")
			b.ReportMetric(float64(trips)/n, "redis-rtt/exec")
			b.ReportMetric(float64(latencies[len(latencies)/2].Milliseconds()), "p50-ms")
			b.ReportMetric(float64(latencies[len(latencies)*99/100].Milliseconds()), "p99-ms")
		})
	}
}

// bareBatch signs and sends benchBatch calls from key idx with its own
// nonces, batch per JSON-RPC batch (1: one call each, as a plain loop), and
// waits for the last receipt, polling every 100 ms.
func bareBatch(b testing.TB, anvil *testenv.Anvil, idx, batch int) {
	ctx := context.Background()
	from := anvil.Address(idx)
	nonce, err := anvil.Client.PendingNonceAt(ctx, from)
	if err != nil {
		b.Fatal(err)
	}
	h, err := anvil.Client.HeaderByNumber(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	tip, err := anvil.Client.SuggestGasTipCap(ctx)
	if err != nil {
		b.Fatal(err)
	}
	fees := InitialFees(FeePolicy{MaxFeePerGas: big.NewInt(500e9), BumpPercent: 10}, Market{BaseFee: h.BaseFee, Tip: tip})
	signer := types.LatestSignerForChainID(anvil.ChainID())
	var last common.Hash
	var elems []rpc.BatchElem
	for j := range benchBatch {
		data := []byte(fmt.Sprintf("bare/%d/%d", nonce, j))
		gas, err := anvil.Client.EstimateGas(ctx, callMsg(from, data))
		if err != nil {
			b.Fatal(err)
		}
		tx, err := types.SignNewTx(anvil.Key(idx), signer, &types.DynamicFeeTx{ChainID: anvil.ChainID(), Nonce: nonce + uint64(j),
			GasTipCap: fees.TipCap, GasFeeCap: fees.FeeCap, Gas: gas, To: &sink, Data: data})
		if err != nil {
			b.Fatal(err)
		}
		raw, err := tx.MarshalBinary()
		if err != nil {
			b.Fatal(err)
		}
		elems = append(elems, rpc.BatchElem{Method: "eth_sendRawTransaction", Args: []any{hexutil.Bytes(raw)}, Result: new(any)})
		if len(elems) == batch || j == benchBatch-1 {
			if err := anvil.Client.Client().BatchCallContext(ctx, elems); err != nil {
				b.Fatal(err)
			}
			for _, e := range elems {
				if e.Error != nil {
					b.Fatal(e.Error)
				}
			}
			elems = elems[:0]
		}
		last = tx.Hash()
	}
	for {
		if r, err := anvil.Client.TransactionReceipt(ctx, last); err == nil && r != nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitFinal polls (on a client the round trip count does not see) until
// every key is final.
func waitFinal(b *testing.B, rdb *redis.Client, m *Manager, keys []string) {
	ctx := context.Background()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		pipe := rdb.Pipeline()
		cmds := make([]*redis.StringCmd, len(keys))
		for i, k := range keys {
			cmds[i] = pipe.HGet(ctx, m.k.record(k), "state")
		}
		_, _ = pipe.Exec(ctx)
		done := true
		for _, c := range cmds {
			done = done && c.Val() == string(Final)
		}
		if done {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	b.Fatal("executions not final after 2 minutes")
}
