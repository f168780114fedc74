package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xgr-sidecar/xgr/registry"
)

// ostc link binds placeholders from --config and --bind (which wins),
// writes nothing while one is unbound, and prints the linked text's hash.
func TestOstcLink(t *testing.T) {
	dir := t.TempDir()
	flow := filepath.Join(dir, "flow.json")
	os.WriteFile(flow, []byte(`{"id": "f", "structure": {"A": {"rule": "${addr:FEED}", "onValid": {"spawns": ["B"]}}, "B": {"rule": "<Check>"}, "C": {"rule": "0x00000000000000000000000000000000000000cc"}}}`), 0o644)
	cfg := filepath.Join(dir, "xgr.yaml")
	os.WriteFile(cfg, []byte("addresses:\n  FEED: \"0x00000000000000000000000000000000000000aa\"\n  Check: \"0x00000000000000000000000000000000000000b0\"\n"), 0o644)
	out := filepath.Join(dir, "linked.json")

	msg, code := run(t, "ostc", "link", flow, "--bind", "FEED=0x00000000000000000000000000000000000000a1", "--output", out)
	if code != 1 || !strings.Contains(msg, "1 placeholder(s) not bound, nothing written: <Check>") {
		t.Fatalf("unbound: %d %s", code, msg)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("a link with an unbound placeholder wrote its output")
	}
	msg, code = run(t, "ostc", "link", flow, "--config", cfg, "--bind", "FEED=0x00000000000000000000000000000000000000a1", "--output", out, "--json")
	var res struct {
		Hash   string            `json:"hash"`
		Linked map[string]string `json:"linked"`
	}
	if code != 0 || json.Unmarshal([]byte(msg), &res) != nil {
		t.Fatalf("link: %d %s", code, msg)
	}
	text, _ := os.ReadFile(out)
	o, err := registry.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	// Addresses are written checksummed (EIP-55); C was an address already.
	if !strings.EqualFold(o.Step("A").Rule, "0x00000000000000000000000000000000000000a1") || !strings.EqualFold(o.Step("B").Rule, "0x00000000000000000000000000000000000000b0") ||
		o.Step("C").Rule != "0x00000000000000000000000000000000000000cc" || len(res.Linked) != 2 || res.Hash != registry.Hash(text).Hex() {
		t.Fatalf("linked %+v\n%s", res, text)
	}
	if msg, code = run(t, "ostc", "link", flow, "--bind", "FEED=0x12"); code != 2 || !strings.Contains(msg, `--bind "FEED=0x12": want NAME=0x and 40 hex digits`) {
		t.Fatalf("bad bind: %d %s", code, msg)
	}
}
