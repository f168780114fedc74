package authority

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/registry"
)

var (
	alice = common.HexToAddress("0x00000000000000000000000000000000000a11ce")
	bob   = common.HexToAddress("0x0000000000000000000000000000000000000b0b")
	carol = common.HexToAddress("0x00000000000000000000000000000000000ca201")
	regA  = common.HexToAddress("0x0000000000000000000000000000000000000729")
	ruleX = common.HexToAddress("0x0000000000000000000000000000000000000137")
	ruleY = common.HexToAddress("0x0000000000000000000000000000000000000138")
)

func parse(t *testing.T, text string) *registry.Orchestration {
	t.Helper()
	o, err := registry.Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// The OPS panel's three statuses: the owner is authorized without being
// listed, a listed executor is, anyone else is missing; a contract without
// getExecutorList() authorizes its owner only, one without owner() only
// its listed executors, and the zero address never.
func TestJudge(t *testing.T) {
	listed := Facts{Owner: alice, ExecutorList: true, Executors: []common.Address{bob}}
	ownerOnly := Facts{Owner: alice, Executors: []common.Address{bob}} // a list it does not implement counts for nothing
	for _, c := range []struct {
		name   string
		runner common.Address
		f      Facts
		want   Status
	}{
		{"owner", alice, listed, StatusOwner},
		{"executor", bob, listed, StatusExecutor},
		{"stranger", carol, listed, StatusMissing},
		{"owner of an owner-only contract", alice, ownerOnly, StatusOwner},
		{"executor of an owner-only contract", bob, ownerOnly, StatusMissing},
		{"no owner(): the zero runner", common.Address{}, Facts{}, StatusMissing},
		{"no owner(): anyone", alice, Facts{}, StatusMissing},
		{"no owner(), listed executor", bob, Facts{ExecutorList: true, Executors: []common.Address{bob}}, StatusExecutor},
		{"zero runner on a list with zero", common.Address{}, Facts{ExecutorList: true, Executors: []common.Address{{}}}, StatusMissing},
	} {
		if got := Judge(c.runner, c.f); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
	if StatusExecutor.Label() != "has executor" || StatusOwner.Label() != "owner (implicit)" || StatusMissing.Label() != "missing" {
		t.Error("labels are the OPS panel's words")
	}
}

// A plan names the registry and each rule contract once, with every step
// that uses it (across orchestrations), in order of first use; references
// that are no address are listed apart.
func TestPlanFor(t *testing.T) {
	o1 := parse(t, `{"id": "one", "structure": {
  "A": {"rule": "`+ruleX.Hex()+`", "onValid": {"spawns": ["B", "C"]}},
  "B": {"rule": "`+strings.ToLower(ruleY.Hex())+`"},
  "C": {"rule": "`+ruleX.Hex()+`", "onValid": {"spawns": ["D"]}},
  "D": {"rule": "${addr:LOCAL}"}}}`)
	o2 := parse(t, `{"id": "two", "structure": {"E": {"rule": "`+ruleY.Hex()+`"}}}`)
	p := PlanFor(&regA, o1, o2)
	want := Plan{Registry: &regA,
		Rules: []Ref{
			{Contract: ruleX, Uses: []Use{{OstcID: "one", Steps: []string{"A", "C"}}}},
			{Contract: ruleY, Uses: []Use{{OstcID: "one", Steps: []string{"B"}}, {OstcID: "two", Steps: []string{"E"}}}},
		},
		Unresolved: []Unresolved{{OstcID: "one", Step: "D", Rule: "${addr:LOCAL}"}}}
	if !reflect.DeepEqual(p, want) {
		t.Fatalf("plan\n%+v\nwant\n%+v", p, want)
	}
	if got := p.Contracts(); !reflect.DeepEqual(got, []common.Address{regA, ruleX, ruleY}) {
		t.Fatalf("contracts %v", got)
	}
	// A file session has no registry; a registry that is also a rule is
	// read once.
	self := PlanFor(nil, parse(t, `{"id": "s", "structure": {"A": {"rule": "`+regA.Hex()+`"}}}`))
	if self.Registry != nil || !reflect.DeepEqual(self.Contracts(), []common.Address{regA}) {
		t.Fatalf("file plan %+v", self)
	}
	self.Registry = &regA
	if !reflect.DeepEqual(self.Contracts(), []common.Address{regA}) {
		t.Fatalf("contracts %v", self.Contracts())
	}
	if p := PlanFor(&regA, nil); len(p.Rules) != 0 || len(p.Contracts()) != 1 {
		t.Fatalf("registry-only plan %+v", p)
	}
}

// Decide gives a row per contract; Err names the first refusing contract
// (the registry before the rules), the runner, the owner and how to fix
// it, and counts the others.
func TestDecideAndError(t *testing.T) {
	o := parse(t, `{"id": "flow", "structure": {
  "A": {"rule": "`+ruleX.Hex()+`", "onValid": {"spawns": ["B"]}},
  "B": {"rule": "`+ruleY.Hex()+`"}}}`)
	facts := Table{
		regA:  {Owner: alice, ExecutorList: true, Executors: []common.Address{bob}, Block: 7},
		ruleX: {Owner: alice, ExecutorList: true, Executors: []common.Address{bob}},
		ruleY: {Owner: alice}, // owner-only
	}
	c := NewChecker(facts)
	ctx := context.Background()

	cov, err := c.Check(ctx, alice, PlanFor(&regA, o))
	if err != nil || cov.Err() != nil {
		t.Fatalf("the owner of everything: %v %v", err, cov.Err())
	}
	if cov.Registry.Status != StatusOwner || cov.Registry.Block != 7 || *cov.Registry.Owner != alice || !cov.Registry.ExecutorList {
		t.Fatalf("registry row %+v", cov.Registry)
	}

	cov, _ = c.Check(ctx, bob, PlanFor(&regA, o))
	if got := []Status{cov.Registry.Status, cov.Rules[0].Status, cov.Rules[1].Status}; !reflect.DeepEqual(got, []Status{StatusExecutor, StatusExecutor, StatusMissing}) {
		t.Fatalf("executor statuses %v", got)
	}
	var ae *Error
	if err := cov.Err(); !errors.As(err, &ae) || ae.Refused.Contract != ruleY || ae.Runner != bob || ae.Missing != 1 {
		t.Fatalf("executor on an owner-only rule: %v", err)
	} else {
		for _, s := range []string{bob.Hex(), ruleY.Hex(), alice.Hex(), "XRC-137 rule contract", `orchestration "flow" step B`, "owner-only", "getExecutorList"} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("message lacks %q: %v", s, err)
			}
		}
	}

	// A stranger is refused by the registry first, and the count says
	// how many refuse it in all.
	err = c.Authorize(ctx, carol, &regA, o)
	if !errors.As(err, &ae) || ae.Refused.Kind != KindRegistry || ae.Refused.Contract != regA || ae.Missing != 3 {
		t.Fatalf("stranger: %v", err)
	}
	for _, s := range []string{carol.Hex(), "XRC-729 registry " + regA.Hex(), "not its owner " + alice.Hex(), "addExecutor(" + carol.Hex() + ")", "3 contracts", "xgr ostc coverage"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("message lacks %q: %v", s, err)
		}
	}
	if ae.RulesUnchecked {
		t.Error("stranger judged on every contract: RulesUnchecked set")
	}
	// The registry alone (before the orchestration is read) lets an
	// executor through; a stranger refused there is told that the rules
	// were not judged, not that the registry is all that refuses it.
	if err := c.Authorize(ctx, bob, &regA, nil); err != nil {
		t.Fatalf("registry alone: %v", err)
	}
	err = c.Authorize(ctx, carol, &regA, nil)
	if !errors.As(err, &ae) || !ae.RulesUnchecked || ae.Missing != 1 || !strings.Contains(err.Error(), "rule contracts were not checked") {
		t.Fatalf("stranger, registry alone: %v (%+v)", err, ae)
	}
	// A contract without owner() authorizes nobody, and says why.
	err = c.Authorize(ctx, alice, nil, parse(t, `{"id": "f", "structure": {"A": {"rule": "`+carol.Hex()+`"}}}`))
	if !errors.As(err, &ae) || ae.Refused.Owner != nil || !strings.Contains(err.Error(), "answers neither owner() nor getExecutorList()") {
		t.Fatalf("no owner(): %v", err)
	}

	// The JSON form names statuses, owners (null when none) and uses.
	cov, _ = c.Check(ctx, bob, PlanFor(&regA, o))
	raw, _ := json.Marshal(cov)
	for _, s := range []string{`"status":"has-executor"`, `"status":"missing"`, `"executorList":false`, `"uses":[{"ostcId":"flow","steps":["B"]}]`, `"kind":"registry"`} {
		if !strings.Contains(string(raw), s) {
			t.Errorf("JSON lacks %s: %s", s, raw)
		}
	}
}

// A Reader's failure decides nothing: Authorize returns it, not a refusal.
func TestReaderFailureIsNoRefusal(t *testing.T) {
	err := NewChecker(failing{}).Authorize(context.Background(), alice, &regA, nil)
	var ae *Error
	if err == nil || errors.As(err, &ae) || !strings.Contains(err.Error(), "node down") {
		t.Fatalf("a failed read: %v", err)
	}
}

type failing struct{}

func (failing) Facts(context.Context, []common.Address) ([]Facts, error) {
	return nil, errors.New("node down")
}
