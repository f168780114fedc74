package chain_test

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/rule"
	"github.com/xgr-sidecar/xgr/testenv"
)

// Contract reads against a real node: an ERC-20-like token deployed on
// anvil, read through rule.ContractReader and through a whole rule.
func TestReadsOnAnvil(t *testing.T) {
	a := testenv.StartAnvil(t)
	supply := new(big.Int).Mul(big.NewInt(1_000_000), big.NewInt(1e18))
	tok := testenv.DeployTestToken(t, a, "Test Token", supply)
	holder, other := a.Address(0), a.Address(1)
	sent := big.NewInt(250)
	tok.Transfer(t, 0, other, sent)
	reads := &chain.Reads{Default: a.Client}
	ctx := context.Background()
	read := func(fn string, args []rule.ReadArg, slots ...rule.ReturnSlot) ([]any, error) {
		return reads.ReadContract(ctx, rule.ReadRequest{To: tok.Address.Hex(), Function: fn, Args: args, Returns: slots})
	}
	addr := func(a common.Address) []rule.ReadArg { return []rule.ReadArg{{Type: rule.TypeAddress, Value: a.Hex()}} }

	// balanceOf without return types: saveAs decides (uint256).
	got, err := read("balanceOf(address)", addr(other), rule.ReturnSlot{Index: 0, Type: rule.TypeUint256})
	if err != nil || len(got) != 1 || got[0].(*big.Int).Cmp(sent) != 0 {
		t.Fatalf("balanceOf(other): %v, %v", got, err)
	}
	// With the return list the builder writes.
	got, err = read("balanceOf(address)(uint256)", addr(holder))
	if want := new(big.Int).Sub(supply, sent); err != nil || got[0].(*big.Int).Cmp(want) != 0 {
		t.Fatalf("balanceOf(holder): %v, %v; want %s", got, err, want)
	}
	// Six values of mixed kinds, by saveAs slot types only.
	got, err = read("snapshot(address)", addr(other),
		rule.ReturnSlot{Index: 0, Type: rule.TypeDouble}, rule.ReturnSlot{Index: 1, Type: rule.TypeString},
		rule.ReturnSlot{Index: 2, Type: rule.TypeInt64}, rule.ReturnSlot{Index: 3, Type: rule.TypeBool},
		rule.ReturnSlot{Index: 4, Type: rule.TypeBytes32}, rule.ReturnSlot{Index: 5, Type: rule.TypeAddress})
	tag := crypto.Keccak256Hash([]byte("Test Token")).Hex()
	if err != nil || len(got) != 6 || got[0].(*big.Int).Int64() != 250 || got[1] != "Test Token" || got[2].(*big.Int).Int64() != -42 ||
		got[3] != true || got[4] != tag || got[5] != tok.Address.Hex() {
		t.Fatalf("snapshot: %v, %v", got, err)
	}
	// A revert carries the contract's reason; no code at the address is an empty return.
	if _, err := read("transfer(address,uint256)(bool)", []rule.ReadArg{{Type: rule.TypeAddress, Value: holder.Hex()}, {Type: rule.TypeUint256, Value: "1"}}); chain.ReasonOf(err) != "balance too low" {
		t.Errorf("eth_call transfer from the zero address: %v", err)
	}
	_, err = reads.ReadContract(ctx, rule.ReadRequest{To: other.Hex(), Function: "balanceOf(address)(uint256)", Args: addr(other)})
	if !errors.Is(err, chain.ErrEmptyReturn) {
		t.Errorf("read from an account without code: %v", err)
	}
	// Backend selectors: only configured names are served.
	named := &chain.Reads{Backends: map[string]ethereum.ContractCaller{"anvil": a.Client}}
	if got, err := named.ReadContract(ctx, rule.ReadRequest{RPC: "anvil", To: tok.Address.Hex(), Function: "decimals()(uint8)"}); err != nil || got[0] != uint8(18) {
		t.Errorf("rpc anvil: %v, %v", got, err)
	}
	if _, err := named.ReadContract(ctx, rule.ReadRequest{RPC: "https://evil.example", To: tok.Address.Hex(), Function: "decimals()"}); err == nil ||
		!strings.Contains(err.Error(), `backend "https://evil.example" is not configured (configured: anvil;`) {
		t.Errorf("unknown selector: %v", err)
	}
	if _, err := named.ReadContract(ctx, rule.ReadRequest{To: tok.Address.Hex(), Function: "decimals()"}); err == nil || !strings.Contains(err.Error(), "no chain backend") {
		t.Errorf("no default backend: %v", err)
	}

	// The whole pipeline: a rule document reading the balance and the name.
	doc, err := rule.Parse([]byte(`{
  "payload": {"Token": {"type": "address"}, "Holder": {"type": "address"}, "Min": {"type": "uint256", "default": "100"}},
  "contractReads": [
    {"to": "[Token]", "function": "balanceOf(address)", "args": [{"type": "address", "value": "[Holder]"}],
     "saveAs": {"0": {"key": "Balance", "type": "uint256"}}},
    {"to": "[Token]", "function": "snapshot(address)", "args": [{"type": "address", "value": "[Holder]"}],
     "saveAs": {"1": {"key": "Name", "type": "string"}, "2": {"key": "Delta", "type": "int64"}, "3": {"key": "Flag", "type": "uint64", "default": 7}}}
  ],
  "rules": ["u256([Balance]) >= u256([Min])"],
  "onValid": {"payload": {"Balance": "[Balance]", "Label": "[Name] holds [Balance]", "Delta": "[Delta]", "Flag": "[Flag]"}},
  "onInvalid": {"payload": {"Balance": "[Balance]"}}
}`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := rule.Evaluate(ctx, doc, map[string]any{"Token": tok.Address.Hex(), "Holder": other.Hex()}, rule.Sources{Reads: reads})
	if err != nil || !res.Valid || res.Output["Balance"] != "250" || res.Output["Label"] != "Test Token holds 250" || res.Output["Delta"] != int64(-42) || res.Output["Flag"] != uint64(1) {
		t.Fatalf("rule with reads: %+v, %v", res, err)
	}
	res, err = rule.Evaluate(ctx, doc, map[string]any{"Token": tok.Address.Hex(), "Holder": other.Hex(), "Min": "251"}, rule.Sources{Reads: reads})
	if err != nil || res.Valid || res.Output["Balance"] != "250" {
		t.Fatalf("balance below the minimum: %+v, %v", res, err)
	}
	// An argument that does not fit its ABI type is a hard error.
	bad, err := rule.Parse([]byte(`{"payload": {}, "contractReads": [{"to": "` + tok.Address.Hex() + `", "function": "decimals()(uint8)", "args": [], "saveAs": {"0": {"key": "D", "type": "uint64"}}},
  {"to": "` + tok.Address.Hex() + `", "function": "transfer(address,uint8)", "args": [{"type": "address", "value": "` + other.Hex() + `"}, {"type": "int64", "value": 300}], "saveAs": {}}], "rules": []}`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = rule.Evaluate(ctx, bad, nil, rule.Sources{Reads: reads})
	var he *rule.HardError
	if !errors.As(err, &he) || he.Path != "contractReads[1]" || !strings.Contains(err.Error(), "int64 value 300 cannot be passed as ABI uint8: out of range") {
		t.Errorf("uint8 overflow: %v", err)
	}
}
