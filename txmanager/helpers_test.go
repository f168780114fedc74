package txmanager

import (
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/testenv"
)

// sink is the account executions in tests call: an account without code,
// so every call succeeds and its calldata (the key) shows on chain.
var sink = common.HexToAddress("0x000000000000000000000000000000000000bEEF")

// fixture is one anvil, one Redis and the config of a sender on them.
type fixture struct {
	t       *testing.T
	anvil   *testenv.Anvil
	rdb     redis.UniversalClient
	keyIdx  int
	metrics *Metrics
	reg     *prometheus.Registry
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	return newFixtureOn(t, testenv.StartRedis(t).Client())
}

func newFixtureOn(t *testing.T, rdb redis.UniversalClient) *fixture {
	t.Helper()
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, anvil: testenv.StartAnvil(t), rdb: rdb, keyIdx: 1, metrics: m, reg: reg}
}

// manager starts a Manager for the fixture's sender: fast polls, one
// confirmation, then mutate's changes.
func (f *fixture) manager(mutate func(*Config)) *Manager {
	f.t.Helper()
	cfg := Config{
		Redis: f.rdb, Chain: f.anvil.Client, Key: f.anvil.Key(f.keyIdx), Metrics: f.metrics,
		Finality: Finality{Mode: "confirmations", Confirmations: 1}, Poll: 20 * time.Millisecond,
		LeaseTTL: 300 * time.Millisecond, ReserveTimeout: -1, Rebroadcast: time.Hour,
	}
	if mutate != nil {
		mutate(&cfg)
	}
	m, err := New(context.Background(), cfg)
	if err != nil {
		f.t.Fatal(err)
	}
	return m
}

func request(key string) Request { return Request{Key: key, To: sink, Data: []byte(key)} }

// rpc calls an anvil method.
func (f *fixture) rpc(method string, args ...any) {
	f.t.Helper()
	if err := f.anvil.Client.Client().CallContext(context.Background(), nil, method, args...); err != nil {
		f.t.Fatalf("%s: %v", method, err)
	}
}

// automine turns anvil's mining on each transaction on or off.
func (f *fixture) automine(on bool) { f.rpc("evm_setAutomine", on) }

// settle ticks m (mining a block between ticks when mine is set) until
// every key is final, and returns their records.
func (f *fixture) settle(m *Manager, mine bool, keys ...string) map[string]Record {
	f.t.Helper()
	ctx := context.Background()
	out := map[string]Record{}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := m.Tick(ctx); err != nil {
			f.t.Fatalf("tick: %v", err)
		}
		done := true
		for _, k := range keys {
			r, err := m.Status(ctx, k)
			if err != nil {
				f.t.Fatal(err)
			}
			out[k] = r
			done = done && r.Done()
		}
		if done {
			return out
		}
		if mine {
			f.anvil.Mine(f.t, 1)
		}
		time.Sleep(10 * time.Millisecond)
	}
	f.t.Fatalf("not final after 30s: %+v", out)
	return nil
}

// sent lists every transaction of from on chain, in block order.
func (f *fixture) sent(from common.Address) []*types.Transaction {
	f.t.Helper()
	ctx := context.Background()
	head, err := f.anvil.Client.BlockNumber(ctx)
	if err != nil {
		f.t.Fatal(err)
	}
	signer := types.LatestSignerForChainID(f.anvil.ChainID())
	var out []*types.Transaction
	for n := uint64(0); n <= head; n++ {
		b, err := f.anvil.Client.BlockByNumber(ctx, new(big.Int).SetUint64(n))
		if err != nil {
			f.t.Fatal(err)
		}
		for _, tx := range b.Transactions() {
			if s, err := types.Sender(signer, tx); err == nil && s == from {
				out = append(out, tx)
			}
		}
	}
	return out
}

// exactlyOnce checks that the chain holds, per key, one transaction of
// from carrying it, with the record's hash and nonce, and that from's
// nonces on chain run 0..n-1 without a gap.
func (f *fixture) exactlyOnce(from common.Address, recs map[string]Record) {
	f.t.Helper()
	txs := f.sent(from)
	byKey := map[string][]*types.Transaction{}
	for i, tx := range txs {
		if tx.Nonce() != uint64(i) {
			f.t.Errorf("transaction %d of %s has nonce %d: a gap or a duplicate", i, from.Hex(), tx.Nonce())
		}
		byKey[string(tx.Data())] = append(byKey[string(tx.Data())], tx)
	}
	for k, r := range recs {
		got := byKey[k]
		if len(got) != 1 {
			f.t.Errorf("key %q is on chain %d times; want exactly once", k, len(got))
			continue
		}
		if got[0].Hash() != r.TxHash || got[0].Nonce() != r.Nonce {
			f.t.Errorf("key %q: chain has %s nonce %d; record says %s nonce %d", k, got[0].Hash().Hex(), got[0].Nonce(), r.TxHash.Hex(), r.Nonce)
		}
	}
}

// counter reads the value of metric name for m's sender (and outcome,
// when given) from the fixture's registry.
func (f *fixture) counter(name string, m *Manager, outcome ...string) float64 {
	f.t.Helper()
	fams, err := f.reg.Gather()
	if err != nil {
		f.t.Fatal(err)
	}
	for _, fam := range fams {
		if fam.GetName() != name {
			continue
		}
	next:
		for _, mt := range fam.GetMetric() {
			for _, l := range mt.GetLabel() {
				want := map[string]string{"chain_id": m.labels[0], "sender": m.labels[1]}
				if len(outcome) > 0 {
					want["outcome"] = outcome[0]
				}
				if w, ok := want[l.GetName()]; ok && w != l.GetValue() {
					continue next
				}
			}
			if mt.GetCounter() != nil {
				return mt.GetCounter().GetValue()
			}
			return mt.GetGauge().GetValue()
		}
	}
	return 0
}

// mined waits until the node has a receipt for each transaction: anvil's
// automine puts a sent transaction into a block of its own, but a loaded
// machine may answer the next tick before that block is there. It fails
// the test, naming the transaction, when one has none after 30 s.
func (f *fixture) mined(hashes ...common.Hash) {
	f.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for _, h := range hashes {
		for {
			if _, err := f.anvil.Client.TransactionReceipt(context.Background(), h); err == nil {
				break
			}
			if time.Now().After(deadline) {
				f.t.Fatalf("transaction %s has no receipt after 30 s of automine", h.Hex())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// inPool reports whether the node knows a transaction (pending or mined).
func (f *fixture) inPool(h common.Hash) bool {
	var tx map[string]any
	if err := f.anvil.Client.Client().CallContext(context.Background(), &tx, "eth_getTransactionByHash", h); err != nil {
		f.t.Fatal(err)
	}
	return tx != nil
}

func timeAfter(ms int) <-chan time.Time { return time.After(time.Duration(ms) * time.Millisecond) }

func callMsg(from common.Address, data []byte) ethereum.CallMsg {
	return ethereum.CallMsg{From: from, To: &sink, Data: data}
}

// mustTick runs one tick of m and fails the test on an error.
func (m *Manager) mustTick(t *testing.T) TickReport {
	t.Helper()
	rep, err := m.Tick(context.Background())
	if err != nil {
		t.Fatalf("tick: %v", err)
	}
	return rep
}
