package execution

import (
	"errors"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

func TestPolicyCheck(t *testing.T) {
	allowed := common.HexToAddress("0x00000000000000000000000000000000000000a1")
	other := common.HexToAddress("0x00000000000000000000000000000000000000b2")
	p := Policy{Targets: []common.Address{allowed}, MaxGasLimit: 100_000, DefaultSessionGas: 250_000}
	permit := Scope{MaxTotalGas: 150_000}
	cases := []struct {
		name   string
		p      Policy
		s      Scope
		c      Call
		spent  uint64
		limit  string // "" = allowed
		reason string
	}{
		{"allowed, cap as limit", p, Scope{}, Call{To: allowed}, 0, "", ""},
		{"rule lowers the cap", p, Scope{}, Call{To: allowed, GasLimit: 50_000}, 200_000, "", ""},
		{"target not listed", p, Scope{}, Call{To: other}, 0, LimitTargets, "not among the 1 contracts"},
		{"any target", Policy{AnyTarget: true, MaxGasLimit: 100_000, DefaultSessionGas: 250_000}, Scope{}, Call{To: other}, 0, "", ""},
		{"zero target", Policy{AnyTarget: true, MaxGasLimit: 1, DefaultSessionGas: 1}, Scope{}, Call{}, 0, LimitInputTarget, "zero address"},
		{"rule above the cap", p, Scope{}, Call{To: allowed, GasLimit: 100_001}, 0, LimitMaxGas, "gas.limit 100001 is above the operator's cap 100000"},
		{"exactly the default budget", p, Scope{}, Call{To: allowed}, 150_000, "", ""},
		{"over the default budget", p, Scope{}, Call{To: allowed}, 150_001, LimitDefaultGas, "exceeds the session's gas budget 250000"},
		{"permit budget wins", p, permit, Call{To: allowed}, 50_001, LimitPermitGas, "SessionPermit's maxTotalGas"},
		{"permit budget fits", p, permit, Call{To: allowed, GasLimit: 50_000}, 100_000, "", ""},
		{"spent above budget", p, permit, Call{To: allowed, GasLimit: 1}, 1 << 62, LimitPermitGas, "exceeds"},
		{"no gas at all", Policy{AnyTarget: true}, Scope{}, Call{To: allowed}, 0, LimitMaxGas, "no gas limit"},
		{"huge permit counts as MaxGas", p, Scope{MaxTotalGas: 1<<64 - 1}, Call{To: allowed}, MaxGas - 100_000, "", ""},
	}
	for _, c := range cases {
		err := c.p.Check(c.s, c.c, c.spent)
		var r *Refusal
		switch {
		case c.limit == "" && err != nil:
			t.Errorf("%s: refused: %v", c.name, err)
		case c.limit != "" && (!errors.As(err, &r) || r.Limit != c.limit || !strings.Contains(r.Reason, c.reason)):
			t.Errorf("%s: want a refusal %s containing %q, got %#v", c.name, c.limit, c.reason, err)
		}
	}
	if g := p.GasLimit(Call{GasLimit: 7}); g != 7 {
		t.Errorf("rule gas limit: %d", g)
	}
	if g := p.GasLimit(Call{}); g != 100_000 {
		t.Errorf("cap as gas limit: %d", g)
	}
}
