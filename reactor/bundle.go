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
	// RuleHash the rule document's hash, when known.
	Rule     string `json:"rule,omitempty"`
	RuleHash string `json:"ruleHash,omitempty"`
	// APISaves and ContractSaves are JSON objects (nil: none).
	APISaves      json.RawMessage `json:"apiSaves,omitempty"`
	ContractSaves json.RawMessage `json:"contractSaves,omitempty"`
	// Policy is the selected branch's.
	Policy evidence.Policy `json:"policy"`
}

// BundleWriter stores a committed step's log bundle once per process
// (*evidence.Store: Record). Its error never holds the bundle's
// plaintext.
type BundleWriter interface {
	Record(ctx context.Context, b *evidence.Bundle, p evidence.Policy, now time.Time) (*evidence.Stored, error)
}

// bundleWrite is the log bundle a commit carries: written by the driver
// once the commit succeeded (never for a commit fenced off by a lost
// lease), under the key of its process (write-once).
type bundleWrite struct {
	Bundle evidence.Bundle
	Policy evidence.Policy
}

// bundleFor builds the bundle of a result about to be committed: pure.
func bundleFor(root joinstore.Root, step *registry.Step, r result, commit joinstore.Commit, now time.Time) *bundleWrite {
	c := r.claim
	b := evidence.Bundle{Owner: strings.ToLower(root.Owner), SessionID: root.RootPid, Pid: c.Pid, Iter: c.Iter,
		Step: c.ResumeStep, Time: now.UnixMilli()}
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
		b.Outcome = evidence.Outcome{Result: evidence.Aborted, Reasons: []string{commit.AbortReason}}
	case commit.Valid != nil && *commit.Valid:
		b.Outcome.Result = evidence.Valid
	default:
		b.Outcome = evidence.Outcome{Result: evidence.Invalid, Reasons: r.res.Reasons}
	}
	if commit.Status != "aborted" {
		if len(r.res.Output) > 0 {
			b.Outcome.Output = MarshalPayload(r.res.Output)
		}
		if ev := r.res.Evidence; ev != nil {
			if ev.Rule != "" && len(ev.Rule) <= 256 {
				b.Rule = ev.Rule
			}
			b.RuleHash, b.APISaves, b.ContractSaves, p = ev.RuleHash, ev.APISaves, ev.ContractSaves, ev.Policy
		}
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

// writeBundle stores a committed step's bundle (the commit succeeded). A
// process killed while it ran was recorded aborted: so is its bundle. A
// failure is logged, never the bundle; the step stays committed.
func (s *sessionIO) writeBundle(ctx context.Context, w *bundleWrite, res joinstore.CommitResult) {
	b := w.Bundle
	if res.Killed && b.Outcome.Result != evidence.Aborted {
		b.Outcome = evidence.Outcome{Result: evidence.Aborted, Reasons: []string{"killed while running"}}
		if res.Capped != "" {
			b.Outcome.Reasons = []string{res.Capped}
		}
	}
	st, err := s.bundles.Record(context.WithoutCancel(ctx), &b, w.Policy, s.clock())
	switch {
	case err != nil:
		s.log.Warn("log bundle not stored", "session", s.root.String(), "pid", b.Pid, "step", b.Step, "err", err)
	case len(st.Unwrapped) > 0:
		s.log.Warn("log bundle: grantees without a registered read key got no grant", "session", s.root.String(), "pid", b.Pid, "grantees", st.Unwrapped)
	}
}
