package txmanager

import (
	"context"
	"log/slog"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/redis/go-redis/v9"
)

// redisSnapshot is every key of the transaction manager, as DUMP gives it:
// what a backup of Redis holds.
type redisSnapshot map[string]string

func snapshot(t *testing.T, rdb redis.UniversalClient) redisSnapshot {
	t.Helper()
	ctx := context.Background()
	keys, err := rdb.Keys(ctx, "xgr:txm:*").Result()
	if err != nil {
		t.Fatal(err)
	}
	out := redisSnapshot{}
	for _, k := range keys {
		if out[k], err = rdb.Dump(ctx, k).Result(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// restore puts Redis back to s: every key of the transaction manager that
// s does not hold is deleted, every key it holds is restored as it was.
func (s redisSnapshot) restore(t *testing.T, rdb redis.UniversalClient) {
	t.Helper()
	ctx := context.Background()
	keys, err := rdb.Keys(ctx, "xgr:txm:*").Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) > 0 {
		if err := rdb.Del(ctx, keys...).Err(); err != nil {
			t.Fatal(err)
		}
	}
	for k, v := range s {
		if err := rdb.Restore(ctx, k, 0, v).Err(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRestoredRedisDoesNotSendAgain: issue #41 item 4. Keys are submitted
// and mined, Redis is saved, more keys are submitted and mined, Redis is
// restored to the save, and a restarted manager is asked for the later
// keys again: it sends nothing (the chain's nonce stays), each record
// adopts its original transaction, a new key is sent with the next nonce,
// and a transaction of the key that no execution claims ends with the
// "used outside xgr" warning.
func TestRestoredRedisDoesNotSendAgain(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	logs := &logBuffer{}
	cfg := func(c *Config) {
		c.Log = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
		c.UnclaimedTTL = 500 * time.Millisecond
	}
	m := f.manager(cfg)
	from := m.Sender()
	submit := func(m *Manager, keys ...string) {
		t.Helper()
		for _, k := range keys {
			if _, err := m.Submit(ctx, Request{Key: k, To: sink, Data: []byte(k), GasLimit: 50000}); err != nil {
				t.Fatalf("submit %q: %v", k, err)
			}
		}
	}
	nonce := func() uint64 {
		t.Helper()
		n, err := f.anvil.Client.NonceAt(ctx, from, nil)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	early, late := []string{"k1", "k2", "k3"}, []string{"k4", "k5", "k6"}
	submit(m, early...)
	f.settle(m, false, early...)
	backup := snapshot(t, f.rdb)
	f.anvil.Mine(t, 2) // blocks after the backup without the sender's transactions
	submit(m, late...)
	first := f.settle(m, false, late...)
	if got := nonce(); got != 6 {
		t.Fatalf("chain nonce %d after six executions, want 6", got)
	}

	backup.restore(t, f.rdb)
	m2 := f.manager(cfg) // a replica started on the restored Redis
	submit(m2, late...)
	again := f.settle(m2, false, late...)
	for _, k := range late {
		if again[k].TxHash != first[k].TxHash || again[k].Nonce != first[k].Nonce || again[k].Outcome != Success {
			t.Errorf("%s after the restore: tx %s nonce %d %s; want the original %s nonce %d success",
				k, again[k].TxHash.Hex(), again[k].Nonce, again[k].Outcome, first[k].TxHash.Hex(), first[k].Nonce)
		}
	}
	if got := nonce(); got != 6 {
		t.Fatalf("chain nonce %d after the restore and the same keys again; want 6 (nothing sent again)", got)
	}

	// A key never seen goes through, with the next nonce.
	submit(m2, "k7")
	if r := f.settle(m2, false, "k7")["k7"]; r.Nonce != 6 || r.Outcome != Success {
		t.Fatalf("k7: nonce %d %s; want nonce 6, success", r.Nonce, r.Outcome)
	}

	// A transaction of the key that xgr did not send: listed, claimed by
	// no execution, forgotten after UnclaimedTTL with the warning.
	tip := big.NewInt(1e9)
	h, err := f.anvil.Client.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	foreign, err := types.SignNewTx(f.anvil.Key(f.keyIdx), types.LatestSignerForChainID(f.anvil.ChainID()), &types.DynamicFeeTx{
		ChainID: f.anvil.ChainID(), Nonce: 7, GasTipCap: tip, GasFeeCap: new(big.Int).Add(new(big.Int).Mul(h.BaseFee, big.NewInt(2)), tip),
		Gas: 50000, To: &sink, Data: []byte("foreign")})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.anvil.Client.SendTransaction(ctx, foreign); err != nil {
		t.Fatal(err)
	}
	f.mined(foreign.Hash())
	m2.mustTick(t)
	if strings.Contains(logs.String(), "used outside xgr") {
		t.Fatalf("the warning came before UnclaimedTTL:\n%s", logs.String())
	}
	time.Sleep(600 * time.Millisecond)
	m2.mustTick(t)
	out := logs.String()
	if !strings.Contains(out, "used outside xgr") || !strings.Contains(out, foreign.Hash().Hex()) {
		t.Fatalf("no warning naming the foreign transaction %s:\n%s", foreign.Hash().Hex(), out)
	}
	if n := strings.Count(out, "used outside xgr"); n != 1 {
		t.Errorf("%d warnings of a key used outside xgr; want 1 (the foreign transaction only):\n%s", n, out)
	}
	submit(m2, "k8")
	if r := f.settle(m2, false, "k8")["k8"]; r.Nonce != 8 || r.Outcome != Success {
		t.Fatalf("k8 after the foreign transaction: nonce %d %s; want nonce 8, success", r.Nonce, r.Outcome)
	}
	if got := nonce(); got != 9 {
		t.Fatalf("chain nonce %d; want 9 (8 executions and the foreign transaction)", got)
	}
	recs := map[string]Record{}
	for _, k := range append(append(append([]string{}, early...), late...), "k7", "k8") {
		if recs[k], err = m2.Status(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	f.exactlyOnce(from, recs)
}
