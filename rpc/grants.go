package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/grant"
	"github.com/xgr-sidecar/xgr/rpc/permit"
)

// ManageGrantsRequest is the parameter of xgr_manageGrants: upsert (rights
// > 0) or revoke (rights 0) grants of one (rid, scope), signed by Owner
// with a GrantPermit bound to this request (see GrantPermitRequest), or
// where the gateway allows it with an xdalaPermit.
type ManageGrantsRequest struct {
	RID string `json:"rid"`
	// Scope is 1 (rules) or 2 (logs), a number or a decimal string.
	Scope   json.RawMessage `json:"scope"`
	Owner   string          `json:"owner"`
	Entries []GrantEntry    `json:"entries"`
	Permit  json.RawMessage `json:"permit"`
	// RefAddr (rule contract), SessionID and TxHash (an xgr extension) are
	// the references the written grants record.
	RefAddr   string          `json:"refAddr,omitempty"`
	SessionID json.RawMessage `json:"sessionId,omitempty"`
	TxHash    string          `json:"txHash,omitempty"`
}

// GrantEntry is one grant of xgr_manageGrants; Rights 0 revokes.
type GrantEntry struct {
	Grantee string `json:"grantee"`
	Rights  uint8  `json:"rights"`
	// ExpireAt is unix seconds.
	ExpireAt uint64 `json:"expireAt"`
	EncDEK   string `json:"encDEK,omitempty"`
	IsOwner  bool   `json:"isOwner,omitempty"`
}

// ManageGrantsResult is the result of xgr_manageGrants. Revoked is an xgr
// extension.
type ManageGrantsResult struct {
	Upserted int `json:"upserted"`
	Revoked  int `json:"revoked"`
}

// ListGrantsResult is the result of xgr_listGrants: NextCursor 0 when
// the page is the last.
type ListGrantsResult struct {
	Items      []GrantItem `json:"items"`
	NextCursor int64       `json:"nextCursor"`
}

// GrantItem is one listed grant (the reference's shape).
type GrantItem struct {
	ID        int64  `json:"id"`
	RID       string `json:"rid"`
	Scope     uint8  `json:"scope"`
	Grantee   string `json:"grantee"`
	Owner     string `json:"owner"`
	Rights    uint8  `json:"rights"`
	EncDEK    string `json:"encDEK"`
	ExpiresAt int64  `json:"expiresAt"`
	IsOwner   bool   `json:"isOwner"`
	TxHash    string `json:"txHash"`
	RefAddr   string `json:"refAddr"`
	SessionID string `json:"sessionId"`
}

func notConfigured(method string) *Error {
	return fail(CodeInternal, "not-configured", "", "%s: this gateway keeps no grants or log bundles (not configured)", method)
}

// ManageGrants implements xgr_manageGrants: the request is checked, then
// the permit, whose signer must be Owner: a GrantPermit that signs the
// request's RID, scope and entries (GrantPermitRequest), or, only with
// Config.AllowUnboundGrantPermits, an xdalaPermit. Then the change is decided
// on the RID's grants (package grant: the RID's owner grants anything but
// another owner grant; a grant with MANAGE grants no more than it holds;
// a rule RID (scope 1) is owned by the owner() of the rule contract that
// holds it, named by refAddr) and written at once.
// A refused change writes nothing and costs the signer's refusal budget.
func (s *Service) ManageGrants(ctx context.Context, req ManageGrantsRequest) (*ManageGrantsResult, error) {
	release, err := s.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	if s.cfg.GrantStore == nil {
		return nil, notConfigured("xgr_manageGrants")
	}
	c, err := grantChange(req)
	if err != nil {
		return nil, err
	}
	v, err := s.verifyGrantPermit(req.Permit, grantPermitRequest(c))
	if err != nil {
		return nil, err
	}
	done, err := s.budget(v.Signer)
	if err != nil {
		return nil, err
	}
	out, err := s.manage(ctx, c, v)
	done(err)
	return out, err
}

func (s *Service) manage(ctx context.Context, c grant.Change, v *permit.Verified) (*ManageGrantsResult, error) {
	if owner(v.Signer) != c.Actor {
		return nil, fail(CodeUnauthorized, "owner-mismatch", "owner", "%s differs from the permit's signer %s: the grant owner signs", c.Actor, owner(v.Signer))
	}
	rule, ferr := s.ruleFacts(ctx, c)
	if ferr != nil {
		return nil, ferr
	}
	once := v.Kind == permit.KindGrant
	if once {
		// A GrantPermit makes its one change once: a replay (say, of a
		// grant the owner has revoked since) is refused while the permit
		// lives; a change that writes nothing gives the claim back.
		fresh, err := s.cfg.GrantStore.ClaimPermit(ctx, c.RID, c.Scope, v.Digest, v.Expiry.Sub(s.cfg.Now()))
		if err != nil {
			return nil, internal("grants", err)
		}
		if !fresh {
			return nil, fail(CodeConflict, "permit-used", "permit", "this GrantPermit (digest %s) has made its change already; a GrantPermit changes grants once: sign a new one", v.Digest.Hex())
		}
	}
	plan, err := s.cfg.GrantStore.ApplyRule(ctx, c, rule, s.cfg.Now())
	if err != nil && once {
		s.cfg.GrantStore.ReleasePermit(context.WithoutCancel(ctx), c.RID, c.Scope, v.Digest)
	}
	var r *grant.Refusal
	switch {
	case errors.As(err, &r) && strings.HasPrefix(r.Reason, "invalid-"):
		return nil, invalid(r.Path, "%s", r.Msg)
	case errors.As(err, &r):
		return nil, fail(CodeUnauthorized, r.Reason, r.Path, "%s", r.Msg)
	case errors.Is(err, grant.ErrStale):
		return nil, fail(CodeConflict, "stale", "", "%v", err)
	case err != nil:
		return nil, internal("grants", err)
	}
	out := &ManageGrantsResult{}
	for _, w := range plan.Writes {
		if w.Delete {
			out.Revoked++
		} else {
			out.Upserted++
		}
	}
	s.cfg.Log.Info("grants changed over RPC", "rid", c.RID, "scope", c.Scope, "by", c.Actor, "upserted", out.Upserted, "revoked", out.Revoked)
	return out, nil
}

// requireBoundGrants reports whether xgr_manageGrants refuses the unbound
// xdalaPermit.
func (s *Service) requireBoundGrants() bool {
	return s.cfg.RequireBoundPermits || !s.cfg.AllowUnboundGrantPermits
}

// verifyGrantPermit checks xgr_manageGrants's permit against the request
// it must be bound to: a GrantPermit, or where allowed an xdalaPermit.
func (s *Service) verifyGrantPermit(raw json.RawMessage, req *permit.Request) (*permit.Verified, error) {
	if len(raw) == 0 || string(raw) == "null" {
		if s.requireBoundGrants() {
			return nil, invalid("permit", "required: a GrantPermit bound to this request (EIP-712 typed data with its signature; see docs/rpc.md#grantpermit)")
		}
		return nil, invalid("permit", "required: a GrantPermit or xdalaPermit (EIP-712 typed data with its signature)")
	}
	want := s.expect("permit", permit.KindGrant, permit.KindXdala)
	want.RequireBound, want.Request = s.requireBoundGrants(), req
	v, err := permit.Verify(raw, want)
	if err != nil {
		note := "xgr_manageGrants requires a GrantPermit unless the operator sets --rpc-allow-unbound-grant-permits, XGR_RPC_ALLOW_UNBOUND_GRANT_PERMITS"
		if s.cfg.RequireBoundPermits {
			note = "the gateway runs with --rpc-require-bound-permits, XGR_RPC_REQUIRE_BOUND_PERMITS"
		}
		return nil, permitErrorFor(err, note)
	}
	return v, nil
}

// GrantPermitRequest checks req's form as xgr_manageGrants does and
// returns what a GrantPermit for it signs: its RID, scope and
// permit.EntriesHash of its entries (in order, as sent) and references
// (refAddr, sessionId, txHash; zero when absent). Permit is ignored.
func GrantPermitRequest(req ManageGrantsRequest) (*permit.Request, error) {
	c, err := grantChange(req)
	if err != nil {
		return nil, err
	}
	return grantPermitRequest(c), nil
}

// grantPermitRequest is what a GrantPermit signs of a checked change.
func grantPermitRequest(c grant.Change) *permit.Request {
	es := make([]permit.GrantEntry, len(c.Entries))
	for i, e := range c.Entries {
		es[i] = permit.GrantEntry{Grantee: common.HexToAddress(e.Grantee), Rights: e.Rights, ExpireAt: uint64(e.ExpireAt.Unix()),
			EncDEK: e.EncDEK, IsOwner: e.IsOwner}
	}
	var refs permit.GrantRefs
	if c.RefAddr != "" {
		refs.RefAddr = common.HexToAddress(c.RefAddr)
	}
	if c.SessionID != "" {
		refs.SessionID, _ = strconv.ParseUint(c.SessionID, 10, 64) // grantChange wrote it from a positive int64
	}
	if c.TxHash != "" {
		refs.TxHash = common.HexToHash(c.TxHash)
	}
	return &permit.Request{RID: common.Hash(c.RID), Scope: c.Scope, EntriesHash: permit.EntriesHash(es, refs)}
}

// grantChange checks a request's form (before its permit is verified).
func grantChange(req ManageGrantsRequest) (grant.Change, error) {
	var c grant.Change
	rid, err := grant.ParseRID(req.RID)
	if err != nil {
		return c, invalid("rid", "%v", err)
	}
	scope, err := scopeOf(req.Scope)
	if err != nil {
		return c, invalid("scope", "%v", err)
	}
	who, err := grant.NormalizeAddress(req.Owner)
	if err != nil {
		return c, invalid("owner", "%v", err)
	}
	if len(req.Entries) == 0 || len(req.Entries) > grant.MaxEntries {
		return c, invalid("entries", "%d entries: want 1..%d", len(req.Entries), grant.MaxEntries)
	}
	c = grant.Change{RID: rid, Scope: scope, Actor: who}
	if req.RefAddr != "" {
		if c.RefAddr, err = grant.NormalizeAddress(req.RefAddr); err != nil {
			return c, invalid("refAddr", "%v", err)
		}
	}
	if len(req.SessionID) > 0 && string(req.SessionID) != "null" {
		var n sessionNumber
		if err := n.UnmarshalJSON(req.SessionID); err != nil {
			return c, invalid("sessionId", "%v", err)
		}
		c.SessionID = strconv.FormatInt(int64(n), 10)
	}
	if req.TxHash != "" {
		if _, err := grant.ParseRID(req.TxHash); err != nil {
			return c, invalid("txHash", "want 0x and 64 hex digits, got %q", clip(req.TxHash))
		}
		c.TxHash = strings.ToLower(req.TxHash)
	}
	for i, e := range req.Entries {
		a, err := grant.NormalizeAddress(e.Grantee)
		if err != nil {
			return c, invalid(fmt.Sprintf("entries[%d].grantee", i), "%v", err)
		}
		if e.ExpireAt > 1<<40 {
			return c, invalid(fmt.Sprintf("entries[%d].expireAt", i), "%d: want unix seconds", e.ExpireAt)
		}
		c.Entries = append(c.Entries, grant.Entry{Grantee: a, Rights: e.Rights, ExpireAt: time.Unix(int64(e.ExpireAt), 0),
			EncDEK: e.EncDEK, IsOwner: e.IsOwner})
	}
	return c, nil
}

// scopeOf reads a scope: 1 or 2, as a number or a decimal string.
func scopeOf(raw json.RawMessage) (uint8, error) {
	s := strings.Trim(string(raw), `"`)
	if s != "1" && s != "2" {
		return 0, fmt.Errorf("want 1 (rules) or 2 (logs), got %s", clip(string(raw)))
	}
	return uint8(s[0] - '0'), nil
}

// ListGrants implements xgr_listGrants: the grants visible to the
// xdalaPermit's signer, with the reference's filters (scope, rid, refAddr,
// validAt, expireFrom, expireTo), at most limit per page (default 100,
// cap 500) and the cursor of the previous page. Visible are the signer's
// own live grants; with rid and scope, the RID's owner and managers see
// every live grant of it. Filters are checked before the permit.
func (s *Service) ListGrants(ctx context.Context, raw json.RawMessage) (*ListGrantsResult, error) {
	release, err := s.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	if s.cfg.GrantStore == nil {
		return nil, notConfigured("xgr_listGrants")
	}
	f, err := grant.ParseFilter(raw)
	if err != nil {
		return nil, invalid("", "%v", err)
	}
	var req struct {
		Permit json.RawMessage `json:"permit"`
	}
	if err := json.Unmarshal(raw, &req); err != nil {
		return nil, invalid("permit", "%v", err)
	}
	v, err := s.verify(req.Permit, "permit", permit.KindXdala)
	if err != nil {
		return nil, err
	}
	page, err := s.cfg.GrantStore.List(ctx, owner(v.Signer), f, s.cfg.Now())
	if err != nil {
		return nil, internal("grants", err)
	}
	out := &ListGrantsResult{Items: make([]GrantItem, len(page.Items)), NextCursor: page.NextCursor}
	for i, g := range page.Items {
		out.Items[i] = GrantItem{ID: g.ID, RID: g.RID.String(), Scope: g.Scope, Grantee: g.Grantee, Owner: g.Owner, Rights: g.Rights,
			EncDEK: g.EncDEK, ExpiresAt: g.ExpireAt.Unix(), IsOwner: g.IsOwner, TxHash: g.TxHash, RefAddr: g.RefAddr, SessionID: g.SessionID}
	}
	return out, nil
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
