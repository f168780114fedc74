package rpc

import (
	"bytes"
	"errors"
	"time"

	"github.com/xgr-sidecar/xgr/evidence"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/rule"
)

// RuleGasRequest is the parameter of xgr_estimateRuleGas (endpoint
// reference §8).
type RuleGasRequest struct {
	// JSON is the complete rule document (required).
	JSON string `json:"json"`
	// Encrypted is the encryptLogs of a branch that does not set it.
	Encrypted *bool `json:"encrypted,omitempty"`
	// ValidSpawns and InvalidSpawns are how many children the step spawns
	// on each branch; they multiply the wait gas (0 to
	// registry.MaxSpawnsPerBranch).
	ValidSpawns   *int `json:"validSpawns,omitempty"`
	InvalidSpawns *int `json:"invalidSpawns,omitempty"`
}

// RuleGasEstimate is the result of xgr_estimateRuleGas.
type RuleGasEstimate struct {
	// ValidationGas is the larger branch's validation gas.
	ValidationGas  uint64        `json:"validationGas"`
	OnValid        BranchGasCost `json:"onValid"`
	OnInvalid      BranchGasCost `json:"onInvalid"`
	TotalValid     uint64        `json:"totalValid"`
	TotalInvalid   uint64        `json:"totalInvalid"`
	TotalWorstCase uint64        `json:"totalWorstCase"`
}

// BranchGasCost is one branch of RuleGasEstimate, in the reference's
// members. xgr sends no engine transaction and writes no engine events:
// EvmTxCalldata and LogGas are 0, and the only on-chain cost is the
// branch execution, bounded by its gas.limit (InnerCalls["execution"], 0
// when the branch has none or leaves the limit to estimation). xgr bills
// no grant fee (GrantValueWei "0"); GrantSeconds still adds up the
// lifetimes the branch writes: its log bundle's (the owner grant) and each
// branch grant's.
type BranchGasCost struct {
	EncryptLogs   bool              `json:"encryptLogs"`
	ExpireDays    uint64            `json:"expireDays"`
	ExpireAt      int64             `json:"expireAt"`
	GrantValueWei string            `json:"grantValueWei"`
	GrantSeconds  uint64            `json:"grantSeconds"`
	ValidationGas uint64            `json:"validationGas"`
	EvmTxCalldata uint64            `json:"evmTxCalldata"`
	LogGas        uint64            `json:"logGas"`
	InnerCalls    map[string]uint64 `json:"innerCalls"`
	Total         uint64            `json:"total"`
}

// QuoteRuleGas is the estimate of a parsed document at now: the one
// definition xgr_estimateRuleGas and `xgr rule gas` share.
func QuoteRuleGas(doc *rule.Document, opt rule.GasOptions, now time.Time) (*RuleGasEstimate, rule.GasBreakdown) {
	g := doc.Gas(opt)
	out := &RuleGasEstimate{
		ValidationGas: g.WorstCase,
		OnValid:       branchCost(doc.OnValid, &g.OnValid, now),
		OnInvalid:     branchCost(doc.OnInvalid, &g.OnInvalid, now),
	}
	out.TotalValid, out.TotalInvalid = out.OnValid.Total, out.OnInvalid.Total
	out.TotalWorstCase = max(out.TotalValid, out.TotalInvalid)
	return out, g
}

const secondsPerDay = 86400

func branchCost(b *rule.Branch, g *rule.BranchGas, now time.Time) BranchGasCost {
	days := uint64(evidence.DefaultDays)
	if b.LogExpireDays != nil && *b.LogExpireDays > 0 {
		days = min(*b.LogExpireDays, evidence.DefaultMaxDays)
	}
	longest, seconds := days, days*secondsPerDay
	for _, gr := range b.Grants {
		d := days
		if gr.ExpireDays > 0 {
			d = min(gr.ExpireDays, evidence.DefaultMaxDays)
		}
		longest = max(longest, d)
		seconds += d * secondsPerDay
	}
	c := BranchGasCost{
		EncryptLogs:   g.EncryptLogs,
		ExpireDays:    days,
		ExpireAt:      now.Unix() + int64(longest*secondsPerDay),
		GrantValueWei: "0",
		GrantSeconds:  seconds,
		ValidationGas: g.Total,
		InnerCalls:    map[string]uint64{"execution": 0},
	}
	if b.Execution != nil && b.Execution.GasLimit != nil {
		c.InnerCalls["execution"] = *b.Execution.GasLimit
	}
	c.Total = c.ValidationGas + c.EvmTxCalldata + c.LogGas + c.InnerCalls["execution"]
	return c
}

// EstimateRuleGas implements xgr_estimateRuleGas: the validation gas
// (heuristic v0.2, docs/authoring.md) and branch totals of a rule document,
// before any session runs. No permit; nothing is read or written. A
// document that does not parse is refused with every problem in the
// error's data.
func (s *Service) EstimateRuleGas(req RuleGasRequest) (*RuleGasEstimate, error) {
	opt, doc, err := ParseRuleGasRequest(req)
	if err != nil {
		return nil, err
	}
	est, _ := QuoteRuleGas(doc, opt, s.cfg.Now())
	return est, nil
}

// ParseRuleGasRequest checks a request and parses its document.
func ParseRuleGasRequest(req RuleGasRequest) (rule.GasOptions, *rule.Document, error) {
	var opt rule.GasOptions
	if req.Encrypted != nil {
		opt.EncryptLogs = *req.Encrypted
	}
	for _, s := range []struct {
		name string
		n    *int
		to   *int
	}{{"validSpawns", req.ValidSpawns, &opt.ValidSpawns}, {"invalidSpawns", req.InvalidSpawns, &opt.InvalidSpawns}} {
		if s.n == nil {
			continue
		}
		if *s.n < 0 || *s.n > registry.MaxSpawnsPerBranch {
			return opt, nil, invalid(s.name, "%d: want 0 to %d (an XRC-729 branch spawns at most %d steps)", *s.n, registry.MaxSpawnsPerBranch, registry.MaxSpawnsPerBranch)
		}
		*s.to = *s.n
	}
	t := bytes.TrimSpace([]byte(req.JSON))
	switch {
	case len(req.JSON) > rule.MaxDocumentBytes:
		return opt, nil, invalid("json", "%d bytes: an XRC-137 document has at most %d", len(req.JSON), rule.MaxDocumentBytes)
	case len(t) == 0:
		return opt, nil, invalid("json", "empty: want the rule document, a JSON object in a string")
	}
	doc, err := rule.Parse([]byte(req.JSON))
	if err != nil {
		var ve *rule.ValidationError
		if errors.As(err, &ve) {
			first := ""
			if len(ve.Problems) > 0 {
				first = "; the first: " + ve.Problems[0].String()
			}
			e := fail(CodeInvalidParams, "invalid-rule", "json", "not a valid rule document: %d problem(s)%s", len(ve.Problems), first)
			e.Extra = map[string]any{"problems": ve.Problems}
			return opt, nil, e
		}
		return opt, nil, invalid("json", "%v", err)
	}
	return opt, doc, nil
}
