package demo

import (
	_ "embed"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/scenario"
)

// The demo's on-chain settlement: the order flow's last step runs the rule
// file SettlementRuleFile, whose onValid execution calls settle(total,
// orderId) on a settlement contract xgr dev deploys (its address bound to
// the rule's ${addr:SettlementAlias}); the executor key sends it.
const (
	// OrderFlow is the orchestration whose last step settles.
	OrderFlow = "nested_join_example"
	// SettlementRuleFile is the rule file (in --rules-dir) of that step.
	SettlementRuleFile = "SETTLE_ORDER.json"
	// SettlementAlias is the placeholder the rule names the contract by.
	SettlementAlias = "DEMO_SETTLEMENT"
)

// settlementBin is contracts/testdata/build/ExecTarget.bin (settle(uint256,
// string) counts calls per reference and reverts "amount is zero"); a test
// keeps the copy equal to the build.
//
//go:embed settlement.bin
var settlementBin string

// SettlementBytecode is the settlement contract's creation code.
func SettlementBytecode() []byte {
	return common.FromHex(strings.TrimSpace(settlementBin))
}

// SettlementRule is the rule text with the settlement contract's address
// bound to ${addr:SettlementAlias}.
func SettlementRule(text []byte, contract common.Address) ([]byte, error) {
	out, err := scenario.SubstituteAddrs(text, map[string]string{SettlementAlias: strings.ToLower(contract.Hex())})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", SettlementRuleFile, err)
	}
	return out, nil
}

// SettledLine is what xgr dev prints when a session's execution is final:
// the transaction's hash, block, gas and status (detail is the reactor's
// exec_outcome line).
func SettledLine(label, step, detail string) string {
	return fmt.Sprintf("xgr dev: session %s step %s settled on chain: %s\n", label, step, detail)
}
