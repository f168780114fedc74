package registry

import (
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
)

func TestRewrite(t *testing.T) {
	raw := []byte(`{"id": "flow", "meta": {"type": "xrc729", "deployedAddress": "0xold"}, "structure": {
  "A1": {"rule": "0x00000000000000000000000000000000000000A1", "onValid": {"spawns": ["B1"], "waitSec": 1.50}},
  "B1": {"rule": "RuleB", "note": "rule"}}, "address": "0xold", "rule": "top-level member of that name stays"}`)
	out, err := Rewrite(raw, map[string]string{"A1": "0x1111111111111111111111111111111111111111", "B1": "0x2222222222222222222222222222222222222222"}, "0x3333333333333333333333333333333333333333")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"rule": "0x1111111111111111111111111111111111111111"`, `"rule": "0x2222222222222222222222222222222222222222"`,
		`"deployedAddress": "0x3333333333333333333333333333333333333333"`, `"address": "0x3333333333333333333333333333333333333333"`,
		`"note": "rule"`, `"rule": "top-level member of that name stays"`, `"waitSec": 1.50`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("rewritten text lacks %s:\n%s", want, out)
		}
	}
	o, err := Parse(out)
	if err != nil || o.Step("A1").Rule != "0x1111111111111111111111111111111111111111" || o.Hash != crypto.Keccak256Hash(out) {
		t.Fatalf("rewritten orchestration: %v", err)
	}
	// Member order is kept.
	if strings.Index(string(out), `"A1"`) > strings.Index(string(out), `"B1"`) || strings.Index(string(out), `"id"`) > strings.Index(string(out), `"meta"`) {
		t.Errorf("order changed:\n%s", out)
	}
	// Without a registry address, address members stay.
	out, _ = Rewrite(raw, nil, "")
	if !strings.Contains(string(out), `"address": "0xold"`) || !strings.Contains(string(out), `"rule": "RuleB"`) {
		t.Errorf("nothing to rewrite:\n%s", out)
	}
}
