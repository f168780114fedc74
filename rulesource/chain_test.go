package rulesource_test

import (
	"bytes"
	"context"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/contracts/xrc137"
	"github.com/xgr-sidecar/xgr/rule"
	"github.com/xgr-sidecar/xgr/rulesource"
	"github.com/xgr-sidecar/xgr/testenv"
)

// counting counts eth_calls and can replace the ruleJson answer.
type counting struct {
	chain.Backend
	calls    atomic.Int64
	ruleJSON string // non-empty: the answer to ruleJson()
}

func (c *counting) CallContract(ctx context.Context, msg ethereum.CallMsg, block *big.Int) ([]byte, error) {
	c.calls.Add(1)
	if c.ruleJSON != "" && bytes.HasPrefix(msg.Data, xrc137.NewXRC137().PackRuleJson()) {
		str, _ := abi.NewType("string", "", nil)
		return abi.Arguments{{Type: str}}.Pack(c.ruleJSON)
	}
	return c.Backend.CallContract(ctx, msg, block)
}

const v1 = `{"payload": {"X": {"type": "int64"}}, "rules": ["[X] > 0"], "onValid": {"payload": {"Y": "[X] * 2"}}}`
const v2 = `{"payload": {"X": {"type": "int64"}}, "rules": ["[X] > 10"], "onValid": {"payload": {"Y": "[X] * 3"}}}`

func TestChainLoadsVerifiesAndCaches(t *testing.T) {
	sim := testenv.StartSim(t)
	r, w := testenv.DeployXRC137(t, sim, v1)
	b := &counting{Backend: sim.Backend()}
	c := rulesource.NewChain(b)
	ctx := context.Background()
	ref := strings.ToLower(r.Address.Hex())

	l, err := c.Load(ctx, ref)
	if err != nil || l.Doc.Hash != w.Hash || l.Address != r.Address || l.Origin != "XRC-137 "+r.Address.Hex() || l.Ref != ref {
		t.Fatalf("load: %+v, %v", l, err)
	}
	first := b.calls.Load()
	again, err := c.Load(ctx, r.Address.Hex())
	if err != nil || again.Doc != l.Doc || b.calls.Load()-first != 1 {
		t.Fatalf("cached load: %v, %d eth_calls (want 1: ruleHash)", err, b.calls.Load()-first)
	}

	// An update is seen at the next load: a new (address, ruleHash).
	if _, err := r.Update(ctx, testenv.Sender(t, sim, 0), []byte(v2)); err != nil {
		t.Fatal(err)
	}
	l2, err := c.Load(ctx, ref)
	if err != nil || l2.Doc == l.Doc || l2.Doc.Hash != crypto.Keccak256Hash([]byte(v2)) || c.Cached() != 2 {
		t.Fatalf("after update: %+v, %v, %d cached", l2, err, c.Cached())
	}

	// Encrypted: refused, not guessed at.
	if _, err := r.SetEncrypted(ctx, testenv.Sender(t, sim, 0), []byte("XGR1.AES.abcdef"), chain.Encryption{RID: common.HexToHash("0x01"), Suite: "AES-256-GCM-1", EncDEK: []byte{1}}); err != nil {
		t.Fatal(err)
	}
	_, err = c.Load(ctx, ref)
	var le *rulesource.Error
	if !errors.Is(err, rulesource.ErrEncrypted) || !errors.As(err, &le) || le.Ref != ref || !strings.Contains(err.Error(), "isEncrypted() is true") {
		t.Errorf("encrypted: %v", err)
	}
}

func TestChainRefusesWhatItCannotTrust(t *testing.T) {
	sim := testenv.StartSim(t)
	ctx := context.Background()
	r, _ := testenv.DeployXRC137(t, sim, v1)

	// A node (or contract) whose ruleJson does not hash to ruleHash.
	tampered := rulesource.NewChain(&counting{Backend: sim.Backend(), ruleJSON: v2})
	if _, err := tampered.Load(ctx, r.Address.Hex()); !errors.Is(err, rulesource.ErrHashMismatch) || !strings.Contains(err.Error(), "keccak256 of the") {
		t.Errorf("tampered text: %v", err)
	}

	// Text that is not a rule document: every problem, with line:column.
	bad, _ := testenv.DeployXRC137(t, sim, "{\n  \"payload\": {\"X\": {\"type\": \"int65\"}}\n")
	c := rulesource.NewChain(sim.Backend())
	_, err := c.Load(ctx, bad.Address.Hex())
	var ve *rule.ValidationError
	if !errors.As(err, &ve) || ve.Problems[0].Line == 0 {
		t.Errorf("broken rule on chain: %v", err)
	}

	// No contract at the address.
	if _, err := c.Load(ctx, sim.Address(3).Hex()); !errors.Is(err, chain.ErrNoContract) {
		t.Errorf("no code: %v", err)
	}
	// Not an address: nothing to read.
	if _, err := c.Load(ctx, "<Step-Addr>"); !errors.Is(err, rulesource.ErrNotCovered) || !strings.Contains(err.Error(), "not a 0x address") {
		t.Errorf("placeholder: %v", err)
	}
}

func TestLoaderMapsPlaceholdersToContracts(t *testing.T) {
	sim := testenv.StartSim(t)
	r, w := testenv.DeployXRC137(t, sim, v1)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "rules.json"), []byte(`{"<Step-Addr>": "`+r.Address.Hex()+`"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := rulesource.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	l := &rulesource.Loader{Files: files, Chain: rulesource.NewChain(sim.Backend())}
	got, err := l.Load(context.Background(), "<Step-Addr>")
	if err != nil || got.Doc.Hash != w.Hash || got.Address != r.Address {
		t.Fatalf("placeholder via rules.json: %+v, %v", got, err)
	}
	// Addresses not in the map are read from chain directly.
	if got, err := l.Load(context.Background(), r.Address.Hex()); err != nil || got.Doc.Hash != w.Hash {
		t.Fatalf("plain address: %+v, %v", got, err)
	}
}
