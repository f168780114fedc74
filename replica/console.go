package replica

import (
	"context"

	"github.com/xgr-sidecar/xgr/console"
)

// buildConsole builds the operator console of cfg.Console (served by
// serveListeners): it reads what the replica holds and acts through the
// gateway (signed actions) or, with DirectActions, directly.
func (r *Replica) buildConsole(context.Context) error {
	c := r.cfg.Console
	if c == nil {
		return nil
	}
	cfg := console.Config{Store: r.store, Redis: r.rdb, Source: r.source, Rules: r.steps.rules, Gateway: r.gateway, ChainID: r.chainID, Log: r.log,
		Bundles: consoleBundles(r.rdb, r.evidence.bundles, r.evidence.grants), Grants: r.evidence.grants, DirectActions: c.DirectActions, ControlContract: r.cfg.ControlContract}
	if r.chain != nil {
		cfg.Chain, cfg.Index, cfg.Authority = r.chain, r.idx, r.checker
	}
	r.console = console.New(cfg)
	return nil
}
