package indexer

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/indexstore"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/testenv"
)

func TestSuperseded(t *testing.T) {
	reg, other := common.Address{1}, common.Address{2}
	b1, b2 := common.Hash{1}, common.Hash{2}
	read := func(a common.Address, id string, b common.Hash) pendingRead {
		return pendingRead{c: Change{Registry: a, ID: id, BlockHash: b}}
	}
	for _, tc := range []struct {
		name  string
		reads []pendingRead
		want  []bool
	}{
		{"one write", []pendingRead{read(reg, "a", b1)}, []bool{false}},
		{"two writes of an id in one block: the first is superseded",
			[]pendingRead{read(reg, "a", b1), read(reg, "a", b1)}, []bool{true, false}},
		{"the same id in two blocks: both stand",
			[]pendingRead{read(reg, "a", b1), read(reg, "a", b2)}, []bool{false, false}},
		{"other ids and registries in between",
			[]pendingRead{read(reg, "a", b1), read(reg, "b", b1), read(other, "a", b1), read(reg, "a", b1)}, []bool{true, false, false, false}},
	} {
		got := superseded(tc.reads)
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: superseded = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestDocCache(t *testing.T) {
	a, b := `{"id":"a","structure":{"A":{"rule":"0x0000000000000000000000000000000000000001"}}}`, `{"id":"b","structure":{}}`
	ha, hb := registry.Hash([]byte(a)), registry.Hash([]byte(b))
	c := newDocCache(len(a) + len(b))
	if _, ok := c.put(hb, []byte(a)); ok {
		t.Fatal("a text that does not hash to its key was cached")
	}
	if _, ok := c.get(hb); ok {
		t.Fatal("a mismatching text is served")
	}
	d, ok := c.put(ha, []byte(a))
	if !ok || !d.valid || len(d.rules) != 1 || d.rules[0] != common.HexToAddress("0x01") {
		t.Fatalf("document a: %+v %v", d, ok)
	}
	if d, _ := c.put(hb, []byte(b)); d.valid || !strings.Contains(d.problems, "no steps") {
		t.Fatalf("document b is invalid: %+v", d)
	}
	// Both fit; a third text evicts the least recently used (a, after b's put).
	third := `{"id":"c","structure":{}}`
	c.put(registry.Hash([]byte(third)), []byte(third))
	if _, ok := c.get(ha); ok {
		t.Fatal("the least recently used text was kept past the byte bound")
	}
	if _, ok := c.get(hb); !ok {
		t.Fatal("the recently used text was evicted")
	}
}

// A registry that writes one id twice in one block (here: its constructor)
// caches the block's last text, with no hash mismatch recorded for the
// first write, which the state after the block no longer holds.
func TestTwoWritesOfAnIDInOneBlock(t *testing.T) {
	sim := testenv.StartSim(t)
	ctx := context.Background()
	a, b := example(t, "nested_join.json"), example(t, "minimal_join.json")
	reg, _ := testenv.DeployXRC729(t, sim, chain.RegistryInit{IDs: []string{"flow", "flow"}, JSONs: [][]byte{a, b}})
	f, idx := newFollower(t, sim.Backend(), reg.Address)
	catchUp(t, f)
	e, _ := idx.Entry(ctx, indexstore.OSTCKey(reg.Address, "flow"))
	if e["json"] != string(b) || e["version"] != "2" || e["mismatch"] != "" {
		t.Fatalf("entry: %v", e)
	}
	if m, _ := idx.Mismatches(ctx); len(m) != 0 {
		t.Fatalf("mismatches recorded: %v", m)
	}
}

// Many entries sharing one text are all cached, with the text read once.
func TestSharedTextIsReadOnce(t *testing.T) {
	sim := testenv.StartSim(t)
	ctx := context.Background()
	doc := []byte(`{"id":"s","structure":{"A":{"rule":"0x0000000000000000000000000000000000000001"}}}`)
	ids := make([]string, 8)
	docs := make([][]byte, 8)
	for i := range ids {
		ids[i], docs[i] = fmt.Sprintf("id%d", i), doc
	}
	reg, _ := testenv.DeployXRC729(t, sim, chain.RegistryInit{IDs: ids, JSONs: docs})
	counter := &countingBackend{Backend: sim.Backend()}
	f, idx := newFollower(t, counter, reg.Address)
	catchUp(t, f)
	for _, id := range ids {
		if e, _ := idx.Entry(ctx, indexstore.OSTCKey(reg.Address, id)); e["json"] != string(doc) || e["valid"] == "" {
			t.Fatalf("%s: %v", id, e)
		}
	}
	if n := counter.getOSTC.Load(); n != 1 {
		t.Fatalf("getOSTC read %d times for 8 entries of one text", n)
	}
	if n := counter.meta.Load(); n != 8 {
		t.Fatalf("getOSTCMeta read %d times for 8 entries", n)
	}
}

// countingBackend counts the getOSTC and getOSTCMeta calls at a block hash.
type countingBackend struct {
	chain.Backend
	getOSTC, meta atomic.Int64
}

func (c *countingBackend) CallContractAtHash(ctx context.Context, msg ethereum.CallMsg, hash common.Hash) ([]byte, error) {
	switch {
	case bytes.HasPrefix(msg.Data, registryABI.Methods["getOSTC"].ID):
		c.getOSTC.Add(1)
	case bytes.HasPrefix(msg.Data, registryABI.Methods["getOSTCMeta"].ID):
		c.meta.Add(1)
	}
	return c.Backend.(interface {
		CallContractAtHash(context.Context, ethereum.CallMsg, common.Hash) ([]byte, error)
	}).CallContractAtHash(ctx, msg, hash)
}
