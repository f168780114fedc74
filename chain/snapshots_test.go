package chain_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/testenv"
)

// snapshotCase is a registry on anvil with two ids written in one block and
// one of them rewritten in a later block, and requests at both blocks that
// include a missing id and an account without code.
func snapshotCase(t *testing.T, a *testenv.Anvil) []chain.SnapshotRequest {
	ctx := context.Background()
	g, r := testenv.DeployXRC729(t, a, chain.RegistryInit{IDs: []string{"a", "b"}, JSONs: [][]byte{[]byte(`{"a":1}`), []byte(`{"b":1}`)}})
	w, err := g.Put(ctx, testenv.Sender(t, a, 0), "a", []byte(`{"a":2}`))
	if err != nil {
		t.Fatal(err)
	}
	x, y := r.BlockHash, w.Receipt.BlockHash
	return []chain.SnapshotRequest{
		{Registry: g.Address, ID: "a", Block: x, Text: true, HashOnly: true},
		{Registry: g.Address, ID: "b", Block: x, HashOnly: true},
		{Registry: g.Address, ID: "missing", Block: x, HashOnly: true},
		{Registry: g.Address, ID: "a", Block: y, Text: true, HashOnly: true},
		{Registry: g.Address, ID: "b", Block: y, Text: true, HashOnly: true},
		{Registry: a.Address(5), ID: "a", Block: y, HashOnly: true},
	}
}

// describe prints results so that two ways of reading compare equal only
// when they found the same hashes, texts and errors (the requests ask for
// the hash only).
func describe(res []chain.SnapshotResult) string {
	var b strings.Builder
	for i, r := range res {
		fmt.Fprintf(&b, "%d: %s %s %q %v\n", i, r.Meta.ID, r.Meta.Hash.Hex(), r.Text, r.Err)
	}
	return b.String()
}

// callCounter counts the eth_calls a proxy forwards, with and without `to`.
func callCounter(deployless, plain *atomic.Int64) func(testenv.RPCRequest, *testenv.RPCResponse) {
	return func(q testenv.RPCRequest, _ *testenv.RPCResponse) {
		switch {
		case testenv.IsDeployless(q):
			deployless.Add(1)
		case q.Method == "eth_call":
			plain.Add(1)
		}
	}
}

// dial connects through chain.Dial and closes the client after the test.
func dial(t *testing.T, url string) *ethclient.Client {
	c, _, err := chain.Dial(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// The metas of one block go out as one deployless MetaReader call; the
// entries it cannot answer (a missing id, no contract) are read on their
// own, so the results are exactly those of one getOSTCMeta each, read
// through a node that refuses calls without `to`.
func TestSnapshotsAtDeploylessAndFallback(t *testing.T) {
	a := testenv.StartAnvil(t)
	ctx := context.Background()
	reqs := snapshotCase(t, a)

	var deployless, plain atomic.Int64
	url, _ := testenv.StartRPCProxy(t, a.URL, testenv.RPCProxy{Rewrite: callCounter(&deployless, &plain)})
	fast := chain.NewBatcher(dial(t, url))
	got, err := chain.SnapshotsAt(ctx, fast, reqs)
	if err != nil {
		t.Fatal(err)
	}
	// Two blocks: two deployless calls. Then the two metas they could not
	// answer and the three texts.
	if deployless.Load() != 2 || plain.Load() != 5 || !fast.Deployless() {
		t.Fatalf("%d calls without to, %d with; deployless %v", deployless.Load(), plain.Load(), fast.Deployless())
	}
	if got[2].Err == nil || !strings.Contains(got[2].Err.Error(), "no orchestration with that id") ||
		got[5].Err == nil || !strings.Contains(got[5].Err.Error(), "no contract") {
		t.Fatalf("errors:\n%s", describe(got))
	}
	if got[0].Meta.Hash != crypto.Keccak256Hash([]byte(`{"a":1}`)) || got[3].Meta.Hash != crypto.Keccak256Hash([]byte(`{"a":2}`)) ||
		string(got[3].Text) != `{"a":2}` {
		t.Fatalf("results:\n%s", describe(got))
	}
	// Asked for the whole meta, the reads are one by one.
	whole := append([]chain.SnapshotRequest(nil), reqs...)
	for i := range whole {
		whole[i].HashOnly = false
	}
	before := deployless.Load()
	all, err := chain.SnapshotsAt(ctx, fast, whole)
	if err != nil || deployless.Load() != before || all[3].Meta.Version != 2 || all[3].Meta.UpdatedAt.IsZero() {
		t.Fatalf("whole metas: %v, %d calls without to, results:\n%s", err, deployless.Load()-before, describe(all))
	}

	refusingURL, refused := testenv.StartRPCProxy(t, a.URL, testenv.RPCProxy{Answer: testenv.RefuseDeployless})
	slow := chain.NewBatcher(dial(t, refusingURL))
	want, err := chain.SnapshotsAt(ctx, slow, reqs)
	if err != nil {
		t.Fatal(err)
	}
	if describe(got) != describe(want) {
		t.Fatalf("deployless:\n%s\none by one:\n%s", describe(got), describe(want))
	}
	// The refusal is learned once: the next reads send no call without to.
	if slow.Deployless() || refused.Load() != 2 {
		t.Fatalf("deployless %v after %d refusals", slow.Deployless(), refused.Load())
	}
	if again, err := chain.SnapshotsAt(ctx, slow, reqs); err != nil || describe(again) != describe(want) || refused.Load() != 2 {
		t.Fatalf("the second read: %v, %d refusals", err, refused.Load())
	}
}

// A node that drops the HTTP exchange of any batch holding a call without
// `to` (instead of answering each request) is learned as refusing them too,
// and every read still gets its answer.
func TestSnapshotsAtWholeBatchRefused(t *testing.T) {
	a := testenv.StartAnvil(t)
	ctx := context.Background()
	reqs := snapshotCase(t, a)
	url, _ := testenv.StartRPCProxy(t, a.URL, testenv.RPCProxy{Answer: func(q testenv.RPCRequest) (testenv.RPCResponse, bool) {
		if testenv.IsDeployless(q) {
			// Not a JSON-RPC answer: the client sees a broken exchange.
			return testenv.RPCResponse{Result: json.RawMessage(`"0x`)}, true
		}
		return testenv.RPCResponse{}, false
	}})
	b := chain.NewBatcher(dial(t, url))
	got, err := chain.SnapshotsAt(ctx, b, reqs)
	if err != nil {
		t.Fatal(err)
	}
	if b.Deployless() || got[0].Meta.Version != 1 || got[3].Meta.Version != 2 || got[1].Meta.Hash != crypto.Keccak256Hash([]byte(`{"b":1}`)) {
		t.Fatalf("deployless %v, results:\n%s", b.Deployless(), describe(got))
	}
}

// Without an RPC client (the simulated chain) nothing goes out without `to`.
func TestSnapshotsAtWithoutRPCClient(t *testing.T) {
	sim := testenv.StartSim(t)
	if chain.NewBatcher(sim.Backend()).Deployless() {
		t.Fatal("a backend without an RPC client sends deployless calls")
	}
}
