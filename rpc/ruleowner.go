package rpc

import (
	"context"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/grant"
)

// RuleOwners reads what grants of a rule RID (scope 1) are decided on:
// the rule contract's owner() and the RID its encryption header
// (encrypted()) holds, at the node's head. The owner of a rule RID is its
// contract's owner, never its first writer (package grant, Decide).
type RuleOwners interface {
	RuleOwner(ctx context.Context, contract common.Address) (owner common.Address, rid common.Hash, err error)
}

// ruleFacts reads the facts of the rule contract a scope-1 change names
// (refAddr); nil when the change names none (Decide refuses it then,
// rule-contract-required).
func (s *Service) ruleFacts(ctx context.Context, c grant.Change) (*grant.RuleFacts, *Error) {
	if c.Scope != grant.ScopeRule || c.RefAddr == "" {
		return nil, nil
	}
	if s.cfg.RuleOwners == nil {
		return nil, fail(CodeInternal, "not-configured", "refAddr", "grants of rule RIDs (scope 1) follow the rule contract's owner(), and this gateway reads no rule contracts (not configured)")
	}
	contract := common.HexToAddress(c.RefAddr)
	owner, rid, err := s.cfg.RuleOwners.RuleOwner(ctx, contract)
	if err != nil {
		return nil, internal("rule contract "+contract.Hex(), err)
	}
	f := &grant.RuleFacts{Contract: strings.ToLower(contract.Hex()), RID: grant.RID(rid)}
	if owner != (common.Address{}) {
		f.Owner = strings.ToLower(owner.Hex())
	}
	return f, nil
}
