package testenv

import (
	"context"
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/internal/toolbin"
)

// ExecTarget is a deployed contracts/testdata/ExecTarget.sol: executions'
// target in tests. It counts settle(amount, ref) calls per ref and reverts
// with "amount is zero" for amount 0.
type ExecTarget struct {
	Address common.Address
	ABI     abi.ABI
}

// DeployExecTarget deploys an ExecTarget from development key 0.
func DeployExecTarget(t testing.TB, c Chain) ExecTarget {
	t.Helper()
	tools, err := toolbin.ToolDir()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(filepath.Dir(tools), "contracts", "testdata", "build", "ExecTarget.json"))
	if err != nil {
		t.Fatal(err)
	}
	var art struct {
		ABI      json.RawMessage `json:"abi"`
		Bytecode string          `json:"bytecode"`
	}
	if err := json.Unmarshal(raw, &art); err != nil {
		t.Fatal(err)
	}
	parsed, err := abi.JSON(strings.NewReader(string(art.ABI)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), deployTimeout)
	defer cancel()
	r, err := Sender(t, c, 0).Deploy(ctx, "deploy ExecTarget", common.FromHex(art.Bytecode), nil)
	if err != nil {
		t.Fatalf("testenv: deploy ExecTarget: %v", err)
	}
	return ExecTarget{Address: r.ContractAddress, ABI: parsed}
}

// Calls reads callsOf(ref): how often settle ran with ref.
func (x ExecTarget) Calls(t testing.TB, c ethereum.ContractCaller, ref string) uint64 {
	t.Helper()
	data, err := x.ABI.Pack("callsOf", ref)
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.CallContract(context.Background(), ethereum.CallMsg{To: &x.Address, Data: data}, nil)
	if err != nil {
		t.Fatalf("callsOf(%q): %v", ref, err)
	}
	return new(big.Int).SetBytes(out).Uint64()
}
