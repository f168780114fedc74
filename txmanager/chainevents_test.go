package txmanager

import (
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
)

// An attempt that stays unmined for BumpAfterBlocks blocks (the base fee
// jumped above its fee cap) is replaced by one with tip and fee cap each
// at least 10% higher, same nonce; the bump is what is mined.
func TestFeeBump(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.automine(false)
	m := f.manager(func(c *Config) { c.BumpAfterBlocks = 2 })
	first, err := m.Submit(ctx, request("bump"))
	if err != nil {
		t.Fatal(err)
	}
	m.mustTick(t) // blocks count from the first tick that sees the attempt unmined
	f.rpc("anvil_setNextBlockBaseFeePerGas", "0x"+gwei(50).Text(16))
	f.anvil.Mine(t, 1)
	if rep, err := m.Tick(ctx); err != nil || rep.Bumped != 0 {
		t.Fatalf("one block later: %+v %v; want no bump yet", rep, err)
	}
	f.anvil.Mine(t, 1)
	rep, err := m.Tick(ctx)
	if err != nil || rep.Bumped != 1 {
		t.Fatalf("two blocks later: %+v %v; want one bump", rep, err)
	}
	bumped, _ := m.Status(ctx, "bump")
	if bumped.Attempts != 2 || bumped.Nonce != first.Nonce || bumped.TxHash == first.TxHash {
		t.Fatalf("after the bump: %+v", bumped)
	}
	if raise(first.TipCap, 10).Cmp(bumped.TipCap) > 0 || raise(first.FeeCap, 10).Cmp(bumped.FeeCap) > 0 {
		t.Fatalf("bump from %s/%s to %s/%s: want each at least +10%%", first.TipCap, first.FeeCap, bumped.TipCap, bumped.FeeCap)
	}
	recs := f.settle(m, true, "bump")
	if recs["bump"].TxHash != bumped.TxHash {
		t.Fatalf("mined %s; want the bumped attempt %s", recs["bump"].TxHash.Hex(), bumped.TxHash.Hex())
	}
	f.exactlyOnce(m.Sender(), recs)
	if got := f.counter("xgr_txm_gas_bumps_total", m); got != 1 {
		t.Errorf("xgr_txm_gas_bumps_total = %v; want 1", got)
	}
}

// A bump the fee cap does not allow is not made; it is counted.
func TestFeeBumpCapped(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.automine(false)
	m := f.manager(func(c *Config) { c.BumpAfterBlocks = 1; c.MaxFeePerGas = gwei(3) })
	if _, err := m.Submit(ctx, request("capped")); err != nil {
		t.Fatal(err)
	}
	m.mustTick(t)
	f.rpc("anvil_setNextBlockBaseFeePerGas", "0x"+gwei(50).Text(16))
	f.anvil.Mine(t, 1)
	rep, err := m.Tick(ctx)
	if err != nil || rep.Bumped != 0 || rep.BumpCapped != 1 {
		t.Fatalf("tick: %+v %v; want a capped bump", rep, err)
	}
	if r, _ := m.Status(ctx, "capped"); r.Attempts != 1 || r.FeeCap.Cmp(gwei(3)) > 0 {
		t.Fatalf("record: %+v", r)
	}
	if got := f.counter("xgr_txm_gas_bump_exceeds_limit_total", m); got != 1 {
		t.Errorf("xgr_txm_gas_bump_exceeds_limit_total = %v; want 1", got)
	}
}

// A transaction the node dropped (anvil_dropTransaction) is sent again
// from its stored bytes and mined with its hash.
func TestDroppedTransactionIsSentAgain(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.automine(false)
	m := f.manager(func(c *Config) { c.Rebroadcast = 50 * time.Millisecond })
	r, err := m.Submit(ctx, request("drop"))
	if err != nil {
		t.Fatal(err)
	}
	f.rpc("anvil_dropTransaction", r.TxHash)
	if f.inPool(r.TxHash) {
		t.Fatal("anvil still has the dropped transaction")
	}
	time.Sleep(60 * time.Millisecond)
	if rep, err := m.Tick(ctx); err != nil || rep.Rebroadcast != 1 {
		t.Fatalf("tick: %+v %v; want one re-broadcast", rep, err)
	}
	if !f.inPool(r.TxHash) {
		t.Fatal("the node does not have the transaction after the re-broadcast")
	}
	recs := f.settle(m, true, "drop")
	if recs["drop"].TxHash != r.TxHash || recs["drop"].Attempts != 1 {
		t.Fatalf("mined: %+v; want the first attempt %s", recs["drop"], r.TxHash.Hex())
	}
	f.exactlyOnce(m.Sender(), recs)
}

// A reorg that drops the receipt's block sends the same transaction again;
// it is mined again (same hash, another block) and then final.
func TestReorgSendsTheSameTransaction(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	m := f.manager(func(c *Config) { c.Finality.Confirmations = 3 })
	r, err := m.Submit(ctx, request("reorg"))
	if err != nil {
		t.Fatal(err)
	}
	f.mined(r.TxHash)
	if rep, err := m.Tick(ctx); err != nil || rep.Included != 1 {
		t.Fatalf("tick: %+v %v; want the receipt", rep, err)
	}
	mined, _ := m.Status(ctx, "reorg")
	f.automine(false)
	f.rpc("anvil_reorg", 1, [][]any{})
	if _, err := f.anvil.Client.TransactionReceipt(ctx, r.TxHash); err == nil {
		t.Log("anvil kept the receipt after the reorg")
	}
	rep, err := m.Tick(ctx)
	if err != nil || rep.Reorged != 1 {
		t.Fatalf("tick after the reorg: %+v %v; want one reorg", rep, err)
	}
	if back, _ := m.Status(ctx, "reorg"); back.State != Signed || back.TxHash != r.TxHash {
		t.Fatalf("after the reorg: %+v; want signed, same hash", back)
	}
	recs := f.settle(m, true, "reorg")
	got := recs["reorg"]
	if got.TxHash != r.TxHash || got.Reorgs != 1 || got.BlockHash == mined.BlockHash || got.Outcome != Success {
		t.Fatalf("final: %+v; first mined in %s", got, mined.BlockHash.Hex())
	}
	f.exactlyOnce(m.Sender(), recs)
	if got := f.counter("xgr_txm_reorgs_total", m); got != 1 {
		t.Errorf("xgr_txm_reorgs_total = %v; want 1", got)
	}
}

// A nonce whose record is gone (a lost write) and whose transaction the
// node dropped is a gap no re-broadcast closes: it is filled with a
// zero-value transfer to the sender, and the keys above it are mined.
func TestNonceGapIsFilled(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.automine(false)
	m := f.manager(nil)
	var recs []Record
	for _, k := range []string{"gap/0", "gap/1", "gap/2"} {
		r, err := m.Submit(ctx, request(k))
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	lost := recs[0]
	f.rpc("anvil_dropTransaction", lost.TxHash)
	f.rdb.Del(ctx, m.k.record(lost.Key), m.k.attempts(lost.Key))
	f.rdb.ZRem(ctx, m.k.pending(), lost.Key)
	rep, err := m.Tick(ctx)
	if err != nil || rep.Filled != 1 {
		t.Fatalf("tick: %+v %v; want one fill", rep, err)
	}
	final := f.settle(m, true, "gap/1", "gap/2", "fill:0")
	fill := final["fill:0"]
	if fill.Nonce != lost.Nonce || fill.To != m.Sender() || fill.Value.Sign() != 0 || fill.Outcome != Success {
		t.Fatalf("fill: %+v", fill)
	}
	txs := f.sent(m.Sender())
	if len(txs) != 3 || txs[0].Hash() != fill.TxHash || *txs[0].To() != m.Sender() || txs[0].Value().Sign() != 0 {
		t.Fatalf("chain: %d transactions, first %v", len(txs), txs[0])
	}
	delete(final, "fill:0")
	f.exactlyOnce(m.Sender(), map[string]Record{"gap/1": final["gap/1"], "gap/2": final["gap/2"]})
	if got := f.counter("xgr_txm_nonce_gaps_filled_total", m); got != 1 {
		t.Errorf("xgr_txm_nonce_gaps_filled_total = %v; want 1", got)
	}
}

// A gap filler whose nonce a transaction signed elsewhere used ends lost
// once that block is final: the gap is closed, nothing is signed again.
// (An execution in that place is signed again under a new nonce:
// TestNonceUsedElsewhereIsSignedAgain.)
func TestFillerNonceUsedElsewhereIsLost(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.automine(false)
	m := f.manager(func(c *Config) {
		c.crash = func(s, k string) bool { return s == "recorded" && k == "fill:0" }
	})
	r, err := m.Submit(ctx, request("gone"))
	if err != nil {
		t.Fatal(err)
	}
	f.rpc("anvil_dropTransaction", r.TxHash)
	f.rdb.Del(ctx, m.k.record("gone"), m.k.attempts("gone"))
	f.rdb.ZRem(ctx, m.k.pending(), "gone")
	if _, err := m.Tick(ctx); err == nil {
		t.Fatal("want the fill stopped before its broadcast")
	}
	f.automine(true)
	f.foreignTx(r.Nonce)
	m2 := f.manager(nil)
	got := f.settle(m2, true, "fill:0")["fill:0"]
	if got.Outcome != Lost || got.Error == "" || got.Attempts != 1 || got.Nonce != 0 {
		t.Fatalf("record: %+v; want lost", got)
	}
	if n := len(f.sent(m2.Sender())); n != 1 {
		t.Fatalf("%d transactions of the sender on chain; want only the foreign one", n)
	}
	if v, _ := f.rdb.Get(ctx, m.k.finalNonce(0)).Result(); v != "foreign:fill:0" {
		t.Errorf("n:0 = %q; want foreign:fill:0", v)
	}
}

// legacyChain is anvil seen as a chain without a base fee (heads carry
// none), as a pre-London chain is.
type legacyChain struct{ *ethclient.Client }

func (c legacyChain) HeaderByNumber(ctx context.Context, n *big.Int) (*types.Header, error) {
	h, err := c.Client.HeaderByNumber(ctx, n)
	if h != nil {
		h.BaseFee = nil
	}
	return h, err
}

// On a chain without a base fee the manager signs legacy transactions
// priced by the node's gas price, and bumps the gas price by 10%.
func TestLegacyPricingAndBump(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.automine(false)
	m := f.manager(func(c *Config) { c.Chain = legacyChain{f.anvil.Client}; c.BumpAfterBlocks = 1 })
	first, err := m.Submit(ctx, request("legacy"))
	if err != nil {
		t.Fatal(err)
	}
	if first.GasPrice == nil || first.FeeCap != nil {
		t.Fatalf("first attempt: %+v; want a legacy gas price", first)
	}
	m.mustTick(t)
	f.rpc("anvil_setNextBlockBaseFeePerGas", "0x"+gwei(50).Text(16))
	f.anvil.Mine(t, 1)
	if rep, err := m.Tick(ctx); err != nil || rep.Bumped != 1 {
		t.Fatalf("tick: %+v %v; want a bump", rep, err)
	}
	bumped, _ := m.Status(ctx, "legacy")
	if raise(first.GasPrice, 10).Cmp(bumped.GasPrice) > 0 {
		t.Fatalf("gas price %s after %s: want at least +10%%", bumped.GasPrice, first.GasPrice)
	}
	recs := f.settle(m, true, "legacy")
	tx, _, err := f.anvil.Client.TransactionByHash(ctx, recs["legacy"].TxHash)
	if err != nil || tx.Type() != types.LegacyTxType {
		t.Fatalf("mined transaction: %v %v; want a legacy one", tx, err)
	}
	f.exactlyOnce(m.Sender(), recs)
}

// A transaction of the sender's key sent outside xgr and still pending is
// not a gap: the manager's next nonce moves past it, nothing is filled,
// and the next key takes the nonce after it.
func TestForeignPendingNonceIsNoGap(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.automine(false)
	m := f.manager(nil)
	if _, err := m.Submit(ctx, request("before")); err != nil {
		t.Fatal(err)
	}
	tx, err := types.SignNewTx(f.anvil.Key(f.keyIdx), types.LatestSignerForChainID(f.anvil.ChainID()), &types.DynamicFeeTx{
		ChainID: f.anvil.ChainID(), Nonce: 1, GasTipCap: gwei(1), GasFeeCap: gwei(10), Gas: 21000, To: &sink})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.anvil.Client.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	rep, err := m.Tick(ctx)
	if err != nil || rep.Filled != 0 {
		t.Fatalf("tick: %+v %v; want no fill", rep, err)
	}
	after, err := m.Submit(ctx, request("after"))
	if err != nil || after.Nonce != 2 {
		t.Fatalf("next key: %+v %v; want nonce 2", after, err)
	}
	recs := f.settle(m, true, "before", "after")
	if n := len(f.sent(m.Sender())); n != 3 {
		t.Fatalf("%d transactions of the sender; want 3 (2 keys, 1 foreign)", n)
	}
	if recs["before"].Nonce != 0 {
		t.Fatalf("before: %+v", recs["before"])
	}
}

// An attempt is bumped only after the tick has seen it unmined for
// BumpAfterBlocks blocks, not after blocks that passed before it was sent
// (the fee market read that priced it may be older than the head).
func TestNoBumpForAFreshAttempt(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.automine(false)
	m := f.manager(func(c *Config) { c.BumpAfterBlocks = 3; c.MarketMaxAge = time.Minute })
	if _, err := m.Submit(ctx, request("early")); err != nil {
		t.Fatal(err)
	}
	f.anvil.Mine(t, 5)
	if _, err := m.Submit(ctx, request("fresh")); err != nil {
		t.Fatal(err)
	}
	rep, err := m.Tick(ctx)
	if err != nil || rep.Bumped != 0 {
		t.Fatalf("first tick after a fresh submission: %+v %v; want no bump", rep, err)
	}
	for range 2 {
		f.rpc("anvil_setNextBlockBaseFeePerGas", "0x"+gwei(50).Text(16))
		f.anvil.Mine(t, 1)
		if rep, err := m.Tick(ctx); err != nil || rep.Bumped != 0 {
			t.Fatalf("tick: %+v %v; want no bump before 3 blocks", rep, err)
		}
	}
	f.rpc("anvil_setNextBlockBaseFeePerGas", "0x"+gwei(50).Text(16))
	f.anvil.Mine(t, 1)
	if rep, err := m.Tick(ctx); err != nil || rep.Bumped != 1 {
		t.Fatalf("tick 3 blocks later: %+v %v; want a bump", rep, err)
	}
	f.exactlyOnce(m.Sender(), f.settle(m, true, "early", "fresh"))
}

// With finality "finalized" a receipt is final once the node's finalized
// block holds it.
func TestFinalizedTag(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	m := f.manager(func(c *Config) { c.Finality = Finality{Mode: "finalized"} })
	if _, err := m.Submit(ctx, request("fin")); err != nil {
		t.Fatal(err)
	}
	// The first tick may still see the head of the submission's cached
	// fee market read (a busy machine): tick until the receipt is seen; it
	// must be included and not final, the node's finalized block being far
	// behind.
	for i := 0; ; i++ {
		rep := m.mustTick(t)
		if rep.Final != 0 {
			t.Fatalf("tick %d: %+v; final before the node finalized its block", i, rep)
		}
		if rep.Included == 1 {
			break
		}
		if i == 50 {
			t.Fatalf("tick: %+v; want included, not final, within 50 ticks", rep)
		}
		time.Sleep(20 * time.Millisecond)
	}
	r := f.settle(m, true, "fin")["fin"]
	fin, err := f.anvil.Client.HeaderByNumber(ctx, big.NewInt(int64(rpc.FinalizedBlockNumber)))
	if err != nil || fin.Number.Uint64() < r.Block {
		t.Fatalf("final at block %d, but the node's finalized block is %v (%v)", r.Block, fin, err)
	}
}
