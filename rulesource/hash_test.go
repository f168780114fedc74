package rulesource_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/xgr-sidecar/xgr/rulesource"
	"github.com/xgr-sidecar/xgr/testenv"
)

// Loaded.Hash is keccak256 of the exact text a rule was parsed from: the
// contract's ruleHash for a rule read from chain (before and after an
// update, and from the parse cache), keccak256 of the file's bytes for a
// file.
func TestLoadedHashIsTheRuleText(t *testing.T) {
	sim := testenv.StartSim(t)
	r, w := testenv.DeployXRC137(t, sim, v1)
	c := rulesource.NewChain(sim.Backend())
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		l, err := c.Load(ctx, r.Address.Hex())
		if err != nil || l.Hash != w.Hash || l.Hash != crypto.Keccak256Hash([]byte(v1)) {
			t.Fatalf("load %d: %+v %v, want hash %s", i, l, err, w.Hash.Hex())
		}
	}
	if _, err := r.Update(ctx, testenv.Sender(t, sim, 0), []byte(v2)); err != nil {
		t.Fatal(err)
	}
	if l, err := c.Load(ctx, r.Address.Hex()); err != nil || l.Hash != crypto.Keccak256Hash([]byte(v2)) {
		t.Fatalf("after update: %+v %v", l, err)
	}

	dir := t.TempDir()
	text := v1 + "\n"
	if err := os.WriteFile(filepath.Join(dir, "R.json"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := rulesource.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		l, err := d.Load(ctx, "<R>")
		if err != nil || l.Hash != crypto.Keccak256Hash([]byte(text)) || !strings.HasSuffix(l.File, "R.json") {
			t.Fatalf("file load %d: %+v %v", i, l, err)
		}
	}
}
