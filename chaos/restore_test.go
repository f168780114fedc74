//go:build chaos

package chaos

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/session"
	"github.com/xgr-sidecar/xgr/testenv"
)

// TestChaosRestore: a Redis restored from a backup does not send
// executions again (issue #41 item 4). Replicas of `xgr run --executions`
// on redis-server (AOF, fsync always) run sessions of the flow E1 → E2 → D,
// whose two steps each settle(amount, ref) on an ExecTarget on anvil. Half
// of the sessions run to the end; Redis is backed up as docs/runbook.md
// says (BGSAVE, copy dump.rdb); the other half run to the end. Then the
// replicas are stopped, Redis is restored from the backup (a server
// loading the copied dump.rdb with appendonly no, then AOF turned on), the
// replicas start again, and the sessions of the second half — gone with
// the restore — are started again with their start keys and payloads, as
// a trigger replay from the restored index checkpoint starts them. Their
// steps reach the transaction manager with calls the chain already holds.
// The audit reads the chain (auditChain): each ref settled exactly once,
// each committed step's recorded transaction is the one that landed, the
// executor's nonces are contiguous with nothing pending, and the
// transaction manager's next nonce is the chain's.
func TestChaosRestore(t *testing.T) {
	cfg := loadConfig(t)
	sessions := max(8, min(20, cfg.sessions/3))
	if v := os.Getenv("XGR_CHAOS_EXEC_SESSIONS"); v != "" {
		ec := loadExecConfig(t, cfg)
		sessions = ec.sessions
	}
	half := sessions / 2
	name := "restore"
	rds := testenv.StartRedis(t, testenv.WithAOF())
	anvil := testenv.StartAnvil(t)
	target := testenv.DeployExecTarget(t, anvil)
	dir := t.TempDir()
	flow, rules := writeExecFlow(t, dir, target.Address)
	raw, err := os.ReadFile(flow)
	if err != nil {
		t.Fatal(err)
	}
	orch, err := registry.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "xgr.yaml")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf(`
finality: confirmations
confirmations: 1
executions:
  enabled: true
  targets: ["%s"]
`, target.Address.Hex())), 0o644); err != nil {
		t.Fatal(err)
	}
	executor := anvil.Address(1)
	txm := "xgr:txm:{txm:" + anvil.ChainID().String() + ":" + strings.ToLower(executor.Hex()) + "}:"
	env := []string{"XGR_EXECUTOR_KEY=" + hex.EncodeToString(crypto.FromECDSA(anvil.Key(1)))}
	xgrArgs := func(addr string) []string {
		return []string{"--redis", "redis://" + addr + "/0", "--rpc", anvil.URL, "--config", conf, "--rules", rules, "--exec-poll", "50ms"}
	}
	client := func(addr string) *redis.Client {
		c := redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true, DialTimeout: time.Second, ReadTimeout: 3 * time.Second, WriteTimeout: 3 * time.Second})
		t.Cleanup(func() { c.Close() })
		return c
	}

	// A block every 250 ms besides automine, so that the last receipts get
	// their confirmation.
	stopMining := make(chan struct{})
	var mining sync.WaitGroup
	mining.Add(1)
	go func() {
		defer mining.Done()
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stopMining:
				return
			case <-tick.C:
				mineBlock(anvil)
			}
		}
	}()
	defer func() {
		select {
		case <-stopMining:
		default:
			close(stopMining)
		}
	}()

	xcfg := cfg
	xcfg.sessions = sessions
	xcfg.settle = max(cfg.settle, 60*time.Second)
	rdb := client(rds.Addr)
	fl := newFleetOpts(t, cfg.replicas, xgrArgs(rds.Addr), []string{flow}, abs(t, outcomesFile)[0], fleetOpts{env: env})
	rn := newRun(t, xcfg, name, rdb, fl, []shape{{name: "settle2", file: flow, step: "E1", orch: orch}})
	rn.owner = strings.ToLower(anvil.Address(3).Hex())
	payload := func(i int) []byte {
		return []byte(fmt.Sprintf(`{"Amount": %d, "Ref1": %q, "Ref2": %q}`, i+1, execRef(name, i, "E1"), execRef(name, i, "E2")))
	}
	src := reactor.NewStaticSource(orch)
	start := func(i int) started {
		s := started{key: fmt.Sprintf("chaos-%s-%d", name, i), shape: "settle2"}
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
			s.attempts++
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			res, err := session.Starter{Store: rn.store, Source: src}.Start(ctx, session.Request{Owner: rn.owner, Registry: "file",
				OstcID: orch.ID, Step: "E1", Payload: payload(i), Key: s.key})
			cancel()
			if s.err = err; err == nil {
				s.root, s.ack = res.Root, res.Ack
				break
			}
		}
		if s.err != nil {
			t.Fatalf("start %s: %v", s.key, s.err)
		}
		return s
	}
	runSessions := func(from, to int) []started {
		var out []started
		rn.mu.Lock()
		rn.starts, rn.roots = nil, nil
		rn.mu.Unlock()
		for i := from; i < to; i++ {
			s := start(i)
			out = append(out, s)
			rn.mu.Lock()
			rn.starts, rn.roots = append(rn.starts, s), append(rn.roots, s.root)
			rn.mu.Unlock()
		}
		rn.settle()
		waitTxmQuiet(rn.rdb, anvil, executor, txm, 20*time.Second)
		return out
	}
	rn.begin = time.Now()

	// 1. The first half runs to the end; Redis is backed up.
	firstHalf := runSessions(0, half)
	backupDir := t.TempDir()
	backupAt := backup(t, rdb, backupDir)
	ctx := context.Background()
	nonceAtBackup, err := anvil.Client.NonceAt(ctx, executor, nil)
	if err != nil {
		t.Fatal(err)
	}

	// 2. The second half runs to the end after the backup.
	runSessions(half, sessions)
	nonceBeforeRestore, err := anvil.Client.NonceAt(ctx, executor, nil)
	if err != nil {
		t.Fatal(err)
	}
	fl.stop(10 * time.Second)

	// 3. Restore: stop Redis, load the backup's dump.rdb with appendonly
	// no, then turn AOF on (docs/runbook.md), start the replicas again.
	rds.Stop()
	restored := testenv.StartRedis(t, testenv.WithArgs("--dir", backupDir, "--dbfilename", "dump.rdb", "--appendonly", "no"))
	rdb2 := client(restored.Addr)
	for _, kv := range [][2]string{{"appendonly", "yes"}, {"appendfsync", "always"}} {
		if err := rdb2.ConfigSet(ctx, kv[0], kv[1]).Err(); err != nil {
			t.Fatal(err)
		}
	}
	restartedAt := time.Now()
	fl2 := newFleetOpts(t, cfg.replicas, xgrArgs(restored.Addr), []string{flow}, abs(t, outcomesFile)[0], fleetOpts{env: env})
	rn.rdb, rn.fleet = rdb2, fl2
	rn.store = newRun(t, xcfg, name, rdb2, fl2, nil).store

	// 4. The sessions the restore took back are started again (a trigger
	// replay starts them the same way), and run to the end.
	secondHalf := runSessions(half, sessions)
	settled := time.Since(restartedAt)
	close(stopMining)
	awaitGroup(t, &mining, 5*time.Second, "the block miner (evm_mine every 250 ms)")
	fl2.scrapeAll()
	fl2.stop(10 * time.Second)

	// 5. The audit, from the chain, over every session.
	rn.mu.Lock()
	rn.starts, rn.roots = nil, nil
	for _, s := range append(append([]started{}, firstHalf...), secondHalf...) {
		rn.starts, rn.roots = append(rn.starts, s), append(rn.roots, s.root)
	}
	rn.mu.Unlock()
	rep := rn.audit()
	ca := auditChain(t, rn, anvil, target, executor, txm)
	adopted := countAdopted(t, rdb2, txm)
	nonceAfter, err := anvil.Client.NonceAt(ctx, executor, nil)
	if err != nil {
		t.Fatal(err)
	}
	if nonceAfter != nonceBeforeRestore {
		t.Errorf("the executor's nonce went from %d to %d after the restore: %d transactions sent again", nonceBeforeRestore, nonceAfter, nonceAfter-nonceBeforeRestore)
	}
	if want := 2 * (sessions - half); adopted != want {
		t.Errorf("%d executions adopted their transaction after the restore; want %d (two per session started after the backup)", adopted, want)
	}
	rn.print(rep, settled, []string{
		"redis persistence\tappendonly yes, appendfsync always; backup BGSAVE + dump.rdb copy, restore by loading it (appendonly no), then AOF on",
		"sessions before / after the backup\t" + fmt.Sprintf("%d / %d (the latter started again after the restore)", half, sessions-half),
		"backup taken\t" + fmt.Sprintf("%s after the start, executor nonce %d", backupAt.Sub(rn.begin).Round(100*time.Millisecond), nonceAtBackup),
		"executor nonce before restore / after\t" + fmt.Sprintf("%d / %d (transactions sent again: %d)", nonceBeforeRestore, nonceAfter, int64(nonceAfter)-int64(nonceBeforeRestore)),
		"executions adopted after the restore\t" + fmt.Sprintf("%d of %d (records made from the chain's transaction, nothing signed)", adopted, 2*(sessions-half)),
		"executions committed\t" + fmt.Sprintf("%d of %d (%d aborted)", ca.committed, len(execSteps)*sessions, ca.aborted),
		"settle calls on chain\t" + fmt.Sprintf("%d successful; refs called once %d, twice or more %d, never %d; foreign refs %d", ca.settles, ca.once, ca.twice, ca.never, ca.foreign),
		"recorded txHash with a receipt\t" + fmt.Sprintf("%d of %d", ca.receipts, ca.committed),
		"executor nonce latest / pending / txm next\t" + fmt.Sprintf("%d / %d / %s", ca.latest, ca.pending, ca.next),
		"executor transactions\t" + fmt.Sprintf("%d (settle %d, gap fills %d, other %d); contiguous %v", ca.txs, ca.settleTxs, ca.fills, ca.other, ca.contiguous),
		"restore to all sessions finished\t" + settled.Round(100*time.Millisecond).String(),
	})
}

// backup takes a point-in-time copy of Redis as docs/runbook.md says:
// BGSAVE, wait until it is done, copy dump.rdb into dir. It returns when
// the snapshot was taken.
func backup(t *testing.T, rdb *redis.Client, dir string) time.Time {
	t.Helper()
	ctx := context.Background()
	before, err := rdb.LastSave(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now()
	if err := rdb.BgSave(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		info, err := rdb.Info(ctx, "persistence").Result()
		if err != nil {
			t.Fatal(err)
		}
		last, err := rdb.LastSave(ctx).Result()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(info, "rdb_bgsave_in_progress:0") && strings.Contains(info, "rdb_last_bgsave_status:ok") && last >= before && last > 0 {
			if last > before || time.Since(at) > 2*time.Second {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("BGSAVE did not finish in 30 s:\n%s", info)
		}
	}
	conf, err := rdb.ConfigGet(ctx, "dir").Result()
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.Open(filepath.Join(conf["dir"], "dump.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.Create(filepath.Join(dir, "dump.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return at
}

// countAdopted counts the transaction manager's records that adopted a
// transaction from the chain (field adoptedAt).
func countAdopted(t *testing.T, rdb redis.UniversalClient, txm string) int {
	t.Helper()
	ctx := context.Background()
	keys, err := rdb.Keys(ctx, txm+"x:*").Result()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, k := range keys {
		if v, _ := rdb.HGet(ctx, k, "adoptedAt").Result(); v != "" {
			n++
		}
	}
	return n
}
