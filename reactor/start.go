package reactor

import (
	"context"
	"encoding/json"
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
}

// Start checks a session request against its orchestration — hash pinning,
// start step — and only then creates the session. A rejected request
// creates no state.
func Start(ctx context.Context, store *joinstore.Store, src Source, req StartRequest, now time.Time) (joinstore.StartResult, error) {
	var pin common.Hash
	if req.OstcHash != "" {
		b, err := hexHash(req.OstcHash)
		if err != nil {
			return joinstore.StartResult{}, err
		}
		pin = b
	}
	o, err := src.Orchestration(ctx, req.XRC729, req.OstcID, pin)
	if err != nil {
		return joinstore.StartResult{}, fmt.Errorf("start %s/%s: %w", req.XRC729, req.OstcID, err)
	}
	if o.Step(req.Step) == nil {
		return joinstore.StartResult{}, fmt.Errorf("start %s: step %q is not a step of %q (steps: %v)", req.OstcID, req.Step, o.ID, stepIDs(o.Steps))
	}
	if err := CheckStartPayload(req.Payload); err != nil {
		return joinstore.StartResult{}, fmt.Errorf("start %s: %w", req.OstcID, err)
	}
	limits := Table(o)[req.Step]
	return store.Start(ctx, joinstore.StartRequest{
		Owner: req.Owner, IdempotencyKey: req.IdempotencyKey, XRC729: req.XRC729, OstcID: req.OstcID,
		OstcHash: o.Hash.Hex(), StartStep: req.Step, Payload: req.Payload, WakeAt: req.WakeAt,
		Paused: req.Paused, Window: req.Window, RootPid: req.RootPid, Now: now, StartLimits: &limits,
	})
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
