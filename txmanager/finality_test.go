package txmanager

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
)

// logBuffer collects a manager's log lines (slog text) for a test.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String is everything logged so far.
func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// lines returns the lines that contain every one of parts.
func (b *logBuffer) lines(parts ...string) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
next:
	for _, l := range strings.Split(b.buf.String(), "\n") {
		for _, p := range parts {
			if !strings.Contains(l, p) {
				continue next
			}
		}
		out = append(out, l)
	}
	return out
}

// withLog makes the manager log into b.
func withLog(b *logBuffer, mutate func(*Config)) func(*Config) {
	return func(c *Config) {
		c.Log = slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
		if mutate != nil {
			mutate(c)
		}
	}
}

// deepReorg replaces the last depth blocks by empty ones (anvil_reorg; the
// node keeps none of their transactions) and returns when it was done.
func (f *fixture) deepReorg(depth int) time.Time {
	f.t.Helper()
	f.rpc("anvil_reorg", depth, [][]any{})
	return time.Now()
}

// A reorg deeper than the configured finality takes transactions recorded
// final from the chain (issue 41, item 3): their keys are sent again with
// the same bytes under the same nonces (not filled with self-transfers),
// the violation is logged as an ERROR and counted, and a key submitted
// after the reorg becomes final too (the sender does not stall).
func TestFinalTransactionVanishedIsSentAgain(t *testing.T) {
	// MaxInFlight 1: a tick reopens one vanished key; the others wait for
	// the next ticks and are not filled meanwhile.
	for _, inflight := range []int{64, 1} {
		t.Run(fmt.Sprintf("inflight=%d", inflight), func(t *testing.T) { finalTransactionVanished(t, inflight) })
	}
}

func finalTransactionVanished(t *testing.T, inflight int) {
	f := newFixture(t)
	ctx := context.Background()
	var logs logBuffer
	m := f.manager(withLog(&logs, func(c *Config) { c.Finality.Confirmations = 2; c.MaxInFlight = inflight }))
	keys := []string{"deep/0", "deep/1", "deep/2"}
	for _, k := range keys {
		if _, err := m.Submit(ctx, request(k)); err != nil {
			t.Fatal(err)
		}
	}
	before := f.settle(m, true, keys...)
	f.anvil.Mine(t, 2)
	head, _ := f.anvil.Client.BlockNumber(ctx)
	first := before["deep/0"].Block
	depth := int(head-first) + 1 // every block from the first key's on: past 2 confirmations
	at := f.deepReorg(depth)
	if n, _ := f.anvil.Client.NonceAt(ctx, m.Sender(), nil); n != 0 {
		t.Fatalf("after a reorg of %d blocks the sender's mined nonce is %d; want 0", depth, n)
	}
	if _, err := m.Submit(ctx, request("deep/after")); err != nil {
		t.Fatal(err)
	}
	after := f.settle(m, true, append(keys, "deep/after")...)
	stall := time.Since(at)
	t.Logf("MaxInFlight %d, reorg of %d blocks past 2 confirmations: every key final again %s after it", inflight, depth, stall.Round(time.Millisecond))
	for _, k := range keys {
		b, a := before[k], after[k]
		if a.TxHash != b.TxHash || a.Nonce != b.Nonce || a.Outcome != Success || a.Violations != 1 {
			t.Errorf("%s: after the reorg %+v; want the same transaction %s (nonce %d) final again, violations 1", k, a, b.TxHash.Hex(), b.Nonce)
		}
	}
	f.exactlyOnce(m.Sender(), after)
	if got := f.counter("xgr_txm_finality_violations_total", m); got != 3 {
		t.Errorf("xgr_txm_finality_violations_total = %v; want 3", got)
	}
	if got := f.counter("xgr_txm_nonce_gaps_filled_total", m); got != 0 {
		t.Errorf("xgr_txm_nonce_gaps_filled_total = %v; want 0 (the kept bytes close the nonces)", got)
	}
	for _, k := range keys {
		b := before[k]
		lines := logs.lines("level=ERROR", "finality violated", "nonce="+itoa(b.Nonce), "tx="+b.TxHash.Hex(), "depth=")
		if len(lines) != 1 {
			t.Errorf("%s: %d ERROR lines 'finality violated' with its nonce, tx and depth; want 1:\n%s", k, len(lines), strings.Join(logs.lines("finality violated"), "\n"))
		}
	}
}

// A gap filler recorded final that a reorg past finality takes from the
// chain is sent again (issue 41, item 3: fill.lua answered "taken" for an
// existing fill:<n>, so the nonce stayed empty and the sender stalled for
// good). "named": the tick finds the fill by its nonce (n:<nonce>);
// "unnamed": the fill's name is gone (made final before xgr kept it), so
// the nonce is a gap and fill.lua finds the final fill.
func TestVanishedFillIsSentAgain(t *testing.T) {
	for _, named := range []bool{true, false} {
		name := map[bool]string{true: "named", false: "unnamed"}[named]
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			ctx := context.Background()
			var logs logBuffer
			m := f.manager(withLog(&logs, func(c *Config) { c.Finality.Confirmations = 2 }))
			f.automine(false)
			var recs []Record
			for _, k := range []string{"vf/0", "vf/1"} {
				r, err := m.Submit(ctx, request(k))
				if err != nil {
					t.Fatal(err)
				}
				recs = append(recs, r)
			}
			// The record of nonce 0 is lost and its transaction dropped: a
			// fill closes the nonce.
			f.rpc("anvil_dropTransaction", recs[0].TxHash)
			f.rdb.Del(ctx, m.k.record("vf/0"), m.k.attempts("vf/0"))
			f.rdb.ZRem(ctx, m.k.pending(), "vf/0")
			if rep := m.mustTick(t); rep.Filled != 1 {
				t.Fatalf("tick: %+v; want one fill", rep)
			}
			before := f.settle(m, true, "fill:0", "vf/1")
			f.anvil.Mine(t, 2)
			head, _ := f.anvil.Client.BlockNumber(ctx)
			depth := int(head-before["fill:0"].Block) + 1
			if !named {
				f.rdb.Del(ctx, m.k.finalNonce(0))
			}
			f.automine(true)
			at := f.deepReorg(depth)
			if _, err := m.Submit(ctx, request("vf/after")); err != nil {
				t.Fatal(err)
			}
			after := f.settle(m, true, "fill:0", "vf/1", "vf/after")
			t.Logf("%s: reorg of %d blocks past 2 confirmations: every key final again %s after it", name, depth, time.Since(at).Round(time.Millisecond))
			if a, b := after["fill:0"], before["fill:0"]; a.TxHash != b.TxHash || a.Nonce != 0 || a.Violations != 1 {
				t.Errorf("fill:0 after the reorg: %+v; want its transaction %s final again", a, b.TxHash.Hex())
			}
			txs := f.sent(m.Sender())
			if len(txs) != 3 || txs[0].Hash() != before["fill:0"].TxHash {
				t.Fatalf("chain: %d transactions of the sender; want 3, the first the kept fill %s", len(txs), before["fill:0"].TxHash.Hex())
			}
			delete(after, "fill:0")
			f.exactlyOnce(m.Sender(), after)
			if after["vf/1"].TxHash != before["vf/1"].TxHash {
				t.Errorf("vf/1 was signed again: %s, first %s", after["vf/1"].TxHash.Hex(), before["vf/1"].TxHash.Hex())
			}
			if got := f.counter("xgr_txm_finality_violations_total", m); got != 2 {
				t.Errorf("xgr_txm_finality_violations_total = %v; want 2", got)
			}
			if lines := logs.lines("level=ERROR", "finality violated", "nonce=0", "tx="+before["fill:0"].TxHash.Hex()); len(lines) != 1 {
				t.Errorf("%d ERROR lines 'finality violated' for the fill; want 1", len(lines))
			}
		})
	}
}

// A key whose nonce a transaction signed elsewhere used is signed again
// under a new nonce once that block is final (issue 41, item 5): it
// executes once, its old attempt is kept void and never sent.
func TestNonceUsedElsewhereIsSignedAgain(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	var logs logBuffer
	m := f.manager(withLog(&logs, func(c *Config) {
		c.crash = func(s, k string) bool { return s == "recorded" }
	}))
	r, err := m.Submit(ctx, request("taken"))
	if err == nil {
		t.Fatal("want the submission stopped before its broadcast")
	}
	foreign := f.foreignTx(r.Nonce)
	m2 := f.manager(withLog(&logs, nil))
	got := f.settle(m2, true, "taken")["taken"]
	if got.Outcome != Success || got.Nonce != r.Nonce+1 || got.Resigned != 1 || got.TxHash == r.TxHash || !strings.HasPrefix(got.VoidNonces, itoa(r.Nonce)+"@") {
		t.Fatalf("record: %+v; want success under nonce %d, resigned once, a new transaction", got, r.Nonce+1)
	}
	txs := f.sent(m2.Sender())
	if len(txs) != 2 || txs[0].Hash() != foreign.Hash() || txs[1].Hash() != got.TxHash {
		t.Fatalf("chain: %d transactions of the sender; want the foreign one and the key's new one", len(txs))
	}
	f.exactlyOnce(m2.Sender(), map[string]Record{"taken": got})
	void, _ := f.rdb.LRange(ctx, m.k.void("taken"), 0, -1).Result()
	if len(void) != 1 || !strings.Contains(void[0], r.TxHash.Hex()) {
		t.Errorf("void attempts %v; want the first attempt %s", void, r.TxHash.Hex())
	}
	if f.inPool(r.TxHash) {
		t.Errorf("the void attempt %s is known to the node", r.TxHash.Hex())
	}
	if got := f.counter("xgr_txm_resigned_total", m2); got != 1 {
		t.Errorf("xgr_txm_resigned_total = %v; want 1", got)
	}
	if got := f.counter("xgr_txm_final_total", m2, "lost"); got != 0 {
		t.Errorf("xgr_txm_final_total{outcome=lost} = %v; want 0", got)
	}
	if len(logs.lines("level=ERROR", "signing the execution again under a new nonce", "newNonce="+itoa(r.Nonce+1))) != 1 {
		t.Errorf("want one ERROR line naming the new nonce")
	}
}

// The rule when a reorg past finality later takes the foreign transaction
// away from a nonce a key left (issue 41, item 5 with item 3): the nonce
// is filled with a zero-value self-transfer, the key's void attempt is
// never sent, and the key's own transaction is sent again as it was. The
// key executes once.
func TestForeignTransactionVanishedIsFilled(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	var logs logBuffer
	m := f.manager(withLog(&logs, func(c *Config) {
		c.crash = func(s, k string) bool { return s == "recorded" }
		c.Finality.Confirmations = 2
	}))
	r, err := m.Submit(ctx, request("taken"))
	if err == nil {
		t.Fatal("want the submission stopped before its broadcast")
	}
	foreign := f.foreignTx(r.Nonce)
	m2 := f.manager(withLog(&logs, func(c *Config) { c.Finality.Confirmations = 2 }))
	before := f.settle(m2, true, "taken")["taken"]
	f.anvil.Mine(t, 2)
	fr, err := f.anvil.Client.TransactionReceipt(ctx, foreign.Hash())
	if err != nil {
		t.Fatal(err)
	}
	head, _ := f.anvil.Client.BlockNumber(ctx)
	at := f.deepReorg(int(head-fr.BlockNumber.Uint64()) + 1)
	after := f.settle(m2, true, "taken", "fill:0")
	t.Logf("reorg past finality took the foreign transaction and the key's: final again %s after it", time.Since(at).Round(time.Millisecond))
	if a := after["taken"]; a.TxHash != before.TxHash || a.Nonce != r.Nonce+1 || a.Violations != 1 {
		t.Errorf("the key after the reorg: %+v; want its transaction %s under nonce %d again", a, before.TxHash.Hex(), r.Nonce+1)
	}
	txs := f.sent(m2.Sender())
	if len(txs) != 2 || txs[0].Hash() != after["fill:0"].TxHash || *txs[0].To() != m2.Sender() || txs[0].Value().Sign() != 0 || txs[1].Hash() != before.TxHash {
		t.Fatalf("chain: %d transactions; want the fill of nonce 0, then the key's", len(txs))
	}
	f.exactlyOnce(m2.Sender(), map[string]Record{"taken": after["taken"]})
	if len(logs.lines("level=ERROR", "finality violated", "nonce=0", "tx=foreign")) != 1 {
		t.Errorf("want one ERROR line 'finality violated' for the foreign nonce 0")
	}
	if got := f.counter("xgr_txm_finality_violations_total", m2); got != 2 {
		t.Errorf("xgr_txm_finality_violations_total = %v; want 2 (the foreign nonce, the key's)", got)
	}
}

// foreignTx signs and sends a transfer with the fixture's sender key and
// nonce n, outside the manager.
func (f *fixture) foreignTx(n uint64) *types.Transaction {
	f.t.Helper()
	tx, err := types.SignNewTx(f.anvil.Key(f.keyIdx), types.LatestSignerForChainID(f.anvil.ChainID()), &types.DynamicFeeTx{
		ChainID: f.anvil.ChainID(), Nonce: n, GasTipCap: gwei(1), GasFeeCap: gwei(10), Gas: 21000, To: &sink})
	if err != nil {
		f.t.Fatal(err)
	}
	if err := f.anvil.Client.SendTransaction(context.Background(), tx); err != nil {
		f.t.Fatal(err)
	}
	return tx
}

func itoa(n uint64) string { b, _ := json.Marshal(n); return string(b) }
