package demo

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/devnet"
	"github.com/xgr-sidecar/xgr/devnet/deploy"
	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/registry"
)

// Settlement is the demo's settlement on the development chain: the
// contract and the step that settles (Executor sends it).
type Settlement struct {
	Contract common.Address
	Step     string
}

// DeploySettlement deploys the settlement contract and the rule
// SettlementRuleFile of rulesDir bound to it, and makes the order flow's
// last step run that rule. nil when the flow is not OrderFlow, there are
// no rules or rulesDir has no such file. Call it before rules.Rewrite.
func DeploySettlement(ctx context.Context, s *chain.Sender, rules *deploy.RuleFiles, rulesDir, flow string, orchs []*registry.Orchestration) (*Settlement, error) {
	var o *registry.Orchestration
	for _, x := range orchs {
		if x.ID == flow && flow == OrderFlow && len(x.Steps) > 0 {
			o = x
		}
	}
	if o == nil || rules == nil {
		return nil, nil
	}
	raw, err := os.ReadFile(filepath.Join(rulesDir, SettlementRuleFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	rc, err := s.Deploy(ctx, "deploy the demo settlement contract", SettlementBytecode(), nil)
	if err != nil {
		return nil, err
	}
	text, err := SettlementRule(raw, rc.ContractAddress)
	if err != nil {
		return nil, err
	}
	ruleAddr, err := deploy.Rule(ctx, s, text)
	if err != nil {
		return nil, fmt.Errorf("deploy rule %s: %w", SettlementRuleFile, err)
	}
	step := o.Steps[len(o.Steps)-1].ID
	if err := rules.UseContract(o.ID, step, ruleAddr); err != nil {
		return nil, err
	}
	return &Settlement{Contract: rc.ContractAddress, Step: step}, nil
}

// Executor is the settlement's executor: a policy that lets only the
// settlement contract be called, and the key that signs and pays (the
// last development account of dev). Receipts are final once mined.
func (d *Settlement) Executor(dev *devnet.Chain) (execution.Config, *ecdsa.PrivateKey) {
	x := execution.DefaultConfig()
	x.Enabled, x.Policy.Targets = true, execution.Targets(d.Contract)
	return x, dev.Key(devnet.DevAccounts - 1)
}

// Line is what xgr dev prints about the settlement at start; executor
// is the address that sends it.
func (d *Settlement) Line(executor common.Address) string {
	return fmt.Sprintf("xgr dev: settlement contract %s: step %s of %s settles each order with settle(total, orderId), sent by executor %s (dev account %d)\n",
		d.Contract.Hex(), d.Step, OrderFlow, strings.ToLower(executor.Hex()), devnet.DevAccounts-1)
}
