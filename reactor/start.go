package reactor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor/wakeup"
	"github.com/xgr-sidecar/xgr/registry"
)

// StartRequest asks for a new session of an orchestration.
type StartRequest struct {
	Owner  string
	XRC729 string
	OstcID string
	// OstcHash pins the orchestration text (hex); empty runs whatever the
	// source serves and records its hash.
	OstcHash       string
	Step           string
	Payload        json.RawMessage
	IdempotencyKey string
	WakeAt         time.Time
	Paused         bool
	Window         int
	// RootPid, when not 0, is the root pid the session must get (a
	// SessionPermit's sessionId): joinstore.ErrStaleRoot otherwise.
	RootPid int64
	// MaxTotalGas is the session's gas budget for its executions (a
	// SessionPermit's maxTotalGas; 0 = none: the operator's ceiling
	// executions.maxSessionGas, which a larger one is clamped to), kept in
	// the session's meta and passed with each execution's scope.
	MaxTotalGas uint64
}

// ErrUnknownStep: a start names a step its orchestration does not have.
var ErrUnknownStep = errors.New("unknown start step")

// Prepared is a start request checked against its orchestration (hash
// pinning, start step): Create makes the session without fetching or
// checking it again.
type Prepared struct {
	req  StartRequest
	orch *registry.Orchestration
}

// Orchestration is the orchestration the session will run.
func (p Prepared) Orchestration() *registry.Orchestration { return p.orch }

// Prepare fetches req's orchestration (pinned by req.OstcHash when set:
// ErrHashMismatch; ErrUnknownOrchestration) and checks its start step
// (ErrUnknownStep). It does not check the payload — CheckStart does, so
// that a caller can check the request's own fields first, once.
func Prepare(ctx context.Context, src Source, req StartRequest) (Prepared, error) {
	var pin common.Hash
	if req.OstcHash != "" {
		b, err := hexHash(req.OstcHash)
		if err != nil {
			return Prepared{}, err
		}
		pin = b
	}
	o, err := src.Orchestration(ctx, req.XRC729, req.OstcID, pin)
	if err != nil {
		return Prepared{}, fmt.Errorf("start %s/%s: %w", req.XRC729, req.OstcID, err)
	}
	if o.Step(req.Step) == nil {
		return Prepared{}, fmt.Errorf("start %s: %w: %q is not a step of %q (steps: %v)", req.OstcID, ErrUnknownStep, req.Step, o.ID, stepIDs(o.Steps))
	}
	return Prepared{req: req, orch: o}, nil
}

// Create makes the prepared session, its root process due at
// req.WakeAt (now when zero) with the start step's limits. The payload
// must have passed CheckStart with the same store: the store does not
// check it again.
func (p Prepared) Create(ctx context.Context, store *joinstore.Store, now time.Time) (joinstore.StartResult, error) {
	req := p.req
	limits := Table(p.orch)[req.Step]
	return store.Start(ctx, joinstore.StartRequest{
		Owner: req.Owner, IdempotencyKey: req.IdempotencyKey, XRC729: req.XRC729, OstcID: req.OstcID,
		OstcHash: p.orch.Hash.Hex(), StartStep: req.Step, Payload: req.Payload, WakeAt: req.WakeAt,
		Paused: req.Paused, Window: req.Window, RootPid: req.RootPid, Now: now, StartLimits: &limits, MaxTotalGas: req.MaxTotalGas,
		PayloadChecked: true,
	})
}

// Start checks a session request — its payload (CheckStart), then
// against its orchestration (hash pinning, start step) — and only then
// creates the session. Each is checked once; a rejected request creates
// no state.
func Start(ctx context.Context, store *joinstore.Store, src Source, req StartRequest, now time.Time) (joinstore.StartResult, error) {
	if err := CheckStart(store, req.Payload); err != nil {
		return joinstore.StartResult{}, fmt.Errorf("start %s: %w", req.OstcID, err)
	}
	p, err := Prepare(ctx, src, req)
	if err != nil {
		return joinstore.StartResult{}, err
	}
	return p.Create(ctx, store, now)
}

// CheckStart checks a start payload as a start on store needs it, every
// check once: the store's size cap and shape (joinstore's
// Store.CheckPayload: ErrPayloadTooLarge naming both sizes, or the JSON
// path of what is refused) and the "__wakeUp" allow list
// (CheckStartPayload). An empty payload is {} and passes.
func CheckStart(store *joinstore.Store, raw json.RawMessage) error {
	if len(raw) == 0 {
		return nil
	}
	if err := store.CheckPayload("the start payload", raw); err != nil {
		return err
	}
	return checkWakeUpList(raw)
}

// CheckStartPayload checks a start payload: a JSON object of the shape
// joinstore.CheckPayloadShape allows (nesting, no duplicate names) whose
// "__wakeUp" allow list, when present, is well formed (every problem named
// with its path), so that a session never starts with a list that would
// silently deny.
func CheckStartPayload(raw json.RawMessage) error {
	if len(raw) == 0 {
		return nil
	}
	if err := joinstore.CheckPayloadShape("the start payload", raw); err != nil {
		return err
	}
	return checkWakeUpList(raw)
}

// checkWakeUpList checks the "__wakeUp" allow list of a payload whose
// shape passed.
func checkWakeUpList(raw json.RawMessage) error {
	p, err := UnmarshalPayload(raw)
	if err != nil || p == nil {
		return fmt.Errorf("payload: want a JSON object (%v)", err)
	}
	if v, ok := p[wakeup.Key]; ok {
		if _, err := wakeup.Parse(v); err != nil {
			return fmt.Errorf("payload.%w", err)
		}
	}
	return nil
}

func hexHash(s string) (common.Hash, error) {
	b := common.FromHex(s)
	if len(b) != 32 {
		return common.Hash{}, fmt.Errorf("ostc hash %q: want 32 bytes of hex (0x + 64 digits)", s)
	}
	return common.BytesToHash(b), nil
}

func stepIDs(steps []*registry.Step) []string {
	ids := make([]string, len(steps))
	for i, s := range steps {
		ids[i] = s.ID
	}
	return ids
}

// Gate decides whether a session's runner (req.Owner) may run it:
// authority.Checker implements it (owner or executor of the XRC-729
// registry and of every rule contract the orchestration's references
// resolve to). o nil asks about the registry alone; reg nil about the
// orchestration's rule contracts alone (a session of a local file). A
// refusal is final for the request; the gate decides and writes nothing.
type Gate interface {
	Authorize(ctx context.Context, runner common.Address, reg *common.Address, o *registry.Orchestration) error
}

// StartGated is Start with gate asked in between: the start payload
// first, then the runner (req.Owner) on the registry (req.XRC729, when it
// is an address), then the orchestration (pinned hash, start step), then
// the runner on everything the orchestration references; only then is the
// session created. A refused start returns the gate's error and creates
// nothing. It is the one call a starter needs (xgr session start --rpc,
// the console, the indexer's trigger starter).
func StartGated(ctx context.Context, store *joinstore.Store, src Source, req StartRequest, now time.Time, gate Gate) (joinstore.StartResult, error) {
	if err := CheckStart(store, req.Payload); err != nil {
		return joinstore.StartResult{}, fmt.Errorf("start %s: %w", req.OstcID, err)
	}
	if !common.IsHexAddress(req.Owner) {
		return joinstore.StartResult{}, fmt.Errorf("start %s: owner %q: the runner must be an account (0x and 40 hex digits)", req.OstcID, req.Owner)
	}
	runner := common.HexToAddress(req.Owner)
	var reg *common.Address
	if common.IsHexAddress(req.XRC729) {
		a := common.HexToAddress(req.XRC729)
		reg = &a
		if err := gate.Authorize(ctx, runner, reg, nil); err != nil {
			return joinstore.StartResult{}, fmt.Errorf("start %s: %w", req.OstcID, err)
		}
	}
	p, err := Prepare(ctx, src, req)
	if err != nil {
		return joinstore.StartResult{}, err
	}
	if err := gate.Authorize(ctx, runner, reg, p.Orchestration()); err != nil {
		return joinstore.StartResult{}, fmt.Errorf("start %s: %w", req.OstcID, err)
	}
	return p.Create(ctx, store, now)
}
