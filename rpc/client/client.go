// Package client is the Go client of xgr's JSON-RPC gateway: typed calls of
// the xgr_* methods, with the permits each needs built and signed with a
// key (EIP-712, as wallets sign them). Operators and tests use it through
// `xgr rpc …`, the same path dApps take.
package client

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/xgr-sidecar/xgr/rpc"
	"github.com/xgr-sidecar/xgr/rpc/permit"
)

// Client talks to one gateway.
type Client struct {
	c *gethrpc.Client
	// Expiry is how long the permits it signs are valid (default 5 min;
	// gateways refuse expiries past their lifetime cap, 1 h by default).
	Expiry time.Duration
	// Unbound makes Start and Wake sign the reference's SessionPermit and
	// ControlPermit/ControlPermitV2, which do not sign the request's payload,
	// step, registry or process, instead of the bound SessionPermitV2 and
	// ControlPermitV3, and ManageGrants an xdalaPermit instead of a
	// GrantPermit: for gateways that know only the reference's kinds.
	Unbound bool
	// Now is the clock for expiries (nil: time.Now).
	Now func() time.Time

	core    *rpc.CoreAddrs
	chainID *big.Int
}

// Dial connects to an http(s) or ws(s) endpoint.
func Dial(ctx context.Context, url string) (*Client, error) {
	c, err := gethrpc.DialContext(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("rpc endpoint %s: %w", url, err)
	}
	return &Client{c: c, Expiry: 5 * time.Minute}, nil
}

// Close ends the connection.
func (c *Client) Close() { c.c.Close() }

func (c *Client) expiry() *big.Int {
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	return big.NewInt(now().Add(c.Expiry).Unix())
}

// CoreAddrs calls xgr_getCoreAddrs (cached: the chain id and the control
// contract every permit is signed for).
func (c *Client) CoreAddrs(ctx context.Context) (*rpc.CoreAddrs, error) {
	if c.core != nil {
		return c.core, nil
	}
	var out rpc.CoreAddrs
	if err := c.c.CallContext(ctx, &out, "xgr_getCoreAddrs"); err != nil {
		return nil, err
	}
	id, ok := new(big.Int).SetString(strings.TrimPrefix(out.ChainID, "0x"), 16)
	if !ok {
		return nil, fmt.Errorf("xgr_getCoreAddrs: chainId %q is not hex", out.ChainID)
	}
	c.core, c.chainID = &out, id
	return c.core, nil
}

// NextProcessID calls xgr_getNextProcessId.
func (c *Client) NextProcessID(ctx context.Context, from common.Address) (int64, error) {
	var out rpc.NextProcessID
	if err := c.c.CallContext(ctx, &out, "xgr_getNextProcessId", rpc.NextProcessIDRequest{From: from.Hex()}); err != nil {
		return 0, err
	}
	return strconv.ParseInt(out.NextProcessID, 10, 64)
}

// Start asks for the signer's next root id, signs a SessionPermitV2 for it
// (bound to orchestration, step and payload; a SessionPermit with
// Unbound) and starts a session of the orchestration
// (xgr_validateDataTransfer).
func (c *Client) Start(ctx context.Context, key *ecdsa.PrivateKey, orchestration common.Address, ostcID string, ostcHash common.Hash, step string, payload json.RawMessage) (*rpc.DataTransferResult, error) {
	if _, err := c.CoreAddrs(ctx); err != nil {
		return nil, err
	}
	from := crypto.PubkeyToAddress(key.PublicKey)
	next, err := c.NextProcessID(ctx, from)
	if err != nil {
		return nil, err
	}
	m := permit.SessionMsg{From: from, OstcID: ostcID, OstcHash: ostcHash,
		SessionID: big.NewInt(next), MaxTotalGas: new(big.Int), Expiry: c.expiry()}
	var env []byte
	if c.Unbound {
		env, err = permit.SignSession(key, c.chainID, m)
	} else {
		if m.PayloadHash, err = permit.PayloadHash(payload); err != nil {
			return nil, err
		}
		m.Registry, m.StartStep = orchestration, step
		env, err = permit.SignSessionV2(key, c.chainID, m)
	}
	if err != nil {
		return nil, err
	}
	return c.StartWith(ctx, env, orchestration, step, payload)
}

// StartWith calls xgr_validateDataTransfer with a permit signed elsewhere.
func (c *Client) StartWith(ctx context.Context, sessionPermit json.RawMessage, orchestration common.Address, step string, payload json.RawMessage) (*rpc.DataTransferResult, error) {
	var out rpc.DataTransferResult
	err := c.c.CallContext(ctx, &out, "xgr_validateDataTransfer", rpc.DataTransferRequest{
		StepID: step, Payload: payload, Permit: sessionPermit, Orchestration: orchestration.Hex()})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// ControlPermit signs a control permit for a session of runner; v2 makes
// it a ControlPermitV2 (needed when the signer is not the runner).
func (c *Client) ControlPermit(ctx context.Context, key *ecdsa.PrivateKey, runner common.Address, session int64, action permit.Action, step string, v2 bool) (json.RawMessage, error) {
	core, err := c.CoreAddrs(ctx)
	if err != nil {
		return nil, err
	}
	from := crypto.PubkeyToAddress(key.PublicKey)
	if runner == (common.Address{}) {
		runner = from
	}
	return permit.SignControl(key, c.chainID, common.HexToAddress(core.Precompile), permit.ControlMsg{
		From: from, Runner: runner, SessionID: big.NewInt(session), Action: action, StepID: step, Expiry: c.expiry()}, v2)
}

// Kill kills one of the signer's sessions (xgr_control).
func (c *Client) Kill(ctx context.Context, key *ecdsa.PrivateKey, session int64) (*rpc.ControlResult, error) {
	p, err := c.ControlPermit(ctx, key, common.Address{}, session, permit.ActionKill, "", false)
	if err != nil {
		return nil, err
	}
	var out rpc.ControlResult
	if err := c.c.CallContext(ctx, &out, "xgr_control", rpc.ControlRequest{Action: "kill", Permit: p}); err != nil {
		return nil, err
	}
	return &out, nil
}

// WakePermit signs a ControlPermitV3 with action wake for a session of
// runner (zero: the signer), bound to pid ("" in step mode) and payload.
func (c *Client) WakePermit(ctx context.Context, key *ecdsa.PrivateKey, runner common.Address, session int64, pid, step string, payload json.RawMessage) (json.RawMessage, error) {
	core, err := c.CoreAddrs(ctx)
	if err != nil {
		return nil, err
	}
	h, err := permit.PayloadHash(payload)
	if err != nil {
		return nil, err
	}
	return permit.SignControlV3(key, c.chainID, common.HexToAddress(core.Precompile), permit.ControlMsg{
		Runner: runner, SessionID: big.NewInt(session), Action: permit.ActionWake, StepID: step, Pid: pid, PayloadHash: h, Expiry: c.expiry()})
}

// Wake wakes processes of runner's session (xgr_wakeUpProcess): pid
// ("root:iter") in pid mode, else every process waiting on step. It signs
// a ControlPermitV3 bound to pid and payload (with Unbound: a
// ControlPermit, or a ControlPermitV2 when the signer is not runner). A
// signer other than runner must be on the processes' __wakeUp rpc list.
func (c *Client) Wake(ctx context.Context, key *ecdsa.PrivateKey, runner common.Address, session int64, pid, step string, payload json.RawMessage) (*rpc.WakeResult, error) {
	var p json.RawMessage
	var err error
	if c.Unbound {
		from := crypto.PubkeyToAddress(key.PublicKey)
		v2 := runner != (common.Address{}) && runner != from
		p, err = c.ControlPermit(ctx, key, runner, session, permit.ActionWake, step, v2)
	} else {
		p, err = c.WakePermit(ctx, key, runner, session, pid, step, payload)
	}
	if err != nil {
		return nil, err
	}
	var out rpc.WakeResult
	if err := c.c.CallContext(ctx, &out, "xgr_wakeUpProcess", rpc.WakeRequest{ProcessID: pid, Payload: payload, Permit: p}); err != nil {
		return nil, err
	}
	return &out, nil
}

// List lists the signer's sessions (xgr_listSessions, owner mode) with an
// xdalaPermit; req's Permit is set here.
func (c *Client) List(ctx context.Context, key *ecdsa.PrivateKey, req rpc.ListRequest) (*rpc.ListResult, error) {
	if _, err := c.CoreAddrs(ctx); err != nil {
		return nil, err
	}
	p, err := permit.SignXdala(key, c.chainID, permit.XdalaMsg{From: crypto.PubkeyToAddress(key.PublicKey), Expiry: c.expiry()})
	if err != nil {
		return nil, err
	}
	req.Permit = p
	var out rpc.ListResult
	if err := c.c.CallContext(ctx, &out, "xgr_listSessions", req); err != nil {
		return nil, err
	}
	return &out, nil
}

// ListAllowed lists the waiting processes of runner's session the signer
// may wake (xgr_listSessions, allow mode), on step only when step is set.
func (c *Client) ListAllowed(ctx context.Context, key *ecdsa.PrivateKey, runner common.Address, session int64, step string) (*rpc.ListResult, error) {
	p, err := c.ControlPermit(ctx, key, runner, session, permit.ActionWake, step, true)
	if err != nil {
		return nil, err
	}
	var out rpc.ListResult
	req := rpc.ListRequest{Runner: runner.Hex(), RootID: strconv.FormatInt(session, 10), ControlPermit: p}
	if err := c.c.CallContext(ctx, &out, "xgr_listSessions", req); err != nil {
		return nil, err
	}
	return &out, nil
}

// StepExecuted calls xgr_stepExecuted: nil when there is no such process.
func (c *Client) StepExecuted(ctx context.Context, owner common.Address, session int64, iteration uint64) (*bool, error) {
	var out *bool
	err := c.c.CallContext(ctx, &out, "xgr_stepExecuted", owner.Hex(), strconv.FormatInt(session, 10), iteration)
	return out, err
}

// SessionAlive calls xgr_sessionAlive.
func (c *Client) SessionAlive(ctx context.Context, owner common.Address, session int64) (bool, error) {
	var out bool
	err := c.c.CallContext(ctx, &out, "xgr_sessionAlive", owner.Hex(), strconv.FormatInt(session, 10))
	return out, err
}

// StepExecutedOf is StepExecuted for one start: startKey is what the start
// answered (DataTransferResult.StartKey). When the session id names a
// session another start created (Redis lost acknowledged writes), the
// call fails with code -32005 (not-this-start).
func (c *Client) StepExecutedOf(ctx context.Context, owner common.Address, session int64, iteration uint64, startKey string) (*bool, error) {
	var out *bool
	err := c.c.CallContext(ctx, &out, "xgr_stepExecuted", owner.Hex(), strconv.FormatInt(session, 10), iteration, startKey)
	return out, err
}

// SessionAliveOf is SessionAlive for one start (see StepExecutedOf).
func (c *Client) SessionAliveOf(ctx context.Context, owner common.Address, session int64, startKey string) (bool, error) {
	var out bool
	err := c.c.CallContext(ctx, &out, "xgr_sessionAlive", owner.Hex(), strconv.FormatInt(session, 10), startKey)
	return out, err
}

// Raw calls any method with the given parameters (for permits signed
// elsewhere, e.g. by a wallet).
func (c *Client) Raw(ctx context.Context, result any, method string, params ...any) error {
	return c.c.CallContext(ctx, result, method, params...)
}
