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
	"github.com/xgr-sidecar/xgr/rpc/permit"
	"github.com/xgr-sidecar/xgr/session"
)

func joinstoreNotFound(err error) bool {
	return errors.Is(err, joinstore.ErrNotFound) || errors.Is(err, joinstore.ErrNoSession)
}

// ValidateDataTransfer implements xgr_validateDataTransfer: it starts a
// session of the orchestration under a SessionPermit. Every check runs
// before anything is written: the registry is one the gateway serves, the
// permit (domain, chain id, expiry, signature; a SessionPermitV2 must sign
// this request's registry, step and payload, so a relayed one cannot start
// another), then the start use case (session.Starter) with the permit's
// signer as the runner and its sessionId as the root id: the payload
// (with its __wakeUp allow list), the signer on the XRC-729 registry, the
// permit's ostcId and ostcHash against the hash-verified orchestration,
// the start step, every rule reference resolved as the runtime resolves
// it and the signer on every rule contract. The use case's refusals map to
// gateway errors by startRefusals. The permit's digest is the idempotency
// key, so the permit starts at most one session: a second use is refused
// (CodeReplay, data.ack "already_queued").
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
	reg := common.HexToAddress(req.Orchestration)
	if err := s.served(ctx, reg); err != nil {
		return nil, err
	}
	payload := req.Payload
	if len(payload) == 0 || string(payload) == "null" {
		payload = json.RawMessage("{}")
	}
	v, err := s.verifyFor(req.Permit, "permit", &permit.Request{Registry: reg, Step: req.StepID, Payload: payload},
		permit.KindSession, permit.KindSessionV2)
	if err != nil {
		return nil, err
	}
	m := v.Session
	who := owner(v.Signer)
	res, err := s.starter().Start(ctx, session.Request{Owner: who, Registry: reg.Hex(), OstcID: m.OstcID, OstcHash: m.OstcHash.Hex(),
		Step: req.StepID, Payload: payload, Key: "permit:" + v.Digest.Hex(), RootPid: v.SessionID, MaxTotalGas: gasBudget(m.MaxTotalGas)})
	if err != nil {
		return nil, s.startError(ctx, err, who, v.SessionID)
	}
	if res.Replayed() {
		e := fail(CodeReplay, "permit-reused", "permit",
			"this SessionPermit already started session %d of %s; a permit starts one session", res.Root.RootPid, who)
		e.Extra = map[string]any{"ack": res.Ack, "processId": res.Pid}
		return nil, e
	}
	// maxTotalGas is kept with the session: its gas budget (validation gas
	// and execution gas, joinstore.Config.GasCeiling; the executions'
	// reservations, executions.maxSessionGas).
	s.cfg.Log.Info("session started over RPC", "owner", who, "session", res.Root.RootPid, "ostc", m.OstcID, "step", req.StepID, "ack", res.Ack,
		"permit", v.Kind, "maxTotalGas", m.MaxTotalGas)
	return &DataTransferResult{
		ProcessID: res.Pid, SessionID: strconv.FormatInt(res.Root.RootPid, 10), Owner: who, Ack: res.Ack,
		ExecutedSteps: []json.RawMessage{}, Payload: payload, OutputPayload: json.RawMessage("{}"),
		OstcID: m.OstcID, OstcHash: res.Orchestration.Hash.Hex(), StartKey: res.Key,
	}, nil
}

// starter is the start use case of the gateway's store, source and
// authority (whose resolver is the runtime's).
func (s *Service) starter() session.Starter {
	return session.Starter{Store: s.cfg.Store, Source: s.cfg.Source, Authority: s.cfg.Authority, Now: s.cfg.Now}
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
// operator's ceilings: XGR_SESSION_GAS_CEILING for the gas the session
// uses, executions.maxSessionGas for its executions' reservations) when
// absent, and a budget beyond 2^64-1 gas is the largest one (clamped to
// the ceilings).
func gasBudget(v *big.Int) uint64 {
	switch {
	case v == nil || v.Sign() <= 0:
		return 0
	case !v.IsUint64():
		return math.MaxUint64
	}
	return v.Uint64()
}
