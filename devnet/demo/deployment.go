package demo

import (
	"context"
	"fmt"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/devnet"
	"github.com/xgr-sidecar/xgr/devnet/deploy"
	"github.com/xgr-sidecar/xgr/registry"
)

// Deployment is what xgr dev puts on its development chain: the XRC-729
// registry holding the orchestrations, the settlement of the order flow
// (with rules that have its rule file), and the demo orders contract
// whose entries trigger sessions.
type Deployment struct {
	// Sender is development account 0: it owns the registry and puts the
	// orders.
	Sender *chain.Sender
	// Registry holds the orchestrations (registered in Block).
	Registry *chain.Registry
	Block    uint64
	// Settlement settles the order flow's orders (nil when there is none:
	// scripted outcomes, another flow, no settlement rule).
	Settlement *Settlement
	// Orders is the demo orders contract, a registry of its own, so that
	// registering the orchestrations starts nothing.
	Orders *chain.Registry
}

// Deploy deploys the registry (first, so that its address is the same in
// every run), with rules their XRC-137 rule contracts and the settlement
// of flow, registers every orchestration (with rules, its steps pointed
// at the contracts deployed; else as written) and deploys the orders
// contract. The error says which of them failed.
func Deploy(ctx context.Context, dev *devnet.Chain, orchs []*registry.Orchestration, rules *deploy.RuleFiles, rulesDir, flow string) (*Deployment, error) {
	sender, err := chain.NewSender(ctx, dev.Backend(), dev.Key(0), 1)
	if err != nil {
		return nil, err
	}
	d := &Deployment{Sender: sender}
	reg, rcpt, err := chain.DeployRegistry(ctx, sender, chain.RegistryInit{})
	if err != nil {
		return nil, fmt.Errorf("deploy the registry: %w", err)
	}
	d.Registry, d.Block = reg, rcpt.BlockNumber.Uint64()
	texts := make([][]byte, len(orchs))
	for i, o := range orchs {
		texts[i] = o.Raw()
	}
	if rules != nil {
		if err := rules.Deploy(ctx, sender); err != nil {
			return nil, err
		}
		if d.Settlement, err = DeploySettlement(ctx, sender, rules, rulesDir, flow, orchs); err != nil {
			return nil, fmt.Errorf("settlement: %w", err)
		}
		for i, o := range orchs {
			if texts[i], err = rules.Rewrite(o); err != nil {
				return nil, err
			}
		}
	}
	for i, o := range orchs {
		if _, err := deploy.Register(ctx, reg, sender, o.ID, texts[i]); err != nil {
			return nil, fmt.Errorf("register %s: %w", o.ID, err)
		}
	}
	if d.Orders, _, err = chain.DeployRegistry(ctx, sender, chain.RegistryInit{}); err != nil {
		return nil, fmt.Errorf("deploy the demo orders contract: %w", err)
	}
	return d, nil
}
