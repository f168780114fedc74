package demo

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/rule"
)

// The embedded settlement contract is the one contracts/testdata builds.
func TestSettlementBytecodeIsTheBuild(t *testing.T) {
	raw, err := os.ReadFile("../../contracts/testdata/build/ExecTarget.bin")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := SettlementBytecode(), common.FromHex(strings.TrimSpace(string(raw))); len(got) == 0 || !bytes.Equal(got, want) {
		t.Errorf("devnet/demo/settlement.bin (%d bytes) differs from contracts/testdata/build/ExecTarget.bin (%d bytes): copy it again", len(got), len(want))
	}
}

// The example rule binds to the contract and is a valid rule document
// whose onValid executes settle(total, orderId) there.
func TestSettlementRule(t *testing.T) {
	raw, err := os.ReadFile("../../examples/rules/" + SettlementRuleFile)
	if err != nil {
		t.Fatal(err)
	}
	addr := common.HexToAddress("0x00000000000000000000000000000000000000c5")
	text, err := SettlementRule(raw, addr)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(text, []byte(`"to": "0x00000000000000000000000000000000000000c5"`)) || bytes.Contains(text, []byte("${addr:")) {
		t.Errorf("not bound:\n%s", text)
	}
	if _, err := rule.Parse(text); err != nil {
		t.Errorf("the bound rule is not valid: %v", err)
	}
	if _, err := SettlementRule([]byte(`{"to": "${addr:OTHER}"}`), addr); err == nil || !strings.Contains(err.Error(), "OTHER") {
		t.Errorf("an unknown placeholder: %v", err)
	}
}
