package onchain

import (
	"context"
	"fmt"
	"sync"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/execution"
)

// PreviewNode is what Previewer needs from a node: eth_call and
// eth_estimateGas. An *ethclient.Client has it.
type PreviewNode interface {
	ethereum.ContractCaller
	ethereum.GasEstimator
}

// Previewer is an Actuator that sends nothing: Send runs the call with
// eth_call (Preview) from From at the node's latest block, and the
// outcome it records at once is final: status 1 with the estimated gas
// when the call would succeed, status 0 with the decoded revert reason
// when it would revert. The step's branch and revert flip then run as they
// would on chain. TxHash and Block of a preview are zero. For `xgr
// simulate --rpc` without an executor key. Safe for concurrent use.
type Previewer struct {
	Node PreviewNode
	// From is the would-be sender (msg.sender of the eth_call).
	From common.Address
	// Policy, when set, refuses what the operator's policy would refuse
	// (Policy.Check: targets, functions, plain transfers, value, gas cap);
	// authority and the reservations per session and owner-day are not
	// previewed.
	Policy *execution.Policy

	mu   sync.Mutex
	done map[string]Previewed
}

// Previewed is one preview's result.
type Previewed struct {
	Call    execution.Call
	Outcome execution.Outcome
}

// Describe is the preview as one line: "preview: would succeed (gas N)"
// or "preview: reverts: REASON".
func (p Previewed) Describe() string {
	if p.Outcome.Status == 1 {
		return fmt.Sprintf("preview: would succeed (gas %d)", p.Outcome.GasUsed)
	}
	if p.Outcome.RevertReason == "" {
		return "preview: reverts (no reason given)"
	}
	return "preview: reverts: " + p.Outcome.RevertReason
}

var _ execution.Actuator = (*Previewer)(nil)

// Send implements execution.Actuator: it previews c once per key. A node
// failure is a transient error (the step retries); a policy refusal is a
// *execution.Refusal.
func (p *Previewer) Send(ctx context.Context, sc execution.Scope, key string, c execution.Call) error {
	if _, ok := p.Result(key); ok {
		return nil
	}
	if err := checkKey(key); err != nil {
		return err
	}
	if p.Policy != nil {
		if err := p.Policy.Check(sc, c, 0); err != nil {
			return err
		}
	}
	sim, err := Preview(ctx, p.Node, p.From, c)
	if err != nil {
		return err
	}
	o := execution.Outcome{Status: 1}
	if sim.Reverted {
		o = execution.Outcome{Status: 0, RevertReason: sim.Reason}
	} else {
		to := c.To
		gas, err := p.Node.EstimateGas(ctx, ethereum.CallMsg{From: p.From, To: &to, Gas: c.GasLimit, Value: c.Value, Data: c.Data})
		if err != nil {
			return fmt.Errorf("preview the execution to %s: estimate its gas: %w", to.Hex(), err)
		}
		o.GasUsed = gas
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done == nil {
		p.done = map[string]Previewed{}
	}
	p.done[key] = Previewed{Call: c, Outcome: o}
	return nil
}

// Outcome implements execution.Actuator: a previewed key's outcome is
// final at once.
func (p *Previewer) Outcome(_ context.Context, key string) (execution.Outcome, bool, error) {
	r, ok := p.Result(key)
	if !ok {
		return execution.Outcome{}, false, fmt.Errorf("execution %s was never previewed", key)
	}
	return r.Outcome, true, nil
}

// Result is key's preview, if Send made one.
func (p *Previewer) Result(key string) (Previewed, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r, ok := p.done[key]
	return r, ok
}
