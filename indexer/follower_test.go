package indexer

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/indexstore"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/testenv"
)

func example(t *testing.T, name string) []byte {
	raw, err := os.ReadFile("../examples/ostc/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// catchUp steps until the index reaches the chain's head.
func catchUp(t *testing.T, f *Follower) {
	t.Helper()
	for i := 0; i < 1000; i++ {
		p, err := f.Step(context.Background())
		if err != nil {
			t.Fatal(err)
		}

		if p.To >= p.Head && !p.Rewound {
			return
		}
	}
	t.Fatal("the follower made no progress")
}

func newFollower(t *testing.T, c chain.Backend, regs ...common.Address) (*Follower, *indexstore.Index) {
	rdb := testenv.StartRedis(t).Client()
	idx := indexstore.New(rdb, 1337)
	return &Follower{Chain: c, ChainID: 1337, Index: idx, Registries: regs, Range: NewRangeSizer(3, 0)}, idx
}

func TestFollowRegisterUpdateDelete(t *testing.T) {
	sim := testenv.StartSim(t)
	ctx := context.Background()
	reg, _ := testenv.DeployXRC729(t, sim, chain.RegistryInit{})
	s := testenv.Sender(t, sim, 0)
	a, b := example(t, "nested_join.json"), example(t, "minimal_join.json")
	if _, err := reg.Put(ctx, s, "flow", a); err != nil {
		t.Fatal(err)
	}
	f, idx := newFollower(t, sim.Backend(), reg.Address)
	catchUp(t, f)
	e, _ := idx.Entry(ctx, indexstore.OSTCKey(reg.Address, "flow"))
	if e["json"] != string(a) || e["version"] != "1" || e["valid"] != "1" || e["hash"] != registry.Hash(a).Hex() {
		t.Fatalf("entry after put: %v", e)
	}
	// Update, add another, delete it: the cache follows.
	reg.Put(ctx, s, "flow", b)
	reg.Put(ctx, s, "other", a)
	sim.Mine(5)
	reg.Delete(ctx, s, "other")
	catchUp(t, f)
	e, _ = idx.Entry(ctx, indexstore.OSTCKey(reg.Address, "flow"))
	if e["json"] != string(b) || e["version"] != "2" {
		t.Fatalf("entry after update: %v", e)
	}
	if e, _ := idx.Entry(ctx, indexstore.OSTCKey(reg.Address, "other")); e != nil {
		t.Fatalf("deleted entry still cached: %v", e)
	}
	// An invalid document is cached with its validation result.
	reg.Put(ctx, s, "broken", []byte(`{"id":"x","structure":{}}`))
	catchUp(t, f)
	if e, _ := idx.Entry(ctx, indexstore.OSTCKey(reg.Address, "broken")); e["valid"] != "0" || !strings.Contains(e["problems"], "no steps") {
		t.Fatalf("invalid document: %v", e)
	}
}

// tamper answers getOSTC with other text than the chain holds.
type tamper struct {
	chain.Backend
}

func (t tamper) CallContract(ctx context.Context, msg ethereum.CallMsg, block *big.Int) ([]byte, error) {
	return t.tampered(t.Backend.CallContract(ctx, msg, block))
}

func (t tamper) CallContractAtHash(ctx context.Context, msg ethereum.CallMsg, hash common.Hash) ([]byte, error) {
	type atHash interface {
		CallContractAtHash(context.Context, ethereum.CallMsg, common.Hash) ([]byte, error)
	}
	out, err := t.Backend.(atHash).CallContractAtHash(ctx, msg, hash)
	if bytes.HasPrefix(msg.Data, registryABI.Methods["getOSTC"].ID) {
		return t.tampered(out, err)
	}
	return out, err
}

func (t tamper) CodeAtHash(ctx context.Context, addr common.Address, hash common.Hash) ([]byte, error) {
	return t.Backend.(interface {
		CodeAtHash(context.Context, common.Address, common.Hash) ([]byte, error)
	}).CodeAtHash(ctx, addr, hash)
}

func (tamper) tampered(out []byte, err error) ([]byte, error) {
	if err != nil {
		return out, err
	}
	s, err := registryABI.Unpack("getOSTC", out)
	if err != nil {
		return out, nil // not a getOSTC answer
	}
	text := strings.Replace(s[0].(string), "A1", "X1", 1)
	return registryABI.Methods["getOSTC"].Outputs.Pack(text)
}

func TestTamperedTextIsNeverServed(t *testing.T) {
	sim := testenv.StartSim(t)
	ctx := context.Background()
	reg, _ := testenv.DeployXRC729(t, sim, chain.RegistryInit{})
	reg.Put(ctx, testenv.Sender(t, sim, 0), "flow", example(t, "nested_join.json"))
	f, idx := newFollower(t, tamper{sim.Backend()}, reg.Address)
	catchUp(t, f)
	e, _ := idx.Entry(ctx, indexstore.OSTCKey(reg.Address, "flow"))
	if e["json"] != "" || !strings.Contains(e["mismatch"], "keccak256(getOSTC)") {
		t.Fatalf("tampered entry: %v", e)
	}
	if m, _ := idx.Mismatches(ctx); len(m) != 1 {
		t.Fatalf("mismatches recorded: %v", m)
	}
}

func TestReorgRewindsTheCache(t *testing.T) {
	sim := testenv.StartSim(t)
	ctx := context.Background()
	reg, _ := testenv.DeployXRC729(t, sim, chain.RegistryInit{})
	s := testenv.Sender(t, sim, 0)
	reg.Put(ctx, s, "flow", example(t, "nested_join.json"))
	base, _ := sim.Client.HeaderByNumber(ctx, nil)
	reg.Put(ctx, s, "flow", example(t, "minimal_join.json")) // version 2, to be reorged away
	f, idx := newFollower(t, sim.Backend(), reg.Address)
	catchUp(t, f)
	if e, _ := idx.Entry(ctx, indexstore.OSTCKey(reg.Address, "flow")); e["version"] != "2" {
		t.Fatalf("before the reorg: %v", e)
	}
	// Fork at base: block 4, which held the update, is replaced.
	if err := sim.Simulated.Fork(base.Hash()); err != nil {
		t.Fatal(err)
	}
	sim.Mine(3)
	p, err := f.Step(ctx)
	if err != nil || !p.Rewound || p.To != base.Number.Uint64() {
		t.Fatalf("the step after the reorg must rewind to block %d: %+v %v", base.Number, p, err)
	}
	e, _ := idx.Entry(ctx, indexstore.OSTCKey(reg.Address, "flow"))
	if e["version"] != "1" || e["json"] != string(example(t, "nested_join.json")) {
		t.Fatalf("after the rewind the cache must hold version 1 again: %v", e)
	}
	// The simulated chain re-includes the pending update in the new chain:
	// following it caches version 2 again, from the new block.
	catchUp(t, f)
	e, _ = idx.Entry(ctx, indexstore.OSTCKey(reg.Address, "flow"))
	newBlock4, _ := sim.Client.HeaderByNumber(ctx, big.NewInt(4))
	if e["version"] != "2" || e["block"] != "4" {
		t.Fatalf("the re-included update: %v", e)
	}
	if w, _ := idx.Window(ctx); w[len(w)-1].Number != 6 || !containsBlock(w, newBlock4.Hash()) {
		t.Fatalf("window after the reorg: %+v", w)
	}
	head, _, _ := idx.Head(ctx)
	tip, _ := sim.Client.HeaderByNumber(ctx, nil)
	if head.Hash != tip.Hash() {
		t.Fatalf("index head %d %s, chain head %d %s", head.Number, head.Hash.Hex(), tip.Number, tip.Hash().Hex())
	}
}

func containsBlock(w []indexstore.Block, h common.Hash) bool {
	for _, b := range w {
		if b.Hash == h {
			return true
		}
	}
	return false
}

// With discovery on, every registry that announces itself with
// XRC729Deployed is followed, including writes in the same range.
func TestDiscoverRegistries(t *testing.T) {
	sim := testenv.StartSim(t)
	ctx := context.Background()
	f, idx := newFollower(t, sim.Backend())
	f.Discover = true
	f.Range = NewRangeSizer(50, 0)
	a, _ := testenv.DeployXRC729(t, sim, chain.RegistryInit{IDs: []string{"one"}, JSONs: [][]byte{example(t, "nested_join.json")}})
	catchUp(t, f)
	b, _ := testenv.DeployXRC729(t, sim, chain.RegistryInit{})
	b.Put(ctx, testenv.Sender(t, sim, 0), "two", example(t, "minimal_join.json"))
	catchUp(t, f)
	if e, _ := idx.Entry(ctx, indexstore.OSTCKey(a.Address, "one")); e["valid"] != "1" {
		t.Fatalf("registry a, written in its constructor: %v", e)
	}
	if e, _ := idx.Entry(ctx, indexstore.OSTCKey(b.Address, "two")); e["valid"] != "1" {
		t.Fatalf("registry b: %v", e)
	}
	// A restarted follower knows both without seeing the deployments again.
	g := *f
	g.loaded = false
	g.defaults(ctx)
	if len(g.registries()) != 2 {
		t.Fatalf("discovered after a restart: %v", g.registries())
	}
}

// The rules that cached orchestrations reference are cached too (checked
// against ruleHash) and follow their XRC137Updated events.
func TestFollowRules(t *testing.T) {
	sim := testenv.StartSim(t)
	ctx := context.Background()
	ruleV1 := `{"payload":{},"rules":[],"onValid":{"payload":{"v":"1"}}}`
	rc, _ := testenv.DeployXRC729(t, sim, chain.RegistryInit{})
	r, _ := testenv.DeployXRC137(t, sim, ruleV1)
	doc := fmt.Sprintf(`{"id":"f","structure":{"A":{"rule":"%s"}}}`, r.Address.Hex())
	s := testenv.Sender(t, sim, 0)
	rc.Put(ctx, s, "f", []byte(doc))
	f, idx := newFollower(t, sim.Backend(), rc.Address)
	f.FollowRules = true
	catchUp(t, f)
	src := NewCacheSource(idx, nil)
	text, hash, ok, err := src.Rule(ctx, r.Address)
	if err != nil || !ok || text != ruleV1 || hash != crypto.Keccak256Hash([]byte(ruleV1)) {
		t.Fatalf("cached rule: %q %s %v %v", text, hash.Hex(), ok, err)
	}
	ruleV2 := `{"payload":{},"rules":[],"onValid":{"payload":{"v":"2"}}}`
	if _, err := r.Update(ctx, s, []byte(ruleV2)); err != nil {
		t.Fatal(err)
	}
	catchUp(t, f)
	if text, _, _, _ := src.Rule(ctx, r.Address); text != ruleV2 {
		t.Fatalf("rule after the update: %q", text)
	}
	// A restarted follower keeps following the rule.
	g := *f
	g.loaded = false
	g.defaults(ctx)
	if !g.rules[r.Address] {
		t.Fatalf("the restarted follower forgot the rule")
	}
}

// An indexer stopped mid-backfill and restarted (a new follower on the same
// Redis) ends with exactly the cache a single uninterrupted run builds:
// nothing skipped, nothing repeated.
func TestRestartMidBackfill(t *testing.T) {
	sim := testenv.StartSim(t)
	ctx := context.Background()
	reg, _ := testenv.DeployXRC729(t, sim, chain.RegistryInit{})
	s := testenv.Sender(t, sim, 0)
	for i := 0; i < 30; i++ {
		reg.Put(ctx, s, fmt.Sprintf("id%d", i%7), example(t, []string{"nested_join.json", "minimal_join.json"}[i%2]))
		if i%3 == 0 {
			reg.Delete(ctx, s, fmt.Sprintf("id%d", (i+3)%7))
		}
		sim.Mine(i % 4)
	}
	rdb := testenv.StartRedis(t).Client()
	interrupted, whole := indexstore.New(rdb, 1337), indexstore.New(rdb, 7331)
	first := &Follower{Chain: sim.Backend(), ChainID: 1337, Index: interrupted, Registries: []common.Address{reg.Address}, Range: NewRangeSizer(4, 0)}
	for i := 0; i < 5; i++ {
		if _, err := first.Step(ctx); err != nil {
			t.Fatal(err)
		}
	}
	second := &Follower{Chain: sim.Backend(), ChainID: 1337, Index: interrupted, Registries: []common.Address{reg.Address}, Range: NewRangeSizer(9, 0)}
	catchUp(t, second)
	catchUp(t, &Follower{Chain: sim.Backend(), ChainID: 1337, Index: whole, Registries: []common.Address{reg.Address}, Range: NewRangeSizer(50, 0)})
	for i := 0; i < 7; i++ {
		key := indexstore.OSTCKey(reg.Address, fmt.Sprintf("id%d", i))
		a, _ := interrupted.Entry(ctx, key)
		b, _ := whole.Entry(ctx, key)
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Fatalf("id%d differs:\ninterrupted %v\nwhole       %v", i, a, b)
		}
	}
	ha, _, _ := interrupted.Head(ctx)
	hb, _, _ := whole.Head(ctx)
	if ha != hb {
		t.Fatalf("heads differ: %+v %+v", ha, hb)
	}
}
