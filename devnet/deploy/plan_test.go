package deploy

import (
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
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/scenario"
	"github.com/xgr-sidecar/xgr/testenv"
)

// A plan's bundle on a chain: the setup contract compiled and deployed
// with its constructor argument, the rules as contracts, and a registry
// holding the orchestration rewritten to them under its own hash; a setup
// contract deployed before is reused.
func TestPlan(t *testing.T) {
	ctx := context.Background()
	raw, err := os.ReadFile("../../e2e/testdata/setup_api_plan.json")
	if err != nil {
		t.Fatal(err)
	}
	f, err := scenario.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	p := f.Plans[0]
	sim := testenv.StartSim(t)
	owner := testenv.Sender(t, sim, 0)
	senders := func(alias string) (*chain.Sender, error) {
		if alias == p.OwnerAlias {
			return owner, nil
		}
		return nil, fmt.Errorf("actor %q has no key", alias)
	}
	d, err := Plan(ctx, sim.Backend(), senders, p)
	if err != nil {
		t.Fatal(err)
	}
	feed := common.HexToAddress(d.Setup["feed"])
	out, err := sim.Backend().CallContract(ctx, ethereum.CallMsg{To: &feed, Data: crypto.Keccak256([]byte("getValue()"))[:4]}, nil)
	if err != nil || new(big.Int).SetBytes(out).Int64() != 42 {
		t.Errorf("setup contract feed at %s: getValue() = %x, %v; want 42", feed.Hex(), out, err)
	}
	reg := chain.NewRegistry(common.HexToAddress(d.Registry), sim.Backend())
	text, err := reg.Get(ctx, p.OstcID)
	if err != nil {
		t.Fatal(err)
	}
	if d.Hash != registry.Hash(text).Hex() || d.OstcID != p.OstcID || d.Plan != p.Key {
		t.Errorf("deployment %+v; registered text hashes to %s", d, registry.Hash(text).Hex())
	}
	o, err := registry.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	for step, i := range p.OSTC.StepRule {
		if want := d.Rules[p.Rules[i].Alias]; want == "" || o.Step(step).Rule != want {
			t.Errorf("step %s runs rule %q, want the deployed %s (%q)", step, o.Step(step).Rule, p.Rules[i].Alias, want)
		}
	}
	if !strings.Contains(string(text), d.Registry) {
		t.Errorf("the registered text does not name its registry %s:\n%s", d.Registry, text)
	}

	// deployIfMissing at an address that holds code: reused, with a note.
	s := *p.Setup[0]
	s.Address = d.Setup["feed"]
	addr, note, err := Setup(ctx, sim.Backend(), owner, senders, &s)
	if err != nil || addr != d.Setup["feed"] || !strings.Contains(note, "reused") {
		t.Errorf("deployIfMissing with code: %s, %q, %v", addr, note, err)
	}
	// Deployed by an actor without a key: refused, naming the actor.
	s.Address, s.By = "", "auditor"
	if _, _, err := Setup(ctx, sim.Backend(), owner, senders, &s); err == nil || !strings.Contains(err.Error(), `actor "auditor" has no key`) {
		t.Errorf("setup by an actor without a key: %v", err)
	}
	// A fixed address is taken as written (lower case).
	fixed := scenario.SetupContract{Key: "x", Mode: "fixed", Address: "0x5FbDB2315678afecb367f032d93F642f64180aa3"}
	if addr, _, err := Setup(ctx, sim.Backend(), owner, senders, &fixed); err != nil || addr != strings.ToLower(fixed.Address) {
		t.Errorf("fixed: %s, %v", addr, err)
	}
}
