package authority

import (
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/rulesource"
)

// ResolvePlan resolves every reference with the runtime's resolver: an
// alias names the contract its binding names (so the same contract by
// alias and by address is one Ref), a reference nothing binds refuses the
// plan naming the step, and a scripted runtime's uncovered reference needs
// no authority. Without a resolver only 0x addresses resolve.
func TestResolvePlan(t *testing.T) {
	secret := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	o := parse(t, `{"id": "o", "structure": {"A": {"rule": "${addr:VSECRET}", "onValid": {"spawns": ["B"]}}, "B": {"rule": "`+secret.Hex()+`"}}}`)
	loader := &rulesource.Loader{Addresses: rulesource.Addresses{"VSECRET": secret}}
	p, err := ResolvePlan(nil, loader, o)
	if err != nil || len(p.Rules) != 1 || p.Rules[0].Contract != secret || len(p.Rules[0].Uses) != 1 || len(p.Rules[0].Uses[0].Steps) != 2 {
		t.Fatalf("bound alias: %+v %v", p, err)
	}
	for name, rules := range map[string]Resolver{
		"no resolver":      nil,
		"nothing bound":    &rulesource.Loader{Addresses: rulesource.Addresses{}},
		"another bound":    &rulesource.Loader{Addresses: rulesource.Addresses{"OTHER": secret}},
		"no addresses yet": &rulesource.Loader{},
	} {
		_, err := ResolvePlan(nil, rules, o)
		var ue *UnresolvedError
		if !errors.As(err, &ue) || ue.Step != "A" || ue.Rule != "${addr:VSECRET}" || ue.OstcID != "o" {
			t.Errorf("%s: %v, want the alias of step A unresolved", name, err)
		}
	}
	p, err = ResolvePlan(nil, ScriptedSteps(&rulesource.Loader{}), o)
	if err != nil || len(p.Rules) != 1 || p.Rules[0].Contract != secret || p.Rules[0].Uses[0].Steps[0] != "B" {
		t.Fatalf("scripted alias: %+v %v", p, err)
	}
	if p, err := ResolvePlan(nil, ScriptedSteps(nil), o); err != nil || len(p.Rules) != 0 {
		t.Fatalf("every step scripted: %+v %v", p, err)
	}
}
