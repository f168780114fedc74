package execution

import (
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// calldata is the selector of sig and n bytes of zero arguments.
func calldata(sig string, n int) []byte {
	return append(crypto.Keccak256([]byte(sig))[:4], make([]byte, n)...)
}

func mustFunction(t *testing.T, s string) Function {
	t.Helper()
	f, err := ParseFunction(s)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func ether(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1e18)) }

func TestPolicyCheck(t *testing.T) {
	allowed := common.HexToAddress("0x00000000000000000000000000000000000000a1")
	other := common.HexToAddress("0x00000000000000000000000000000000000000b2")
	settleOnly := common.HexToAddress("0x00000000000000000000000000000000000000c3")
	payable := common.HexToAddress("0x00000000000000000000000000000000000000d4")
	wallet := common.HexToAddress("0x00000000000000000000000000000000000000e5")
	base := Policy{MaxGasLimit: 100_000, MaxSessionGas: 250_000, MaxGasPerOwnerPerDay: 1_000_000,
		Value: ValueCaps{MaxPerExecution: ether(2), MaxPerSession: ether(3), MaxPerOwnerPerDay: ether(4)},
		Targets: []Target{
			AllowContract(allowed),
			{Address: settleOnly, Functions: []Function{mustFunction(t, "settle(uint256,address)")}},
			{Address: payable, Functions: []Function{mustFunction(t, "settle(uint256,string)")}, Value: true, MaxValue: ether(5)},
			{Address: wallet, PlainTransfer: true, Value: true, MaxValue: ether(1)},
		}}
	p := base
	permit := Scope{MaxTotalGas: 150_000}
	settle := calldata("settle(uint256,address)", 64)
	settleStr := calldata("settle(uint256,string)", 96)
	transfer := calldata("transfer(address,uint256)", 64)
	noValue := base
	noValue.Value = ValueCaps{}
	anyTarget := Policy{AnyTarget: true, MaxGasLimit: 100_000, MaxSessionGas: 250_000, MaxGasPerOwnerPerDay: 1_000_000,
		Value: ValueCaps{MaxPerSession: ether(100), MaxPerOwnerPerDay: ether(100)}}
	lowOwnerDay := base
	lowOwnerDay.MaxGasPerOwnerPerDay = 50_000
	cases := []struct {
		name   string
		p      Policy
		s      Scope
		c      Call
		spent  uint64
		limit  string // "" = allowed
		reason string
	}{
		{"allowed, cap as limit", p, Scope{}, Call{To: allowed, Data: settle}, 0, "", ""},
		{"bare address allows any function", p, Scope{}, Call{To: allowed, Data: calldata("mint(uint256)", 32)}, 0, "", ""},
		{"but no token move on a bare address", p, Scope{}, Call{To: allowed, Function: "transfer(address,uint256)", Data: transfer}, 0,
			"executions.targets[0].functions", "moves or approves the caller's tokens, which a target given as a bare address never allows"},
		{"nor an approve", p, Scope{}, Call{To: allowed, Data: calldata("approve(address,uint256)", 64)}, 0, "executions.targets[0].functions", "moves or approves"},
		{"functions: any allows token moves", Policy{Targets: []Target{{Address: allowed, AnyFunction: true}}, MaxGasLimit: 100_000, MaxSessionGas: 250_000, MaxGasPerOwnerPerDay: 1_000_000},
			Scope{}, Call{To: allowed, Data: transfer}, 0, "", ""},
		{"a token move listed by name", Policy{Targets: []Target{{Address: allowed, Functions: []Function{mustFunction(t, "transfer(address,uint256)")}}}, MaxGasLimit: 100_000, MaxSessionGas: 250_000, MaxGasPerOwnerPerDay: 1_000_000},
			Scope{}, Call{To: allowed, Data: transfer}, 0, "", ""},
		{"rule lowers the cap", p, Scope{}, Call{To: allowed, Data: settle, GasLimit: 50_000}, 200_000, "", ""},
		{"target not listed", p, Scope{}, Call{To: other, Data: settle}, 0, LimitTargets, "not among the 4 contracts"},
		{"any target", anyTarget, Scope{}, Call{To: other, Data: settle}, 0, "", ""},
		{"ERC-20 transfer under any", anyTarget, Scope{}, Call{To: other, Data: transfer}, 0, LimitTargets, "which targets: any never allows"},
		{"zero target", Policy{AnyTarget: true, MaxGasLimit: 1, MaxSessionGas: 1}, Scope{}, Call{}, 0, LimitInputTarget, "zero address"},

		// functions
		{"listed function", p, Scope{}, Call{To: settleOnly, Data: settle}, 0, "", ""},
		{"ERC-20 transfer on a settle-only target", p, Scope{}, Call{To: settleOnly, Function: "transfer(address,uint256)", Data: transfer}, 0,
			"executions.targets[1].functions", "function transfer(address,uint256) (selector 0xa9059cbb) is not among the functions the target allows (executions.targets[1].functions: settle(uint256,address))"},
		{"selector not allowed, no name", p, Scope{}, Call{To: settleOnly, Data: calldata("approve(address,uint256)", 64)}, 0, "executions.targets[1].functions", "function ? (selector 0x095ea7b3)"},
		{"calldata shorter than a selector", p, Scope{}, Call{To: settleOnly, Data: []byte{1, 2}}, 0, "executions.targets[1].functions", "no 4-byte function selector"},

		// plain transfers
		{"plain transfer refused on a bare address", p, Scope{}, Call{To: allowed}, 0, "executions.targets[0].plainTransfer", "does not allow plain transfers"},
		{"plain transfer refused on a function list", p, Scope{}, Call{To: settleOnly}, 0, "executions.targets[1].plainTransfer", "plain transfer"},
		{"plain transfer refused under any", anyTarget, Scope{}, Call{To: other, Value: ether(100)}, 0, LimitTargets, "targets: any never allows a plain transfer"},
		{"plain transfer where allowed", p, Scope{}, Call{To: wallet}, 0, "", ""},
		{"plain transfer with value where allowed", p, Scope{}, Call{To: wallet, Value: ether(1)}, 0, "", ""},

		// value
		{"value refused on a bare address", p, Scope{}, Call{To: allowed, Data: settle, Value: big.NewInt(1)}, 0, "executions.targets[0].value", "does not allow value"},
		{"value refused under any", anyTarget, Scope{}, Call{To: other, Data: settle, Value: big.NewInt(1)}, 0, LimitTargets, "targets: any never allows value"},
		{"value refused by default", DefaultConfig().Policy, Scope{}, Call{To: allowed, Data: settle, Value: big.NewInt(1)}, 0, LimitTargets, "not among"},
		{"value on a payable target", p, Scope{}, Call{To: payable, Data: settleStr, Value: ether(2)}, 0, "", ""},
		{"5 ETH above the target's cap", Policy{MaxGasLimit: 100_000, MaxSessionGas: 250_000, MaxGasPerOwnerPerDay: 1_000_000,
			Targets: base.Targets, Value: ValueCaps{MaxPerSession: ether(100), MaxPerOwnerPerDay: ether(100)}}, Scope{}, Call{To: wallet, Value: ether(5)}, 0,
			"executions.targets[3].value.maxPerExecution", "above the target's cap 1000000000000000000 wei"},
		{"above the section's cap per execution", p, Scope{}, Call{To: payable, Data: settleStr, Value: new(big.Int).Add(ether(2), big.NewInt(1))}, 0,
			LimitValue, "above the cap per execution"},
		{"above the session cap", Policy{MaxGasLimit: 100_000, MaxSessionGas: 250_000, MaxGasPerOwnerPerDay: 1_000_000, Targets: base.Targets,
			Value: ValueCaps{MaxPerSession: ether(1), MaxPerOwnerPerDay: ether(4)}}, Scope{}, Call{To: payable, Data: settleStr, Value: ether(2)}, 0,
			LimitSessionValue, "above the value one session may send"},
		{"above the owner's day cap", Policy{MaxGasLimit: 100_000, MaxSessionGas: 250_000, MaxGasPerOwnerPerDay: 1_000_000, Targets: base.Targets,
			Value: ValueCaps{MaxPerSession: ether(4), MaxPerOwnerPerDay: ether(1)}}, Scope{}, Call{To: payable, Data: settleStr, Value: ether(2)}, 0,
			LimitOwnerValue, "above the value one owner may send per day"},
		{"no section caps: no value at all", noValue, Scope{}, Call{To: payable, Data: settleStr, Value: big.NewInt(1)}, 0, LimitSessionValue, "0 wei"},
		{"negative value", p, Scope{}, Call{To: payable, Data: settleStr, Value: big.NewInt(-1)}, 0, LimitValue, "negative"},

		// gas
		{"rule above the cap", p, Scope{}, Call{To: allowed, Data: settle, GasLimit: 100_001}, 0, LimitMaxGas, "gas.limit 100001 is above the operator's cap 100000"},
		{"exactly the ceiling", p, Scope{}, Call{To: allowed, Data: settle}, 150_000, "", ""},
		{"over the ceiling", p, Scope{}, Call{To: allowed, Data: settle}, 150_001, LimitSessionGas, "exceeds the session's gas budget 250000"},
		{"a lower permit budget wins", p, permit, Call{To: allowed, Data: settle}, 50_001, LimitPermitGas, "SessionPermit's maxTotalGas"},
		{"permit budget fits", p, permit, Call{To: allowed, Data: settle, GasLimit: 50_000}, 100_000, "", ""},
		{"a permit above the ceiling is clamped", p, Scope{MaxTotalGas: 18_000_000}, Call{To: allowed, Data: settle}, 150_001, LimitSessionGas, "budget 250000"},
		{"a permit of 2^64-1 is clamped", p, Scope{MaxTotalGas: 1<<64 - 1}, Call{To: allowed, Data: settle}, 200_000, LimitSessionGas, "budget 250000"},
		{"spent above budget", p, permit, Call{To: allowed, Data: settle, GasLimit: 1}, 1 << 62, LimitPermitGas, "exceeds"},
		{"no gas at all", Policy{AnyTarget: true}, Scope{}, Call{To: allowed, Data: settle}, 0, LimitMaxGas, "no gas limit"},
		{"above the owner's daily gas", lowOwnerDay, Scope{}, Call{To: allowed, Data: settle}, 0, LimitOwnerGas, "above the gas one owner may reserve per day, 50000"},
		{"huge ceiling counts as MaxGas", Policy{AnyTarget: true, MaxGasLimit: 100_000, MaxSessionGas: 1<<64 - 1, MaxGasPerOwnerPerDay: MaxGas}, Scope{}, Call{To: allowed, Data: settle}, MaxGas - 100_000, "", ""},
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
	// The worst case: the gas limit at the fee cap, plus the value.
	if c := p.Cost(Call{GasLimit: 50_000, Value: big.NewInt(7)}, big.NewInt(3)); c.Int64() != 150_007 {
		t.Errorf("cost %s", c)
	}
}

// The permit can only lower the operator's ceiling.
func TestPolicyBudget(t *testing.T) {
	p := Policy{MaxSessionGas: 3_000_000}
	for _, c := range []struct {
		permit uint64
		gas    uint64
		limit  string
	}{{0, 3_000_000, LimitSessionGas}, {1_000_000, 1_000_000, LimitPermitGas}, {3_000_000, 3_000_000, LimitSessionGas},
		{18_000_000, 3_000_000, LimitSessionGas}, {1<<53 - 1, 3_000_000, LimitSessionGas}, {1<<64 - 1, 3_000_000, LimitSessionGas}} {
		if gas, limit := p.Budget(Scope{MaxTotalGas: c.permit}); gas != c.gas || limit != c.limit {
			t.Errorf("permit %d: budget %d %s, want %d %s", c.permit, gas, limit, c.gas, c.limit)
		}
	}
}

func TestParseFunction(t *testing.T) {
	for in, want := range map[string]string{
		"settle(uint256,address)":          "settle(uint256,address)",
		" settle( uint , address ) ":       "settle(uint256,address)",
		"settle(uint256,address)(bool)":    "settle(uint256,address)",
		"ping()":                           "ping()",
		"batch(int[],bytes32[2][],bool)":   "batch(int256[],bytes32[2][],bool)",
		"transfer(address,uint256)":        "transfer(address,uint256)",
		"0xA9059CBB":                       "0xa9059cbb",
		"$_x9(uint8,int256,bytes1,string)": "$_x9(uint8,int256,bytes1,string)",
	} {
		f, err := ParseFunction(in)
		if err != nil || f.Text != want {
			t.Errorf("%q: %+v %v, want %s", in, f, err, want)
		}
	}
	if f, _ := ParseFunction("transfer(address,uint256)"); f.Selector != [4]byte{0xa9, 0x05, 0x9c, 0xbb} {
		t.Errorf("transfer selector %x", f.Selector)
	}
	for in, want := range map[string]string{
		"settle":                 "want a signature",
		"0x1234":                 "want 0x and 8 hex digits",
		"0xa9059cbbzz":           "want 0x and 8 hex digits",
		"1settle(uint256)":       "not a Solidity function name",
		"f(uint7)":               "not an ABI type",
		"f(uint264)":             "not an ABI type",
		"f(bytes33)":             "not an ABI type",
		"f((uint256,address))":   "by its selector",
		"f(uint256,(bool,bool))": "by its selector",
		"f(uint256)x":            "only a return list",
		"f(uint256[x])":          "not an ABI type",
		"f(uint256,)":            "not an ABI type",
	} {
		if _, err := ParseFunction(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: want %q, got %v", in, want, err)
		}
	}
}
