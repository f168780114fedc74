package deploy

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/rulesource"
	"github.com/xgr-sidecar/xgr/testenv"
)

const validRule = `{"payload": {}, "rules": ["1 == 1"], "onValid": {"payload": {"x": 1}}}`

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func orchestration(t *testing.T, text string) *registry.Orchestration {
	t.Helper()
	o, err := registry.Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// Every step's rule file is found before anything is deployed; what is
// wrong is a *RuleFileError saying which orchestration, step and rule.
func TestPlanRuleFiles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"A.json": validRule, "broken.json": `{"payload": {}, "rules": ["[x] >"]}`})
	flow := func(ruleB string) *registry.Orchestration {
		return orchestration(t, `{"id": "flow", "structure": {"A1": {"rule": "${addr:A}", "onValid": {"spawns": ["B1", "C1"]}}, "B1": {"rule": "`+ruleB+`"}, "C1": {"rule": "${addr:A}"}}}`)
	}

	p, err := PlanRuleFiles(ctx, dir, []*registry.Orchestration{flow("${addr:A}")})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Files) != 1 || p.Files[0] != filepath.Join(dir, "A.json") || p.Dir != dir {
		t.Errorf("files %v in %s: want the one A.json", p.Files, p.Dir)
	}

	var re *RuleFileError
	_, err = PlanRuleFiles(ctx, dir, []*registry.Orchestration{flow("0x...B")})
	if !errors.As(err, &re) || re.Ostc != "flow" || strings.Join(re.Uncovered, ",") != `B1 (rule "0x...B")` {
		t.Errorf("uncovered step: %v", err)
	}

	writeFiles(t, dir, map[string]string{rulesource.IndexFile: `{"0x...B": "broken.json", "<C>": "0x5FbDB2315678afecb367f032d93F642f64180aa3"}`})
	_, err = PlanRuleFiles(ctx, dir, []*registry.Orchestration{flow("0x...B")})
	if !errors.As(err, &re) || re.Step != "B1" || re.Invalid == nil || re.Origin != filepath.Join(dir, "broken.json") {
		t.Errorf("invalid rule: %v", err)
	}
	_, err = PlanRuleFiles(ctx, dir, []*registry.Orchestration{flow("<C>")})
	// A directory maps a reference to a contract, whose rule it cannot read.
	if !errors.As(err, &re) || re.Step != "B1" || re.Err == nil || !strings.Contains(err.Error(), "mapped to XRC-137 0x5FbDB2315678afecb367f032d93F642f64180aa3") {
		t.Errorf("rule mapped to a contract: %v", err)
	}

	_, err = PlanRuleFiles(ctx, filepath.Join(dir, "nope"), nil)
	if err == nil || errors.As(err, &re) {
		t.Errorf("missing directory: %v", err)
	}
}

// Deploy makes one contract per rule file; Rewrite points every step at
// its contract; Register records the text under its own hash.
func TestRuleFilesDeployAndRegister(t *testing.T) {
	ctx := context.Background()
	sim := testenv.StartSim(t)
	s := testenv.Sender(t, sim, 0)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"A.json": validRule, "B.json": validRule})
	o := orchestration(t, `{"id": "flow", "structure": {"A1": {"rule": "${addr:A}", "onValid": {"spawns": ["B1", "C1"]}}, "B1": {"rule": "${addr:B}"}, "C1": {"rule": "${addr:A}"}}}`)
	p, err := PlanRuleFiles(ctx, dir, []*registry.Orchestration{o})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Deploy(ctx, s); err != nil {
		t.Fatal(err)
	}
	a, b := p.Contract("flow", "A1"), p.Contract("flow", "B1")
	if a == "" || b == "" || a == b || p.Contract("flow", "C1") != a || a != strings.ToLower(a) {
		t.Fatalf("contracts A1 %q, B1 %q, C1 %q", a, b, p.Contract("flow", "C1"))
	}
	stored, err := chain.NewRule(common.HexToAddress(a), sim.Backend()).Stored(ctx)
	if err != nil || stored.Text != validRule {
		t.Errorf("rule contract of A1: %+v, %v", stored, err)
	}
	text, err := p.Rewrite(o)
	if err != nil {
		t.Fatal(err)
	}
	re, err := registry.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	if re.Step("A1").Rule != a || re.Step("B1").Rule != b || re.Step("C1").Rule != a {
		t.Errorf("rewritten rules: %s", text)
	}
	reg, _ := testenv.DeployXRC729(t, sim, chain.RegistryInit{})
	hash, err := Register(ctx, reg, s, "flow", text)
	if err != nil || hash != registry.Hash(text) {
		t.Errorf("register: %s, %v; want %s", hash.Hex(), err, registry.Hash(text).Hex())
	}
	if got, err := reg.Get(ctx, "flow"); err != nil || string(got) != string(text) {
		t.Errorf("registered text: %v\n%s", err, got)
	}
}
