package demo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/devnet"
	"github.com/xgr-sidecar/xgr/devnet/deploy"
	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/execution/onchain"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/txmanager"
)

// Settlement is the demo's settlement on the development chain: the
// contract, the step that settles and the executor that sends it.
type Settlement struct {
	Contract common.Address
	Step     string
	Sender   *onchain.Sender
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

// Start starts the executor of the settlement (Sender): the last
// development account signs, only the settlement contract may be called,
// receipts are final once mined. Its upkeep runs until ctx ends. metrics
// (nil: none) receives the transaction manager's measurements.
func (d *Settlement) Start(ctx context.Context, dev *devnet.Chain, rdb redis.UniversalClient, metrics *txmanager.Metrics) error {
	node, ok := dev.Backend().(onchain.Chain)
	if !ok {
		return errors.New("the development chain cannot send executions")
	}
	x := execution.DefaultConfig()
	x.Enabled, x.Policy.Targets = true, execution.Targets(d.Contract)
	s, err := onchain.New(ctx, onchain.Config{Executions: x, Redis: rdb, Chain: node, Key: dev.Key(devnet.DevAccounts - 1),
		Manager: txmanager.Config{Finality: txmanager.Finality{Mode: "confirmations", Confirmations: 1}, Poll: 50 * time.Millisecond, Metrics: metrics, Log: slog.Default()}})
	if err != nil {
		return fmt.Errorf("executions: %w", err)
	}
	go func() {
		if err := s.Run(ctx); err != nil && ctx.Err() == nil {
			slog.Error("executions: the transaction manager stopped", "err", err)
		}
	}()
	d.Sender = s
	return nil
}

// Line is what xgr dev prints about the settlement at start.
func (d *Settlement) Line() string {
	return fmt.Sprintf("xgr dev: settlement contract %s: step %s of %s settles each order with settle(total, orderId), sent by executor %s (dev account %d)\n",
		d.Contract.Hex(), d.Step, OrderFlow, strings.ToLower(d.Sender.Address().Hex()), devnet.DevAccounts-1)
}
