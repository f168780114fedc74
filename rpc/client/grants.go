package client

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/xgr-sidecar/xgr/rpc"
	"github.com/xgr-sidecar/xgr/rpc/permit"
)

// XdalaPermit signs an xdalaPermit of key's address for the gateway's
// chain (the caller's identity for grants and logs).
func (c *Client) XdalaPermit(ctx context.Context, key *ecdsa.PrivateKey) (json.RawMessage, error) {
	if _, err := c.CoreAddrs(ctx); err != nil {
		return nil, err
	}
	return permit.SignXdala(key, c.chainID, permit.XdalaMsg{From: crypto.PubkeyToAddress(key.PublicKey), Expiry: c.expiry()})
}

// GrantPermit signs a GrantPermit of key's address for the gateway's
// chain, bound to req (its RID, scope, entries and references, see
// rpc.GrantPermitRequest): it authorizes that xgr_manageGrants request and
// no other. req is checked as the gateway checks it.
func (c *Client) GrantPermit(ctx context.Context, key *ecdsa.PrivateKey, req rpc.ManageGrantsRequest) (json.RawMessage, error) {
	bound, err := rpc.GrantPermitRequest(req)
	if err != nil {
		return nil, err
	}
	if _, err := c.CoreAddrs(ctx); err != nil {
		return nil, err
	}
	return permit.SignGrant(key, c.chainID, permit.GrantMsg{From: crypto.PubkeyToAddress(key.PublicKey), RID: bound.RID, Scope: bound.Scope,
		EntriesHash: bound.EntriesHash, Expiry: c.expiry()})
}

// ManageGrants calls xgr_manageGrants signed by key (req.Owner must be
// its address) with a GrantPermit bound to req, or with c.Unbound an
// xdalaPermit (for gateways that predate GrantPermit); req's Permit is set
// here.
func (c *Client) ManageGrants(ctx context.Context, key *ecdsa.PrivateKey, req rpc.ManageGrantsRequest) (*rpc.ManageGrantsResult, error) {
	var p json.RawMessage
	var err error
	if c.Unbound {
		p, err = c.XdalaPermit(ctx, key)
	} else {
		p, err = c.GrantPermit(ctx, key, req)
	}
	if err != nil {
		return nil, err
	}
	req.Permit = p
	return c.ManageGrantsWith(ctx, req)
}

// ManageGrantsWith calls xgr_manageGrants with req as it is, its Permit
// signed by the caller (a wallet, or GrantPermit).
func (c *Client) ManageGrantsWith(ctx context.Context, req rpc.ManageGrantsRequest) (*rpc.ManageGrantsResult, error) {
	var out rpc.ManageGrantsResult
	if err := c.c.CallContext(ctx, &out, "xgr_manageGrants", req); err != nil {
		return nil, err
	}
	return &out, nil
}

// ListGrants calls xgr_listGrants with the filters (the reference's
// members: scope, rid, refAddr, validAt, expireFrom, expireTo, limit,
// cursor; nil values are left out), signed by key.
func (c *Client) ListGrants(ctx context.Context, key *ecdsa.PrivateKey, filters map[string]any) (*rpc.ListGrantsResult, error) {
	p, err := c.XdalaPermit(ctx, key)
	if err != nil {
		return nil, err
	}
	req := map[string]any{"permit": p}
	for k, v := range filters {
		if v != nil {
			req[k] = v
		}
	}
	var out rpc.ListGrantsResult
	if err := c.c.CallContext(ctx, &out, "xgr_listGrants", req); err != nil {
		return nil, err
	}
	return &out, nil
}

// StepLog calls xgr_getStepLog for process pid ("<session>:<iter>" or
// the iteration) of owner's session, signed by key.
func (c *Client) StepLog(ctx context.Context, key *ecdsa.PrivateKey, owner string, session string, pid string) (*rpc.StepLog, error) {
	p, err := c.XdalaPermit(ctx, key)
	if err != nil {
		return nil, err
	}
	return c.StepLogWith(ctx, p, owner, session, pid)
}

// StepLogWith is StepLog with an xdalaPermit signed by the caller (a
// wallet, or XdalaPermit).
func (c *Client) StepLogWith(ctx context.Context, signed json.RawMessage, owner string, session string, pid string) (*rpc.StepLog, error) {
	var out rpc.StepLog
	if err := c.c.CallContext(ctx, &out, "xgr_getStepLog", rpc.StepLogRequest{Owner: owner, SessionID: session, Pid: pid, Permit: signed}); err != nil {
		return nil, err
	}
	return &out, nil
}

// EncryptXRC137 calls xgr_encryptXRC137 signed by key (req.Owner must be
// its address); req's Permit is set here.
func (c *Client) EncryptXRC137(ctx context.Context, key *ecdsa.PrivateKey, req rpc.EncryptXRC137Request) (*rpc.EncryptXRC137Result, error) {
	p, err := c.XdalaPermit(ctx, key)
	if err != nil {
		return nil, err
	}
	req.Permit = p
	var out rpc.EncryptXRC137Result
	if err := c.c.CallContext(ctx, &out, "xgr_encryptXRC137", req); err != nil {
		return nil, err
	}
	return &out, nil
}
