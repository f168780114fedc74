package reactor

import (
	"context"
	"encoding/json"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/joinstore"
)

// StartRequest is a session the tests of this package start.
type StartRequest struct {
	Owner, XRC729, OstcID, Step string
	Payload                     json.RawMessage
	IdempotencyKey              string
	WakeAt                      time.Time
}

// Start starts a session in the tests of this package, which cannot call
// the start use case (package session imports reactor): the orchestration
// from src, the store's own payload checks, the start step's limits. The
// use case's checks are package session's tests.
func Start(ctx context.Context, store *joinstore.Store, src Source, req StartRequest, now time.Time) (joinstore.StartResult, error) {
	o, err := src.Orchestration(ctx, req.XRC729, req.OstcID, common.Hash{})
	if err != nil {
		return joinstore.StartResult{}, err
	}
	limits := Table(o)[req.Step]
	return store.Start(ctx, joinstore.StartRequest{Owner: req.Owner, IdempotencyKey: req.IdempotencyKey, XRC729: req.XRC729, OstcID: req.OstcID,
		OstcHash: o.Hash.Hex(), StartStep: req.Step, Payload: req.Payload, WakeAt: req.WakeAt, Now: now, StartLimits: &limits})
}
