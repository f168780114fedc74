package indexer

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/xgr-sidecar/xgr/authority"
	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/indexstore"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/rulesource"
	"github.com/xgr-sidecar/xgr/session"
	"github.com/xgr-sidecar/xgr/testenv"
)

// The registry's own OSTCUpdated event serves as the trigger event: every
// setOSTC of an id starting with "order" starts a session of "flow".
func triggerConfig(reg common.Address) string {
	return fmt.Sprintf(`
registries: ["%[1]s"]
finality: confirmations
confirmations: 3
triggers:
  - name: updated
    contract: "%[1]s"
    event: "OSTCUpdated(address indexed xrc729Address, address indexed owner, bytes32 indexed ostcIdHash, bytes32 ostcHash, string id, uint256 version, uint64 updatedAt)"
    orchestration: {registry: "%[1]s", id: flow}
    start: A1
    owner: {arg: owner}
    payload:
      Id: {arg: id}
      Version: {arg: version}
      Block: {log: blockNumber}
`, reg.Hex())
}

type rig struct {
	sim     *testenv.Sim
	reg     *chain.Registry
	sender  *chain.Sender
	store   *joinstore.Store
	follow  *Follower
	starter *Starter
}

func newRig(t *testing.T) *rig {
	sim := testenv.StartSim(t)
	reg, _ := testenv.DeployXRC729(t, sim, chain.RegistryInit{})
	cfg, err := ParseConfig("test.yaml", []byte(triggerConfig(reg.Address)))
	if err != nil {
		t.Fatal(err)
	}
	rdb := testenv.StartRedis(t).Client()
	store := joinstore.New(rdb, joinstore.Config{})
	idx := indexstore.New(rdb, 1337)
	r := &rig{sim: sim, reg: reg, sender: testenv.Sender(t, sim, 0), store: store}
	r.follow = &Follower{Chain: sim.Backend(), ChainID: 1337, Index: idx, Registries: cfg.Registries, Triggers: cfg.Triggers, Range: NewRangeSizer(5, 0)}
	r.starter = &Starter{Chain: sim.Backend(), Index: idx, Store: store, Source: NewCacheSource(idx, sim.Backend()), Finality: cfg.Finality, Confirmations: cfg.Confirmations,
		Authority: scriptedAuthority(sim)}
	if _, err := reg.Put(context.Background(), r.sender, "flow", example(t, "nested_join.json")); err != nil {
		t.Fatal(err)
	}
	return r
}

// scriptedAuthority is the authority of a replica run with --outcomes on
// sim, as xgr run builds it: the registry's owner and executors may start,
// and the rule aliases of the examples play scripted outcomes.
func scriptedAuthority(sim *testenv.Sim) *authority.Checker {
	return authority.NewChecker(authority.NewChainReader(sim.Backend())).WithRules(authority.ScriptedSteps(&rulesource.Loader{}))
}

func (r *rig) sync(t *testing.T) int {
	t.Helper()
	catchUp(t, r.follow)
	n, err := r.starter.Step(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func (r *rig) sessions(t *testing.T) []joinstore.SessionRef {
	t.Helper()
	owner := chainOwner(r.sim)
	list, err := r.store.Sessions(context.Background(), owner, 0, 1000, true)
	if err != nil {
		t.Fatal(err)
	}
	return list
}

func chainOwner(sim *testenv.Sim) string {
	return strings.ToLower(sim.Address(0).Hex())
}

func TestTriggersStartEachSessionOnceAfterConfirmation(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	for i := 0; i < 10; i++ {
		r.reg.Put(ctx, r.sender, fmt.Sprintf("order%d", i), example(t, "minimal_join.json"))
	}
	// The last puts are not confirmed yet (3 confirmations).
	if n := r.sync(t); n != 9 {
		t.Fatalf("%d sessions started; want the 9 confirmed ones (the flow put and 8 orders)", n)
	}
	r.sim.Mine(3)
	if n := r.sync(t); n != 2 {
		t.Fatalf("%d more sessions after confirmation, want 2", n)
	}
	// Running again (a restart) starts nothing new.
	if n := r.sync(t); n != 0 {
		t.Fatalf("a second pass started %d sessions", n)
	}
	list := r.sessions(t)
	if len(list) != 11 {
		t.Fatalf("%d sessions, want 11 (one per OSTCUpdated log)", len(list))
	}
	meta, _ := r.store.SessionMeta(ctx, list[10].Root)
	p, _ := r.store.Process(ctx, list[10].Root, 1)
	var payload map[string]any
	json.Unmarshal(p.ResumePlain, &payload)
	if meta.OstcID != "flow" || meta.StartStep != "A1" || payload["Id"] != "order9" || payload["Version"] != "1" {
		t.Fatalf("session of the last trigger: %v %v", meta, payload)
	}
}

// A crash between starting a session and recording it only repeats the
// start, which the idempotency key turns into already_queued.
func TestTriggerStartIsIdempotentAcrossACrash(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	r.sim.Mine(3)
	catchUp(t, r.follow)
	keys, _ := r.follow.Index.PendingStarts(ctx, 1<<62, 10)
	if len(keys) != 1 {
		t.Fatalf("pending starts %v", keys)
	}
	rec, _ := r.follow.Index.Entry(ctx, keys[0])
	// The "crashed" starter got as far as creating the session.
	_, err := session.Starter{Store: r.store, Source: r.starter.Source, Authority: r.starter.Authority}.Start(ctx, session.Request{Owner: rec["owner"], Registry: rec["registry"], OstcID: rec["ostcId"],
		Step: rec["start"], Payload: json.RawMessage(rec["payload"]), Key: keys[0]})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := r.starter.Step(ctx); err != nil || n != 1 {
		t.Fatalf("restarted starter: %d %v", n, err)
	}
	if rec, _ := r.follow.Index.Entry(ctx, keys[0]); rec["ack"] != "already_queued" {
		t.Fatalf("record %v", rec)
	}
	if list := r.sessions(t); len(list) != 1 {
		t.Fatalf("%d sessions", len(list))
	}
}

// A trigger log that a reorg removes before it is confirmed starts nothing.
func TestReorgedTriggerStartsNothing(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	r.sim.Mine(3)
	r.sync(t) // the flow put's own session
	base, _ := r.sim.Client.HeaderByNumber(ctx, nil)
	nonce, _ := r.sim.Client.PendingNonceAt(ctx, r.sim.Address(0))
	r.reg.Put(ctx, r.sender, "order-gone", example(t, "minimal_join.json"))
	catchUp(t, r.follow)
	if pending, _ := r.follow.Index.PendingCount(ctx); pending != 1 {
		t.Fatalf("pending %d", pending)
	}
	// Reorg: a branch from base where the same nonce pays a plain transfer
	// instead, so the put (and its trigger log) is gone for good.
	if err := r.sim.Simulated.Fork(base.Hash()); err != nil {
		t.Fatal(err)
	}
	to := r.sim.Address(1)
	tx := types.NewTx(&types.DynamicFeeTx{ChainID: r.sim.ChainID(), Nonce: nonce, GasTipCap: big.NewInt(50e9), GasFeeCap: big.NewInt(500e9), Gas: 21000, To: &to})
	signed, err := types.SignTx(tx, types.LatestSignerForChainID(r.sim.ChainID()), r.sim.Key(0))
	if err != nil {
		t.Fatal(err)
	}
	// The transaction pool resets to the fork's parent asynchronously; until
	// it has, the nonce still counts as taken by the put on the old branch.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		err := r.sim.Client.SendTransaction(ctx, signed)
		if err == nil {
			break
		}
		if !strings.Contains(err.Error(), "nonce too low") || time.Now().After(deadline) {
			t.Fatal(err)
		}
	}
	r.sim.Mine(1) // the branch is now longer than the old chain
	if has, _ := r.reg.Has(ctx, "order-gone"); has {
		t.Fatal("the reorg did not remove the put")
	}
	catchUp(t, r.follow)
	if pending, _ := r.follow.Index.PendingCount(ctx); pending != 0 {
		t.Fatalf("the reorged trigger is still pending: %d", pending)
	}
	r.sim.Mine(5)
	if n := r.sync(t); n != 0 {
		t.Fatalf("%d sessions started from a log that no longer exists", n)
	}
	if list := r.sessions(t); len(list) != 1 {
		t.Fatalf("%d sessions, want only the flow put's", len(list))
	}
}

// 100 trigger events start exactly 100 sessions, also when the indexer and
// the starter are replaced by fresh instances halfway (a restart).
func TestHundredTriggersAcrossARestart(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	for i := 0; i < 50; i++ {
		r.reg.Put(ctx, r.sender, fmt.Sprintf("order%d", i), example(t, "minimal_join.json"))
	}
	r.sync(t)
	// Restart: new follower and starter on the same Redis, mid-stream.
	f, s := *r.follow, *r.starter
	f.Range = NewRangeSizer(7, 0)
	r.follow, r.starter = &f, &s
	for i := 50; i < 99; i++ {
		r.reg.Put(ctx, r.sender, fmt.Sprintf("order%d", i), example(t, "minimal_join.json"))
		if i%10 == 0 {
			r.sync(t)
		}
	}
	r.sim.Mine(3)
	r.sync(t)
	r.sync(t)
	if list := r.sessions(t); len(list) != 100 {
		t.Fatalf("%d sessions for 100 trigger logs (the flow put and 99 orders)", len(list))
	}
	if n, _ := r.follow.Index.PendingCount(ctx); n != 0 {
		t.Fatalf("%d triggers still pending", n)
	}
}
