package authority

import (
	"context"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
)

// Start is reactor.Start with the runner's authority checked in between:
// the start payload first, then the runner (req.Owner) on the registry
// (req.XRC729, when it is an address), then the orchestration (pinned
// hash, start step), then the runner on every rule contract the
// orchestration references; only then is the session created. A refused
// start returns an *Error and creates nothing. It is the one call a
// starter needs (the CLI's session start; the indexer's trigger starter).
func (c *Checker) Start(ctx context.Context, store *joinstore.Store, src reactor.Source, req reactor.StartRequest, now time.Time) (joinstore.StartResult, error) {
	if err := reactor.CheckStart(store, req.Payload); err != nil {
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
		if err := c.Authorize(ctx, runner, reg, nil); err != nil {
			return joinstore.StartResult{}, fmt.Errorf("start %s: %w", req.OstcID, err)
		}
	}
	p, err := reactor.Prepare(ctx, src, req)
	if err != nil {
		return joinstore.StartResult{}, err
	}
	if err := c.Authorize(ctx, runner, reg, p.Orchestration()); err != nil {
		return joinstore.StartResult{}, fmt.Errorf("start %s: %w", req.OstcID, err)
	}
	return p.Create(ctx, store, now)
}
