package demo

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/devnet"
	"github.com/xgr-sidecar/xgr/devnet/deploy"
	"github.com/xgr-sidecar/xgr/registry"
)

// orderFlow is examples/ostc/nested_join.json (OrderFlow).
func orderFlow(t *testing.T) *registry.Orchestration {
	t.Helper()
	raw, err := os.ReadFile("../../examples/ostc/nested_join.json")
	if err != nil {
		t.Fatal(err)
	}
	o, err := registry.Parse(raw)
	if err != nil || o.ID != OrderFlow {
		t.Fatalf("nested_join.json: id %q, %v; want %s", o.ID, err, OrderFlow)
	}
	return o
}

// DeploySettlement on the development chain with examples/rules: the
// settlement contract exists, the order flow's last step runs a rule
// contract bound to it; Executor lets the last dev account call that
// contract only, and Line names both.
func TestDeploySettlementBindsTheLastStep(t *testing.T) {
	ctx := context.Background()
	dev, err := devnet.New()
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	sender, err := chain.NewSender(ctx, dev.Backend(), dev.Key(0), 1)
	if err != nil {
		t.Fatal(err)
	}
	o := orderFlow(t)
	orchs := []*registry.Orchestration{o}
	rules, err := deploy.PlanRuleFiles(ctx, "../../examples/rules", orchs)
	if err != nil {
		t.Fatal(err)
	}
	if err := rules.Deploy(ctx, sender); err != nil {
		t.Fatal(err)
	}
	last := o.Steps[len(o.Steps)-1].ID
	planned := rules.Contract(OrderFlow, last)
	st, err := DeploySettlement(ctx, sender, rules, "../../examples/rules", OrderFlow, orchs)
	if err != nil {
		t.Fatal(err)
	}
	if st == nil {
		t.Fatal("no settlement for the order flow with SETTLE_ORDER.json in examples/rules")
	}
	if st.Step != last {
		t.Errorf("settling step %s, want the flow's last step %s", st.Step, last)
	}
	if code, err := dev.Backend().CodeAt(ctx, st.Contract, nil); err != nil || len(code) == 0 {
		t.Errorf("no code at the settlement contract %s (%v)", st.Contract.Hex(), err)
	}
	bound := rules.Contract(OrderFlow, last)
	if bound == "" || bound == planned {
		t.Fatalf("step %s runs rule contract %q (planned %q): want the settlement rule", last, bound, planned)
	}
	stored, err := chain.NewRule(common.HexToAddress(bound), dev.Backend()).Stored(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.ToLower(stored.Text), strings.ToLower(st.Contract.Hex())) {
		t.Errorf("the settlement rule does not name the contract %s:\n%s", st.Contract.Hex(), stored.Text)
	}

	x, key := st.Executor(dev)
	if want := dev.Address(devnet.DevAccounts - 1); chain.Address(key) != want {
		t.Errorf("executor %s, want the last dev account %s", chain.Address(key).Hex(), want.Hex())
	}
	if !x.Enabled || x.Policy.AnyTarget || len(x.Policy.Targets) != 1 || x.Policy.Targets[0].Address != st.Contract {
		t.Errorf("policy %+v: want executions on, to the settlement contract %s only", x.Policy, st.Contract.Hex())
	}
	line := st.Line(chain.Address(key))
	for _, w := range []string{st.Contract.Hex(), strings.ToLower(chain.Address(key).Hex()), st.Step, OrderFlow} {
		if !strings.Contains(line, w) {
			t.Errorf("line %q lacks %s", line, w)
		}
	}
}

// No settlement: another flow, no rules (scripted outcomes), or a rules
// directory without SettlementRuleFile.
func TestDeploySettlementOnlyForTheOrderFlowWithItsRule(t *testing.T) {
	ctx := context.Background()
	o := orderFlow(t)
	orchs := []*registry.Orchestration{o}
	rules, err := deploy.PlanRuleFiles(ctx, "../../examples/rules", orchs)
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		rules     *deploy.RuleFiles
		dir, flow string
	}{
		"another flow":         {rules, "../../examples/rules", "kyc_review"},
		"scripted outcomes":    {nil, "../../examples/rules", OrderFlow},
		"no SETTLE_ORDER.json": {rules, t.TempDir(), OrderFlow},
	} {
		// A nil sender: nothing may be deployed.
		st, err := DeploySettlement(ctx, nil, c.rules, c.dir, c.flow, orchs)
		if st != nil || err != nil {
			t.Errorf("%s: %+v, %v; want no settlement and no error", name, st, err)
		}
	}
}
