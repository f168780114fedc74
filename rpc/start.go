package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"strconv"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/rpc/permit"
)

func joinstoreNotFound(err error) bool {
	return errors.Is(err, joinstore.ErrNotFound) || errors.Is(err, joinstore.ErrNoSession)
}

// ValidateDataTransfer implements xgr_validateDataTransfer: it starts a
// session of the orchestration under a SessionPermit. Every check runs
// before anything is written: the permit (domain, chain id, expiry,
// signature), its signer (the session's runner) against the XRC-729
// registry's owner and executor list, its ostcId and ostcHash against the
// hash-verified orchestration, the start step, the runner against the
// owner and executor list of every rule contract the orchestration
// references, the payload (with its __wakeUp allow list), and its
// sessionId against the signer's next root id. A SessionPermitV2 must sign this request's
// registry, step and payload (a relayed one cannot start another). The
// session is created with that id; the permit's
// digest is its idempotency key, so the permit starts at most one session:
// a second use is refused (CodeReplay, data.ack "already_queued").
func (s *Service) ValidateDataTransfer(ctx context.Context, req DataTransferRequest) (*DataTransferResult, error) {
	release, err := s.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	if !common.IsHexAddress(req.Orchestration) {
		return nil, invalid("orchestration", "want the XRC-729 contract's address (0x and 40 hex digits), got %q", req.Orchestration)
	}
	if req.StepID == "" {
		return nil, invalid("stepId", "required: the step the session starts at")
	}
	if err := s.served(ctx, common.HexToAddress(req.Orchestration)); err != nil {
		return nil, err
	}
	payload := req.Payload
	if len(payload) == 0 || string(payload) == "null" {
		payload = json.RawMessage("{}")
	}
	// Over the cap, of a refused shape or with a malformed __wakeUp list
	// is the caller's error (invalid params, naming the cap), not the
	// gateway's: a retry cannot help. Checked here, once: Create does not
	// check it again.
	if err := reactor.CheckStart(s.cfg.Store, payload); err != nil {
		return nil, invalid("payload", "%v", err)
	}
	v, err := s.verifyFor(req.Permit, "permit", &permit.Request{Registry: common.HexToAddress(req.Orchestration), Step: req.StepID, Payload: payload},
		permit.KindSession, permit.KindSessionV2)
	if err != nil {
		return nil, err
	}
	m := v.Session
	reg := common.HexToAddress(req.Orchestration)
	// The registry first, before its orchestration is read: a signer
	// that is neither its owner nor its executor costs no more.
	if err := s.cfg.Authority.Authorize(ctx, v.Signer, &reg, nil); err != nil {
		return nil, authorityError(err)
	}
	who := owner(v.Signer)
	// The payload passed CheckStart above: fetch and check the
	// orchestration once, then create.
	prep, err := reactor.Prepare(ctx, s.cfg.Source, reactor.StartRequest{
		Owner: who, XRC729: reg.Hex(), OstcID: m.OstcID, OstcHash: m.OstcHash.Hex(), Step: req.StepID,
		Payload: payload, IdempotencyKey: "permit:" + v.Digest.Hex(), RootPid: v.SessionID, MaxTotalGas: gasBudget(m.MaxTotalGas),
	})
	switch {
	case errors.Is(err, reactor.ErrUnknownOrchestration):
		return nil, fail(CodeNotFound, "unknown-orchestration", "permit.message.ostcId", "%v", err)
	case errors.Is(err, reactor.ErrHashMismatch):
		return nil, fail(CodeConflict, "ostc-hash-mismatch", "permit.message.ostcHash", "%v", err)
	case errors.Is(err, reactor.ErrUnknownStep):
		return nil, invalid("stepId", "%q is not a step of orchestration %q", req.StepID, m.OstcID)
	case err != nil:
		return nil, internal("orchestration", err)
	}
	o := prep.Orchestration()
	// Then every rule contract the orchestration references.
	if err := s.cfg.Authority.Authorize(ctx, v.Signer, &reg, o); err != nil {
		return nil, authorityError(err)
	}
	res, err := prep.Create(ctx, s.cfg.Store, s.cfg.Now())
	switch {
	case errors.Is(err, joinstore.ErrStaleRoot):
		next, _ := s.cfg.Store.NextRootPid(ctx, who)
		e := fail(CodeConflict, "stale-session-id", "permit.message.sessionId",
			"%d is not the signer's next root session id (%d): sign a permit for xgr_getNextProcessId's value", v.SessionID, next)
		e.Extra = map[string]any{"next": strconv.FormatInt(next, 10)}
		return nil, e
	case err != nil:
		return nil, internal("start", err)
	}
	if res.Ack == "already_queued" {
		e := fail(CodeReplay, "permit-reused", "permit",
			"this SessionPermit already started session %d of %s; a permit starts one session", res.Root.RootPid, who)
		e.Extra = map[string]any{"ack": res.Ack, "processId": res.Pid}
		return nil, e
	}
	// maxTotalGas is kept with the session: its executions' gas budget.
	s.cfg.Log.Info("session started over RPC", "owner", who, "session", res.Root.RootPid, "ostc", m.OstcID, "step", req.StepID, "ack", res.Ack,
		"permit", v.Kind, "maxTotalGas", m.MaxTotalGas)
	return &DataTransferResult{
		ProcessID: res.Pid, SessionID: strconv.FormatInt(res.Root.RootPid, 10), Owner: who, Ack: res.Ack,
		ExecutedSteps: []json.RawMessage{}, Payload: payload, OutputPayload: json.RawMessage("{}"),
		OstcID: m.OstcID, OstcHash: o.Hash.Hex(), StartKey: res.StartKey,
	}, nil
}

// served refuses a registry the gateway does not serve: one the indexer
// does not follow, unless AnyRegistry. It runs before the permit is
// checked and before the chain is asked who may run the registry.
func (s *Service) served(ctx context.Context, reg common.Address) error {
	if s.cfg.AnyRegistry {
		return nil
	}
	ok, err := s.cfg.Registries.Follows(ctx, reg)
	if err != nil {
		return internal("registries", err)
	}
	if !ok {
		e := fail(CodeRegistryNotServed, "registry-not-served", "orchestration",
			"XRC-729 %s is not a registry this gateway serves: it starts sessions of followed registries only; the operator allows it by adding it to registries in the --config file (or discover: true for registries that announce themselves), or serves every registry with --rpc-any-registry",
			reg.Hex())
		e.Extra = map[string]any{"registry": reg.Hex()}
		return e
	}
	return nil
}

// gasBudget is a permit's maxTotalGas as the session's gas budget: 0 (the
// operator's ceiling, executions.maxSessionGas) when absent, and a budget
// beyond 2^64-1 gas is the largest one (clamped to the ceiling when an
// execution reserves).
func gasBudget(v *big.Int) uint64 {
	switch {
	case v == nil || v.Sign() <= 0:
		return 0
	case !v.IsUint64():
		return math.MaxUint64
	}
	return v.Uint64()
}
