//go:build chaos

package chaos

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/testenv"
)

// execPoints are the failpoints TestChaosExecutions arms in every replica:
// each boundary of an execution (txmanager/submit.go, tick.go and
// reactor/sessionio.go). The bump points only fire when a transaction is
// not included for a while, which automine does not give; they are armed
// all the same and reported.
var execPoints = []string{
	"reactor.exec-begun",      // begin_exec committed, nothing sent
	"txmanager.reserved",      // nonce reserved with the record, nothing signed
	"txmanager.signed",        // signed, the bytes not recorded
	"txmanager.recorded",      // bytes recorded, not broadcast
	"txmanager.broadcast",     // broadcast, the step not told
	"reactor.exec-final",      // the outcome is final (mined), the step not committed
	"txmanager.bump-signed",   // a fee bump signed, not recorded
	"txmanager.bump-recorded", // a fee bump recorded, not broadcast
}

// senderLeaseTTL is the transaction manager's sender lease (txmanager
// Config.LeaseTTL's default, which xgr run uses).
const senderLeaseTTL = 15 * time.Second

// execConfig are TestChaosExecutions' own knobs.
type execConfig struct {
	sessions, killsPerPoint, maxHit int
}

func loadExecConfig(t *testing.T, cfg config) execConfig {
	ec := execConfig{sessions: max(10, cfg.sessions/3), maxHit: 3}
	if v := os.Getenv("XGR_CHAOS_EXEC_SESSIONS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("XGR_CHAOS_EXEC_SESSIONS=%q: want a whole number ≥ 1", v)
		}
		ec.sessions = n
	}
	ec.killsPerPoint = max(1, ec.sessions/60)
	if v := os.Getenv("XGR_CHAOS_FAILPOINT_KILLS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			t.Fatalf("XGR_CHAOS_FAILPOINT_KILLS=%q: want a whole number ≥ 0 (kills per failpoint)", v)
		}
		ec.killsPerPoint = n
	}
	if v := os.Getenv("XGR_CHAOS_FAILPOINT_HIT"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("XGR_CHAOS_FAILPOINT_HIT=%q: want a whole number ≥ 1 (an armed point kills at a hit drawn from 1..N)", v)
		}
		ec.maxHit = n
	}
	return ec
}

// TestChaosExecutions: kill -9 at every boundary of an execution, audited
// on chain (issue #25). Replicas of `xgr run --executions` (built with the
// failpoint tag) run sessions of a flow whose two steps each send
// settle(amount, ref) to an ExecTarget on anvil, ref unique per session and
// step. Every replica incarnation starts with one failpoint of execPoints
// armed, round robin, to kill it with SIGKILL at a hit drawn from
// 1..XGR_CHAOS_FAILPOINT_HIT, so replicas die at every boundary again and
// again (the fleet restarts them; a point that killed
// XGR_CHAOS_FAILPOINT_KILLS replicas is armed no more, so the run ends); a
// few plain kill -9s of the busiest replica come on top. The audit reads the chain: each committed execution's ref
// was called exactly once and its recorded transaction has a receipt; no
// other settle landed; the executor's nonces are 0..n-1 with none pending
// (latest == pending == the transaction manager's next nonce) and the
// node's txpool holds nothing of it; every session finished and passes
// AuditSession.
func TestChaosExecutions(t *testing.T) {
	cfg := loadConfig(t)
	ec := loadExecConfig(t, cfg)
	t.Logf("knobs: XGR_CHAOS_EXEC_SESSIONS=%d XGR_CHAOS_FAILPOINT_HIT=%d XGR_CHAOS_FAILPOINT_KILLS=%d XGR_CHAOS_REPLICAS=%d XGR_CHAOS_DURATION=%s XGR_CHAOS_SETTLE=%s XGR_CHAOS_SEED=%d",
		ec.sessions, ec.maxHit, ec.killsPerPoint, cfg.replicas, cfg.duration, cfg.settle, cfg.seed)
	t.Run("single", func(t *testing.T) {
		rds := testenv.StartRedis(t, testenv.WithAOF())
		rdb := redis.NewClient(&redis.Options{Addr: rds.Addr, ContextTimeoutEnabled: true, DialTimeout: time.Second, ReadTimeout: 3 * time.Second, WriteTimeout: 3 * time.Second})
		defer rdb.Close()
		runExecutions(t, cfg, ec, "exec-single", rdb, []string{"--redis", "redis://" + rds.Addr + "/0"},
			"redis-server\tappendonly yes, appendfsync always")
	})
	t.Run("cluster", func(t *testing.T) {
		c := startReplicatedCluster(t, 3)
		rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.addrs, ContextTimeoutEnabled: true, DialTimeout: time.Second, ReadTimeout: 3 * time.Second, WriteTimeout: 3 * time.Second})
		defer rdb.Close()
		runExecutions(t, cfg, ec, "exec-cluster", rdb, []string{"--redis-cluster", strings.Join(c.addrs, ",")},
			"redis cluster\t3 masters + 1 replica each, AOF fsync always per node")
	})
}

// execSteps are the flow's steps that execute, in order.
var execSteps = []string{"E1", "E2"}

// execRef is the settle reference of session i's step.
func execRef(run string, i int, step string) string { return fmt.Sprintf("%s-%d-%s", run, i, step) }

// writeExecFlow writes the flow E1 → E2 → D into dir: E1 and E2 each
// settle(Amount, RefN) on target; it returns the flow file and the rules
// directory.
func writeExecFlow(t *testing.T, dir string, target common.Address) (flow, rules string) {
	rules = filepath.Join(dir, "rules")
	if err := os.Mkdir(rules, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"rules/E1.json": fmt.Sprintf(`{
  "payload": {"Amount": {"type": "int64"}, "Ref1": {"type": "string"}, "Ref2": {"type": "string"}},
  "rules": [],
  "onValid": {"payload": {"Amount": "[Amount]", "Ref2": "[Ref2]"},
    "execution": {"to": "%s", "function": "settle(uint256,string)", "args": [{"type": "uint256", "value": "[Amount]"}, {"type": "string", "value": "[Ref1]"}]}},
  "onInvalid": {"payload": {"Failed": "[Ref1]"}}
}`, target.Hex()),
		"rules/E2.json": fmt.Sprintf(`{
  "payload": {"Amount": {"type": "int64"}, "Ref2": {"type": "string"}},
  "rules": [],
  "onValid": {"payload": {"Settled": "[Amount]"},
    "execution": {"to": "%s", "function": "settle(uint256,string)", "args": [{"type": "uint256", "value": "[Amount]"}, {"type": "string", "value": "[Ref2]"}]}},
  "onInvalid": {"payload": {"Failed": "[Ref2]"}}
}`, target.Hex()),
		"rules/Done.json": `{"payload": {}, "rules": []}`,
		"flow.json": `{"id": "settle2", "structure": {
  "E1": {"rule": "<E1>", "onValid": {"spawns": ["E2"]}, "onInvalid": {"spawns": ["D"]}},
  "E2": {"rule": "<E2>", "onValid": {"spawns": ["D"]}, "onInvalid": {"spawns": ["D"]}},
  "D": {"rule": "<Done>"}}}`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "flow.json"), rules
}

// execFaults is what a run of runExecutions does: the finality xgr run
// uses, the failpoints armed in every incarnation, and the faults planned
// over the run (report gives the run's own report lines). With chain set,
// automine is off and the run's miner makes every block (one each 250 ms)
// while holding chain, so a fault that holds it sees no block made
// meanwhile (anvil_reorg racing a block lost a block number).
type execFaults struct {
	confirmations int
	failpoints    []string
	plan          func(rn *run, anvil *testenv.Anvil) []fault
	report        func(fl *fleet) []string
	chain         *sync.Mutex
}

// killFaults are TestChaosExecutions' faults: one confirmation, a kill at
// every failpoint, and a few plain kill -9s of the busiest replica.
var killFaults = execFaults{confirmations: 1, failpoints: execPoints,
	plan: func(rn *run, _ *testenv.Anvil) []fault { return rn.plan(max(1, rn.cfg.kills/4)) }}

// runExecutions is one run of TestChaosExecutions against one Redis
// deployment (redisArgs are xgr run's flags for it).
func runExecutions(t *testing.T, cfg config, ec execConfig, name string, rdb redis.UniversalClient, redisArgs []string, deployment string) {
	runExecutionsWith(t, cfg, ec, name, rdb, redisArgs, deployment, killFaults)
}

// runExecutionsWith is runExecutions with the faults xf (TestChaosDeepReorg
// runs reorgs instead of kills).
func runExecutionsWith(t *testing.T, cfg config, ec execConfig, name string, rdb redis.UniversalClient, redisArgs []string, deployment string, xf execFaults) {
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
confirmations: %d
executions:
  enabled: true
  targets: ["%s"]
`, xf.confirmations, target.Address.Hex())), 0o644); err != nil {
		t.Fatal(err)
	}
	executor := anvil.Address(1)
	args := append(append([]string{}, redisArgs...), "--rpc", anvil.URL, "--config", conf, "--rules", rules, "--exec-poll", "50ms")
	fl := newFleetOpts(t, cfg.replicas, args, []string{flow}, abs(t, outcomesFile)[0], fleetOpts{
		env:           []string{"XGR_EXECUTOR_KEY=" + hex.EncodeToString(crypto.FromECDSA(anvil.Key(1)))},
		failpoints:    xf.failpoints,
		killsPerPoint: ec.killsPerPoint,
		maxHit:        ec.maxHit,
		rng:           rand.New(rand.NewSource(cfg.seed)),
	})
	xcfg := cfg
	xcfg.sessions = ec.sessions
	// The failpoints kill early (at a replica's first hits), and what
	// they leave costs settle time: two thirds of the duration carry the
	// load and the plain kills.
	xcfg.duration = max(5*time.Second, cfg.duration*2/3)
	// A kill of the replica holding the sender's lease stops receipts and
	// stale reservations for the sender until the lease expires (txmanager
	// LeaseTTL, 15 s), and a nonce a killed replica reserved holds every
	// later one back for ReserveTimeout (10 s): settling gets 5 s per
	// possible failpoint kill on top, at least two leases.
	xcfg.settle += max(2*senderLeaseTTL, time.Duration(ec.killsPerPoint*len(xf.failpoints))*5*time.Second)
	rn := newRun(t, xcfg, name, rdb, fl, []shape{{name: "settle2", file: flow, step: "E1", orch: orch}})
	rn.owner = strings.ToLower(anvil.Address(3).Hex())
	rn.payload = func(i int) []byte {
		return []byte(fmt.Sprintf(`{"Amount": %d, "Ref1": %q, "Ref2": %q}`, i+1, execRef(name, i, "E1"), execRef(name, i, "E2")))
	}

	// Automine, and a block every 250 ms on top, so that the last receipts
	// get their confirmation (only the latter with xf.chain).
	if xf.chain != nil {
		if err := anvil.Client.Client().CallContext(context.Background(), nil, "evm_setAutomine", false); err != nil {
			t.Fatal(err)
		}
	}
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
				if xf.chain != nil {
					xf.chain.Lock()
					mineBlock(anvil)
					xf.chain.Unlock()
				} else {
					mineBlock(anvil)
				}
			}
		}
	}()

	rn.begin = time.Now()
	rn.startLoad(cfg.duration * 9 / 10)
	rn.runFaults(xf.plan(rn, anvil))
	settled := rn.settle()
	txm := "xgr:txm:{txm:" + anvil.ChainID().String() + ":" + strings.ToLower(executor.Hex()) + "}:"
	quiet := waitTxmQuiet(rdb, anvil, executor, txm, 20*time.Second)
	close(stopMining)
	awaitGroup(t, &mining, 5*time.Second, "the block miner (evm_mine every 250 ms)")
	fl.scrapeAll()
	fl.stop(10 * time.Second)
	rep := rn.audit()
	ca := auditChain(t, rn, anvil, target, executor, txm)
	kills, armed := fl.failpointKills()
	var kp []string
	total := 0
	for _, p := range xf.failpoints {
		kp = append(kp, fmt.Sprintf("%s %d/%d", p, kills[p], armed[p]))
		total += kills[p]
	}
	lines := []string{deployment, fmt.Sprintf("finality\t%d confirmations", xf.confirmations)}
	if len(xf.failpoints) > 0 {
		lines = append(lines,
			"failpoints armed\t"+fmt.Sprintf("one of %d points per incarnation, at a hit drawn from 1..%d, each point until it killed %d replicas", len(xf.failpoints), ec.maxHit, ec.killsPerPoint),
			"failpoint kills (kill -9)\t"+fmt.Sprintf("%d (kills/incarnations armed): %s", total, strings.Join(kp, ", ")))
	}
	if xf.report != nil {
		lines = append(lines, xf.report(fl)...)
	}
	rn.print(rep, settled, append(lines, []string{
		"session time, start to finished\t" + fmt.Sprintf("p50 %s  p99 %s  max %s", Percentile(ca.sessionTimes, 50), Percentile(ca.sessionTimes, 99), Percentile(ca.sessionTimes, 100)),
		"executions committed\t" + fmt.Sprintf("%d of %d (steps done with a final outcome; %d aborted)", ca.committed, len(execSteps)*ec.sessions, ca.aborted),
		"settle calls on chain\t" + fmt.Sprintf("%d successful settle transactions; refs called once %d, twice or more %d, never %d; foreign refs %d", ca.settles, ca.once, ca.twice, ca.never, ca.foreign),
		"recorded txHash with a receipt\t" + fmt.Sprintf("%d of %d (status 1, same ref)", ca.receipts, ca.committed),
		"executor nonce latest / pending / txm next\t" + fmt.Sprintf("%d / %d / %s", ca.latest, ca.pending, ca.next),
		"executor transactions\t" + fmt.Sprintf("%d (settle %d, gap fills %d, other %d); nonces 0..%d contiguous: %v", ca.txs, ca.settleTxs, ca.fills, ca.other, ca.txs-1, ca.contiguous),
		"longest wait between executor txs\t" + fmt.Sprintf("%s (block timestamps; the sender waits behind a killed replica's reservation or sender lease)", ca.longestGap),
		"pending after settle\t" + fmt.Sprintf("txpool %d, txm pending %d, txm included-not-final %d (quiet after %s)", ca.txpool, ca.txmPending, ca.txmIncluded, quiet.Round(100*time.Millisecond)),
	}...))
}

// waitTxmQuiet waits (up to limit) until the executor has nothing pending
// on the node and the transaction manager nothing pending or included but
// not final, and returns how long it took.
func waitTxmQuiet(rdb redis.UniversalClient, anvil *testenv.Anvil, executor common.Address, txm string, limit time.Duration) time.Duration {
	start := time.Now()
	for time.Since(start) < limit {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		latest, err1 := anvil.Client.NonceAt(ctx, executor, nil)
		pending, err2 := anvil.Client.PendingNonceAt(ctx, executor)
		p, err3 := rdb.ZCard(ctx, txm+"pending").Result()
		i, err4 := rdb.ZCard(ctx, txm+"included").Result()
		cancel()
		if err1 == nil && err2 == nil && err3 == nil && err4 == nil && latest == pending && p == 0 && i == 0 {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	return time.Since(start)
}

// chainAudit is what auditChain found.
type chainAudit struct {
	committed, aborted, receipts         int
	settles, once, twice, never, foreign int
	latest, pending                      uint64
	next                                 string
	txs, settleTxs, fills, other         int
	contiguous                           bool
	txpool                               int
	txmPending, txmIncluded              int64
	sessionTimes                         []time.Duration
	// longestGap is the longest time between two blocks holding executor
	// transactions (block timestamps, whole seconds).
	longestGap time.Duration
}

// auditChain checks the chain against Redis (see TestChaosExecutions) and
// fails the test on every violation.
func auditChain(t *testing.T, rn *run, anvil *testenv.Anvil, target testenv.ExecTarget, executor common.Address, txm string) chainAudit {
	ctx := context.Background()
	var ca chainAudit
	c := anvil.Client
	chainID := anvil.ChainID()

	// Every executor transaction on chain, from block 0 to the head.
	head, err := c.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	signer := types.LatestSignerForChainID(chainID)
	settle := target.ABI.Methods["settle"]
	landed := map[string][]common.Hash{} // ref → successful settle transactions
	var nonces []uint64
	var lastAt uint64 // time of the last block with an executor transaction
	for n := uint64(0); n <= head; n++ {
		b, err := c.BlockByNumber(ctx, new(big.Int).SetUint64(n))
		if err != nil {
			t.Fatalf("block %d: %v", n, err)
		}
		for _, tx := range b.Transactions() {
			from, err := types.Sender(signer, tx)
			if err != nil || from != executor {
				continue
			}
			if lastAt > 0 && b.Time() > lastAt {
				ca.longestGap = max(ca.longestGap, time.Duration(b.Time()-lastAt)*time.Second)
			}
			lastAt = b.Time()
			ca.txs++
			nonces = append(nonces, tx.Nonce())
			switch {
			case tx.To() != nil && *tx.To() == target.Address && len(tx.Data()) >= 4 && string(tx.Data()[:4]) == string(settle.ID):
				ca.settleTxs++
				r, err := c.TransactionReceipt(ctx, tx.Hash())
				if err != nil {
					t.Errorf("settle transaction %s in block %d: no receipt: %v", tx.Hash().Hex(), n, err)
					continue
				}
				if r.Status != types.ReceiptStatusSuccessful {
					continue
				}
				vals, err := settle.Inputs.Unpack(tx.Data()[4:])
				if err != nil || len(vals) != 2 {
					t.Errorf("settle transaction %s: arguments do not decode: %v", tx.Hash().Hex(), err)
					continue
				}
				ref, _ := vals[1].(string)
				landed[ref] = append(landed[ref], tx.Hash())
				ca.settles++
			case tx.To() != nil && *tx.To() == executor && tx.Value().Sign() == 0 && len(tx.Data()) == 0:
				ca.fills++
			default:
				ca.other++
			}
		}
	}
	sort.Slice(nonces, func(i, j int) bool { return nonces[i] < nonces[j] })
	ca.contiguous = true
	for i, n := range nonces {
		if n != uint64(i) {
			ca.contiguous = false
			t.Errorf("%s: the executor's mined nonces are not 0..%d: position %d holds nonce %d", rn.name, len(nonces)-1, i, n)
			break
		}
	}
	if ca.other > 0 {
		t.Errorf("%s: the executor sent %d transactions that are neither settle calls to the target nor gap fills", rn.name, ca.other)
	}

	// Nonces: node latest == pending == the manager's next; nothing in
	// the txpool; nothing pending or unfinished in the manager.
	if ca.latest, err = c.NonceAt(ctx, executor, nil); err != nil {
		t.Fatal(err)
	}
	if ca.pending, err = c.PendingNonceAt(ctx, executor); err != nil {
		t.Fatal(err)
	}
	ca.next, _ = rn.rdb.HGet(ctx, txm+"sender", "next").Result()
	if ca.latest != ca.pending {
		t.Errorf("%s: the executor's nonce: latest %d, pending %d (a transaction is left pending)", rn.name, ca.latest, ca.pending)
	}
	if ca.next != strconv.FormatUint(ca.latest, 10) {
		t.Errorf("%s: the transaction manager's next nonce is %q, the chain's is %d (a gap or a drift)", rn.name, ca.next, ca.latest)
	}
	if uint64(len(nonces)) != ca.latest {
		t.Errorf("%s: %d executor transactions mined, nonce %d", rn.name, len(nonces), ca.latest)
	}
	var pool struct {
		Pending map[string]map[string]any `json:"pending"`
		Queued  map[string]map[string]any `json:"queued"`
	}
	if err := c.Client().CallContext(ctx, &pool, "txpool_content"); err != nil {
		t.Errorf("%s: txpool_content: %v", rn.name, err)
	}
	for addr, txs := range pool.Pending {
		if common.HexToAddress(addr) == executor {
			ca.txpool += len(txs)
		}
	}
	for addr, txs := range pool.Queued {
		if common.HexToAddress(addr) == executor {
			ca.txpool += len(txs)
		}
	}
	if ca.txpool > 0 {
		var nonces []string
		for _, m := range []map[string]map[string]any{pool.Pending, pool.Queued} {
			for addr, txs := range m {
				if common.HexToAddress(addr) == executor {
					for n, tx := range txs {
						b, _ := json.Marshal(tx)
						nonces = append(nonces, n+": "+string(b))
					}
				}
			}
		}
		t.Errorf("%s: %d executor transactions in the node's txpool after settling:\n%s\n%s", rn.name, ca.txpool, strings.Join(nonces, "\n"), txmState(rn.rdb, txm))
	}
	ca.txmPending, _ = rn.rdb.ZCard(ctx, txm+"pending").Result()
	ca.txmIncluded, _ = rn.rdb.ZCard(ctx, txm+"included").Result()
	if ca.txmPending > 0 || ca.txmIncluded > 0 {
		t.Errorf("%s: the transaction manager holds %d pending and %d included-not-final keys after settling:\n%s", rn.name, ca.txmPending, ca.txmIncluded, txmState(rn.rdb, txm))
	}

	// Each session's executing steps against the chain.
	rn.mu.Lock()
	starts := append([]started(nil), rn.starts...)
	rn.mu.Unlock()
	expected := map[string]bool{}
	for _, s := range starts {
		i, err := strconv.Atoi(strings.TrimPrefix(s.key, "chaos-"+rn.name+"-"))
		if err != nil {
			t.Fatalf("start key %q", s.key)
		}
		for _, step := range execSteps {
			expected[execRef(rn.name, i, step)] = true
		}
		if s.err != nil {
			continue // reported by the Redis audit
		}
		if meta, err := rn.store.SessionMeta(ctx, s.root); err == nil && meta.Status == joinstore.SessionFinished {
			if c, f := meta.CreatedAt, meta.FinishedAt; !c.IsZero() && !f.IsZero() {
				ca.sessionTimes = append(ca.sessionTimes, f.Sub(c))
			}
		}
		procs, err := rn.store.Processes(ctx, s.root)
		if err != nil {
			t.Errorf("%s: processes of %s: %v", rn.name, s.root, err)
			continue
		}
		seen := map[string]bool{}
		for _, p := range procs {
			if !isExecStep(p.ResumeStep) {
				continue
			}
			seen[p.ResumeStep] = true
			ref := execRef(rn.name, i, p.ResumeStep)
			ca.auditStep(t, rn, c, target, s.root, p, ref, landed[ref])
		}
		for _, step := range execSteps {
			if !seen[step] {
				t.Errorf("%s: session %s has no process of step %s", rn.name, s.root, step)
			}
		}
	}
	for ref, hs := range landed {
		switch {
		case !expected[ref]:
			ca.foreign++
			t.Errorf("%s: settle(%q) landed, no session of this run has that ref", rn.name, ref)
		case len(hs) > 1:
			ca.twice++
			t.Errorf("%s: settle(%q) landed %d times: %v", rn.name, ref, len(hs), hs)
		default:
			ca.once++
		}
	}
	for ref := range expected {
		if len(landed[ref]) == 0 {
			ca.never++
		}
	}
	return ca
}

func isExecStep(step string) bool {
	for _, s := range execSteps {
		if s == step {
			return true
		}
	}
	return false
}

// auditStep checks one executing step: committed (done) with a final
// outcome whose transaction has a successful receipt carrying the step's
// ref, which landed exactly once (callsOf too); a step that did not
// commit, or aborted, must have landed nothing.
func (ca *chainAudit) auditStep(t *testing.T, rn *run, c *ethclient.Client, target testenv.ExecTarget, root joinstore.Root, p joinstore.Process, ref string, landed []common.Hash) {
	calls := target.Calls(t, c, ref)
	where := fmt.Sprintf("%s: session %s, %s (step %s, ref %s)", rn.name, root, p.Pid, p.ResumeStep, ref)
	if p.Status != joinstore.StatusDone {
		if p.Status == joinstore.StatusAborted {
			ca.aborted++
		}
		if calls != 0 || len(landed) != 0 {
			t.Errorf("%s: status %s, yet settle landed (callsOf %d, transactions %v)", where, p.Status, calls, landed)
		} else {
			t.Errorf("%s: status %s after settling; every execution must commit", where, p.Status)
		}
		return
	}
	if p.Execution == nil || p.Execution.Outcome == nil || p.Execution.TxHash == "" {
		t.Errorf("%s: done without a recorded execution outcome (%+v)", where, p.Execution)
		return
	}
	ca.committed++
	if calls != 1 {
		t.Errorf("%s: callsOf = %d on chain, want exactly 1", where, calls)
	}
	h := common.HexToHash(p.Execution.TxHash)
	r, err := c.TransactionReceipt(context.Background(), h)
	switch {
	case err != nil:
		t.Errorf("%s: the recorded transaction %s has no receipt: %v", where, h.Hex(), err)
	case r.Status != types.ReceiptStatusSuccessful:
		t.Errorf("%s: the recorded transaction %s reverted", where, h.Hex())
	case len(landed) != 1 || landed[0] != h:
		t.Errorf("%s: the recorded transaction is %s, the chain's settle transactions of the ref are %v", where, h.Hex(), landed)
	default:
		ca.receipts++
	}
}

// txmState describes the transaction manager's sender hash and its first
// pending and included keys (state, nonce, hash, attempts), for a failure.
func txmState(rdb redis.UniversalClient, txm string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var b strings.Builder
	sender, err := rdb.HGetAll(ctx, txm+"sender").Result()
	fmt.Fprintf(&b, "  sender %v (err %v), now %d ms\n", sender, err, time.Now().UnixMilli())
	for _, set := range []string{"pending", "included", "queue"} {
		zs, err := rdb.ZRangeWithScores(ctx, txm+set, 0, 4).Result()
		n, _ := rdb.ZCard(ctx, txm+set).Result()
		fmt.Fprintf(&b, "  %s: %d keys (err %v)\n", set, n, err)
		for _, z := range zs {
			key := fmt.Sprint(z.Member)
			rec, _ := rdb.HGetAll(ctx, txm+"x:"+key).Result()
			delete(rec, "raw")
			delete(rec, "data")
			att, _ := rdb.LLen(ctx, txm+"a:"+key).Result()
			fmt.Fprintf(&b, "    %s (score %.0f): %v, %d attempts\n", key, z.Score, rec, att)
		}
	}
	return b.String()
}
