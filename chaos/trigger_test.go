//go:build chaos

package chaos

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/indexer"
	"github.com/xgr-sidecar/xgr/indexstore"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/testenv"
)

// updatedEvent is the registry's OSTCUpdated event, the trigger of this run.
const updatedEvent = "OSTCUpdated(address indexed xrc729Address, address indexed owner, bytes32 indexed ostcIdHash, bytes32 ostcHash, string id, uint256 version, uint64 updatedAt)"

// TestChaosTriggers: trigger starts across cluster master failovers,
// audited against the chain. Replicas of `xgr run` on the 3-master cluster
// follow a registry on anvil whose every OSTCUpdated log starts one session
// (issue #29 point 2). While the logs arrive, masters are killed (their
// replicas take over) and replicas are killed. The audit reads the logs
// from the chain: each must have started exactly one session, under its
// trigger key, that ran to the end; no index entry may be marked failed
// and none left pending; every session passes AuditSession.
func TestChaosTriggers(t *testing.T) {
	cfg := loadConfig(t)
	logs := max(30, cfg.sessions/5)
	c := startReplicatedCluster(t, 3)
	anvil := testenv.StartAnvil(t)
	raw, err := os.ReadFile("testdata/chain.json")
	if err != nil {
		t.Fatal(err)
	}
	reg, _ := testenv.DeployXRC729(t, anvil, chain.RegistryInit{IDs: []string{"flow"}, JSONs: [][]byte{raw}})
	dir := t.TempDir()
	conf := filepath.Join(dir, "xgr.yaml")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf(`
registries: ["%[1]s"]
finality: confirmations
confirmations: 2
triggers:
  - name: updated
    contract: "%[1]s"
    event: "%[2]s"
    orchestration: {registry: "%[1]s", id: flow}
    start: S1
    owner: {arg: owner}
    payload: {Order: {arg: id}}
`, reg.Address.Hex(), updatedEvent)), 0o644); err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.addrs, ContextTimeoutEnabled: true, DialTimeout: time.Second, ReadTimeout: 3 * time.Second, WriteTimeout: 3 * time.Second})
	defer rdb.Close()
	args := []string{"--redis-cluster", strings.Join(c.addrs, ","), "--rpc", anvil.URL, "--config", conf, "--index-poll", "50ms"}
	fl := newFleet(t, cfg.replicas, args, nil, abs(t, outcomesFile)[0])
	cfg.sessions = logs // the report's "of N": one session per log
	rn := newRun(t, cfg, "triggers", rdb, fl, nil)
	rn.owner = strings.ToLower(anvil.Address(0).Hex())
	rn.begin = time.Now()

	// The load: logs registry writes spread over 90% of the duration, and a
	// block every 200 ms so that the last ones reach their confirmations.
	var load sync.WaitGroup
	var writeErrs []string
	var writeMu sync.Mutex
	stopMining := make(chan struct{})
	load.Add(2)
	go func() {
		defer load.Done()
		sender := testenv.Sender(t, anvil, 0)
		window := cfg.duration * 9 / 10
		for i := 1; i < logs; i++ {
			time.Sleep(time.Until(rn.begin.Add(window * time.Duration(i) / time.Duration(logs))))
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			_, err := reg.Put(ctx, sender, fmt.Sprintf("order%d", i), raw)
			cancel()
			if err != nil {
				writeMu.Lock()
				writeErrs = append(writeErrs, err.Error())
				writeMu.Unlock()
			}
		}
	}()
	go func() {
		defer load.Done()
		tick := time.NewTicker(200 * time.Millisecond)
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

	var failovers []string
	var masterKills []fault
	for i := 0; i < max(1, cfg.masterKills); i++ {
		masterKills = append(masterKills, fault{kind: "master kill -9", do: func() (string, error) {
			msg, d, err := c.killMaster(rn)
			failovers = append(failovers, d.Round(time.Millisecond).String())
			return msg, err
		}})
	}
	fs := rn.plan(max(1, cfg.kills/3), masterKills...)
	rn.runFaults(fs)

	// Wait until every log on chain has a finished session, or settle ends.
	chainID := anvil.ChainID().Uint64()
	settleStart := time.Now()
	var onChain []types.Log
	for {
		onChain = registryLogs(t, anvil, reg.Address)
		done := 0
		for _, l := range onChain {
			root, ok := rootOf(rdb, rn.owner, indexstore.StartKey(indexer.StartKeyOf(chainID, l, "updated")))
			if !ok {
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			m, err := rn.store.SessionMeta(ctx, root)
			cancel()
			if err == nil && m.Status == joinstore.SessionFinished {
				done++
			}
		}
		if done == logs && len(onChain) == logs || time.Since(settleStart) > cfg.settle {
			break
		}
		time.Sleep(300 * time.Millisecond)
	}
	close(stopMining)
	// The writer's puts take 20 s at most each; it is done once the
	// faults are over unless puts time out.
	awaitGroup(t, &load, 60*time.Second, "the trigger load (the log writer and the block miner)")
	settled := time.Since(settleStart)
	fl.scrapeAll()
	fl.stop(10 * time.Second)
	if err := c.waitHealthy(20 * time.Second); err != nil {
		t.Logf("cluster after the run: %v", err)
	}
	for _, e := range writeErrs {
		t.Errorf("a registry write failed (the load is short of a log): %s", e)
	}
	if len(onChain) != logs {
		t.Errorf("the chain holds %d OSTCUpdated logs; the load wrote %d", len(onChain), logs)
	}

	// The audit against the chain: each log's key names one session, which
	// that start created (its startKey) and which is in the owner's index.
	idx := indexstore.New(rdb, chainID)
	var failed, pending, lost, foreign int
	ctx := context.Background()
	for _, l := range onChain {
		key := indexstore.StartKey(indexer.StartKeyOf(chainID, l, "updated"))
		s := started{key: key, shape: "chain", attempts: 1}
		entry, err := idx.Entry(ctx, key)
		if err != nil {
			t.Fatalf("index entry %s: %v", key, err)
		}
		switch entry["status"] {
		case "failed":
			failed++
			t.Errorf("log %s (block %d) is marked failed: %s", key, l.BlockNumber, entry["error"])
		case "pending":
			pending++
			t.Errorf("log %s (block %d) is still pending after %d attempts (last error %q)", key, l.BlockNumber, atoi(entry["attempts"]), entry["lastError"])
		}
		root, ok := rootOf(rdb, rn.owner, key)
		if !ok {
			lost++
			s.err = fmt.Errorf("no session for the final log at block %d (index entry %v)", l.BlockNumber, entry)
			t.Errorf("log %s: %v", key, s.err)
		} else {
			s.root, s.ack = root, entry["ack"]
			if m, err := rn.store.SessionMeta(ctx, root); err == nil && m.StartKey != key {
				foreign++
				t.Errorf("log %s: its key names session %s, which start %q created", key, root, m.StartKey)
			}
		}
		rn.starts = append(rn.starts, s)
		if s.err == nil {
			rn.roots = append(rn.roots, s.root)
		}
	}
	rep := rn.audit()
	rn.print(rep, settled, []string{
		"redis cluster\t3 masters + 1 replica each, AOF fsync always per node, async replication, node timeout 1000ms",
		"trigger logs on chain\t" + fmt.Sprintf("%d OSTCUpdated logs (confirmations 2), %d master kills (failover %s)", len(onChain), rn.counts["master kill -9"], strings.Join(failovers, ", ")),
		"logs without a session\t" + strconv.Itoa(lost),
		"index entries failed / pending\t" + fmt.Sprintf("%d / %d", failed, pending),
		"keys naming another start's session\t" + strconv.Itoa(foreign),
		"trigger start retries\t" + fmt.Sprintf("%.0f (xgr_trigger_starts_total{outcome=\"retry\"} of every incarnation)", fl.sum(`xgr_trigger_starts_total{outcome="retry"}`)),
	})
}

// registryLogs reads every OSTCUpdated log of the registry from the chain.
func registryLogs(t *testing.T, anvil *testenv.Anvil, reg common.Address) []types.Log {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	id := crypto.Keccak256Hash([]byte("OSTCUpdated(address,address,bytes32,bytes32,string,uint256,uint64)"))
	logs, err := anvil.Client.FilterLogs(ctx, ethereum.FilterQuery{Addresses: []common.Address{reg}, Topics: [][]common.Hash{{id}}})
	if err != nil {
		t.Fatalf("reading the registry's logs: %v", err)
	}
	return logs
}

// rootOf reads the session an owner's start key names (the idempotency
// hash of alloc_root).
func rootOf(rdb redis.UniversalClient, owner, key string) (joinstore.Root, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	v, err := rdb.HGet(ctx, "xgr:{own:"+owner+"}:idem", key).Result()
	if err != nil {
		return joinstore.Root{}, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return joinstore.Root{}, false
	}
	return joinstore.Root{Owner: owner, RootPid: n}, true
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
