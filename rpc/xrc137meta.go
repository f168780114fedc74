package rpc

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/envelope"
	"github.com/xgr-sidecar/xgr/grant"
)

// RuleReader reads what an XRC-137 contract holds (chain.Rule): its
// document text (an XGR1 envelope when encrypted) and whether it says it
// is encrypted.
type RuleReader interface {
	RuleText(ctx context.Context, contract common.Address) (text string, encrypted bool, err error)
}

// XRC137MetaRequest is the parameter of xgr_getXRC137Meta: the rule
// contract, the reader whose wrapped data key is asked for, and the scope
// (1, rules; 0 is taken as 1).
type XRC137MetaRequest struct {
	Address string `json:"address"`
	Owner   string `json:"owner"`
	Scope   uint8  `json:"scope"`
}

// XRC137Meta is the result of xgr_getXRC137Meta: the rule's RID and XGR1
// envelope, and the data key wrapped for the reader by its live grant with
// its expiry (unix seconds).
type XRC137Meta struct {
	RID    string `json:"rid"`
	Blob   string `json:"blob"`
	EncDEK string `json:"encDEK"`
	Exp    int64  `json:"exp"`
}

// GetXRC137Meta implements xgr_getXRC137Meta. It needs no permit: the
// envelope is public on chain and the wrapped key opens only with the
// reader's own read key. A reader without a live READ grant on the rule's
// RID (scope 1) gets not-found, as for a rule that is not encrypted.
func (s *Service) GetXRC137Meta(ctx context.Context, req XRC137MetaRequest) (*XRC137Meta, error) {
	release, err := s.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	if s.cfg.GrantStore == nil || s.cfg.Rules == nil {
		return nil, fail(CodeInternal, "not-configured", "", "xgr_getXRC137Meta: this gateway keeps no grants or reads no rule contracts (not configured)")
	}
	if !common.IsHexAddress(req.Address) || !strings.HasPrefix(req.Address, "0x") {
		return nil, invalid("address", "want the rule contract as 0x and 40 hex digits")
	}
	reader, err := grant.NormalizeAddress(req.Owner)
	if err != nil {
		return nil, invalid("owner", "%v", err)
	}
	if req.Scope != 0 && req.Scope != grant.ScopeRule {
		return nil, invalid("scope", "%d: rules are scope 1", req.Scope)
	}
	contract := common.HexToAddress(req.Address)
	text, enc, err := s.cfg.Rules.RuleText(ctx, contract)
	if err != nil {
		return nil, internal(fmt.Sprintf("xgr_getXRC137Meta: rule %s", contract.Hex()), err)
	}
	if !enc && !envelope.IsSealed([]byte(text)) {
		return nil, fail(CodeNotFound, "not-encrypted", "address", "rule %s is not encrypted", contract.Hex())
	}
	sealed, err := envelope.ParseSealed(text, envelope.MaxRuleBytes)
	if err != nil {
		var fe *envelope.FormatError
		if errors.As(err, &fe) {
			return nil, fail(CodeNotFound, "bad-envelope", "address", "rule %s says it is encrypted, but its envelope is unusable: %v", contract.Hex(), err)
		}
		return nil, internal("xgr_getXRC137Meta", err)
	}
	rid := grant.RID(sealed.RID)
	g, err := s.cfg.GrantStore.Get(ctx, rid, grant.ScopeRule, reader)
	if err != nil {
		return nil, internal("xgr_getXRC137Meta", err)
	}
	if !grant.MayRead(g, reader, rid, grant.ScopeRule, s.cfg.Now()) || g.EncDEK == "" {
		return nil, fail(CodeNotFound, "no-grant", "owner", "%s holds no live READ grant with a wrapped key on rule %s (rid %s)", reader, contract.Hex(), rid)
	}
	return &XRC137Meta{RID: rid.String(), Blob: text, EncDEK: g.EncDEK, Exp: g.ExpireAt.Unix()}, nil
}
