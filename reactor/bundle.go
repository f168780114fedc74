package reactor

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/xgr-sidecar/xgr/evidence"
	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
)

// EvidenceInput is what a step's log bundle needs from its evaluation
// beyond the process itself: the rule it ran, the values its API calls
// and contract reads saved, and the selected branch's bundle policy
// (logExpireDays, encryptLogs, grants). An executor that evaluates no rule
// leaves Result.Evidence nil: the bundle then names the step's rule
// reference and takes the operator's defaults.
type EvidenceInput struct {
	// Rule is the rule contract (address) or the step's rule reference;
	// RuleHash keccak256 of the rule text that ran (0x-hex; the contract's
	// ruleHash, or the rule file's bytes'), when a rule was loaded.
	Rule     string `json:"rule,omitempty"`
	RuleHash string `json:"ruleHash,omitempty"`
	// APISaves and ContractSaves are JSON objects (nil: none).
	APISaves      json.RawMessage `json:"apiSaves,omitempty"`
	ContractSaves json.RawMessage `json:"contractSaves,omitempty"`
	// Policy is the selected branch's.
	Policy evidence.Policy `json:"policy"`
}

// BundleWriter prepares a step's log bundle for its commit
// (*evidence.Store): PrepareCommit encodes it, seals it when its branch
// says encryptLogs (fail closed: evidence.ErrSeal) and stores its grants;
// the commit then writes it atomically with the step
// (joinstore.Commit.Bundle), and Forget removes the grants of one the
// commit did not keep. Errors never hold the bundle's plaintext.
type BundleWriter interface {
	PrepareCommit(ctx context.Context, b *evidence.Bundle, p evidence.Policy, token int64, now time.Time) (*evidence.Prepared, error)
	Forget(ctx context.Context, prep *evidence.Prepared, now time.Time) error
}

// bundleWrite is the log bundle a commit carries, built by the machine:
// the driver prepares it and the commit writes it with the step (never
// for a commit fenced off by a lost lease), under the key of its process
// (write-once).
type bundleWrite struct {
	Bundle evidence.Bundle
	Policy evidence.Policy
}

// bundleFor builds the bundle of a result about to be committed: pure.
func bundleFor(root joinstore.Root, step *registry.Step, r result, commit joinstore.Commit, now time.Time) *bundleWrite {
	c := r.claim
	b := evidence.Bundle{Owner: strings.ToLower(root.Owner), SessionID: root.RootPid, Pid: c.Pid, Iter: c.Iter,
		Step: c.ResumeStep, Time: now.UnixMilli(), ValidationGas: r.res.ValidationGas, Gas: commit.Gas}
	if len(b.Step) > evidence.MaxStep {
		b.Step = b.Step[:evidence.MaxStep]
	}
	if step != nil && len(step.Rule) <= 256 {
		b.Rule = step.Rule
	}
	b.Payload = r.inputRaw
	if b.Payload == nil && r.input != nil {
		b.Payload = MarshalPayload(r.input)
	}
	var p evidence.Policy
	switch {
	case commit.Status == "aborted":
		// The full reason: the commit's may be a sealed step's redacted
		// one (publicReason), and this bundle is then sealed.
		reason := commit.AbortReason
		if r.err != nil {
			reason = r.err.Error()
		}
		b.Outcome = evidence.Outcome{Result: evidence.Aborted, Reasons: []string{reason}}
	case commit.Valid != nil && *commit.Valid:
		b.Outcome.Result = evidence.Valid
	default:
		b.Outcome = evidence.Outcome{Result: evidence.Invalid, Reasons: r.res.Reasons}
	}
	if ev := r.res.Evidence; ev != nil {
		// The rule that ran (or was loaded before the step aborted) and
		// the policy: an aborted step's bundle is sealed, lives and is
		// granted as its rule says too.
		if ev.Rule != "" && len(ev.Rule) <= 256 {
			b.Rule = ev.Rule
		}
		b.RuleHash, p = ev.RuleHash, ev.Policy
		if commit.Status != "aborted" {
			b.APISaves, b.ContractSaves = ev.APISaves, ev.ContractSaves
		}
	}
	if commit.Status != "aborted" && len(r.res.Output) > 0 {
		b.Outcome.Output = MarshalPayload(r.res.Output)
	}
	if r.res.sealed() {
		p.Encrypt = true
	}
	if len(b.Outcome.Reasons) > evidence.MaxReasons {
		b.Outcome.Reasons = b.Outcome.Reasons[:evidence.MaxReasons]
	}
	if r.done != nil {
		b.Receipt = receiptOf(r.done.receipt)
	}
	return &bundleWrite{Bundle: b, Policy: p}
}

// receiptOf is an execution's final transaction (nil: none, or lost).
func receiptOf(o *execution.Outcome) *evidence.Receipt {
	if o == nil || o.Lost || o.TxHash == ([32]byte{}) {
		return nil
	}
	st := "reverted"
	if o.Status == 1 {
		st = "success"
	}
	return &evidence.Receipt{TxHash: o.TxHash.Hex(), Block: o.Block, GasUsed: o.GasUsed, Status: st}
}
