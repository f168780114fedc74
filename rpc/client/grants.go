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

// ManageGrants calls xgr_manageGrants signed by key (req.Owner must be
// its address); req's Permit is set here.
func (c *Client) ManageGrants(ctx context.Context, key *ecdsa.PrivateKey, req rpc.ManageGrantsRequest) (*rpc.ManageGrantsResult, error) {
	p, err := c.XdalaPermit(ctx, key)
	if err != nil {
		return nil, err
	}
	req.Permit = p
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
	var out rpc.StepLog
	if err := c.c.CallContext(ctx, &out, "xgr_getStepLog", rpc.StepLogRequest{Owner: owner, SessionID: session, Pid: pid, Permit: p}); err != nil {
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
