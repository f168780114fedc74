package testenv

import (
	"context"
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
)

// TestToken is a deployed contracts/testdata/TestToken.sol: a minimal
// ERC-20-like token (name, symbol, decimals, totalSupply, balanceOf,
// transfer, and snapshot(address) with six return values of mixed ABI
// kinds) for contract-read tests.
type TestToken struct {
	Address common.Address
	ABI     abi.ABI
	chain   Chain
}

// testTokenArtifact is the committed build output of `make contracts`.
func testTokenArtifact(t testing.TB) (abi.ABI, []byte) {
	t.Helper()
	return testdataArtifact(t, "TestToken")
}

// testdataArtifact reads contracts/testdata/build/<name>.json, the
// committed build output of `make contracts`: its ABI and creation code.
func testdataArtifact(t testing.TB, name string) (abi.ABI, []byte) {
	t.Helper()
	_, here, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("testenv: cannot locate the repository (runtime.Caller)")
	}
	file := filepath.Join(filepath.Dir(here), "..", "contracts", "testdata", "build", name+".json")
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("testenv: %s artifact: %v (run `make contracts`)", name, err)
	}
	var art struct {
		ABI      json.RawMessage `json:"abi"`
		Bytecode string          `json:"bytecode"`
	}
	if err := json.Unmarshal(raw, &art); err != nil {
		t.Fatalf("testenv: %s: %v", file, err)
	}
	parsed, err := abi.JSON(strings.NewReader(string(art.ABI)))
	if err != nil {
		t.Fatalf("testenv: %s: abi: %v", file, err)
	}
	return parsed, common.FromHex(art.Bytecode)
}

// DeployTestToken deploys a TestToken from development key 0, which holds
// the whole supply, and fails the test unless it is mined successfully.
func DeployTestToken(t testing.TB, c Chain, name string, supply *big.Int) *TestToken {
	t.Helper()
	parsed, code := testTokenArtifact(t)
	input, err := parsed.Pack("", name, supply)
	if err != nil {
		t.Fatalf("testenv: TestToken constructor: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), deployTimeout)
	defer cancel()
	r, err := Sender(t, c, 0).Deploy(ctx, "deploy TestToken", code, input)
	if err != nil {
		t.Fatalf("testenv: deploy TestToken: %v", err)
	}
	return &TestToken{Address: r.ContractAddress, ABI: parsed, chain: c}
}

// Transfer sends value tokens from development key from to to and fails the
// test unless the transfer is mined successfully.
func (tk *TestToken) Transfer(t testing.TB, from int, to common.Address, value *big.Int) {
	t.Helper()
	data, err := tk.ABI.Pack("transfer", to, value)
	if err != nil {
		t.Fatalf("testenv: TestToken transfer: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), deployTimeout)
	defer cancel()
	bound := bind.NewBoundContract(tk.Address, tk.ABI, tk.chain.Backend(), tk.chain.Backend(), tk.chain.Backend())
	if _, err := Sender(t, tk.chain, from).Transact(ctx, bound, "transfer", data); err != nil {
		t.Fatalf("testenv: TestToken transfer: %v", err)
	}
}
