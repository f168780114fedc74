package replica

import (
	"context"
	"math/big"
	"time"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/indexer"
	"github.com/xgr-sidecar/xgr/internal/httpserve"
	"github.com/xgr-sidecar/xgr/rpc"
)

// gatewayStop bounds the gateway's shutdown on Close.
const gatewayStop = 5 * time.Second

// serveGateway serves the xgr_* JSON-RPC gateway of cfg.Gateway (over
// HTTP and WebSocket) for the followed registries; the console passes its
// page's signed actions to it.
func (r *Replica) serveGateway(context.Context) error {
	g := r.cfg.Gateway
	if g == nil {
		return nil
	}
	followed := &indexer.Followed{Index: r.idx}
	if r.cfg.Index != nil {
		followed.Registries, followed.Discover = r.cfg.Index.Config.Registries, r.cfg.Index.Config.Discover
	}
	cfg := rpc.Config{Store: r.store, Source: r.source, Authority: r.checker, Registries: followed, ChainID: new(big.Int).SetUint64(r.chainID),
		Log: r.log, ControlContract: r.cfg.ControlContract, Skew: g.Skew, MaxPermitLifetime: g.MaxPermitLifetime,
		RequireBoundPermits: g.RequireBoundPermits, AllowUnboundGrantPermits: g.AllowUnboundGrantPermits, MaxInFlight: g.MaxInFlight,
		AnyRegistry: g.AnyRegistry}
	if ev := r.evidence; ev.bundles != nil || ev.opener != nil {
		rules := chain.RuleContracts{Backend: r.chain}
		cfg.GrantStore, cfg.Evidence, cfg.Rules, cfg.RuleOwners = ev.grants, ev.bundles, rules, rules
		if ev.keys != nil {
			cfg.ReadKeys = ev.keys
		}
	}
	svc, err := rpc.NewService(cfg)
	if err != nil {
		return &Error{Part: PartGateway, Usage: true, Err: err}
	}
	srv, err := rpc.NewServer(svc, rpc.ServerConfig{CORSOrigins: g.CORSOrigins, MaxBodyBytes: g.MaxBodyBytes})
	if err != nil {
		return &Error{Part: PartGateway, Err: err}
	}
	hs, err := httpserve.Listen(g.Addr, srv, g.Listener)
	if err != nil {
		srv.Stop()
		return &Error{Part: PartListener, Name: g.Listener.Name, Addr: g.Addr, Usage: true, Err: err}
	}
	go func() {
		if err := hs.Serve(); err != nil {
			r.log.Error("JSON-RPC gateway stopped", "err", err)
		}
	}()
	r.onClose(func() error {
		ctx, cancel := context.WithTimeout(context.Background(), gatewayStop)
		defer cancel()
		hs.Shutdown(ctx)
		srv.Stop()
		return nil
	})
	r.gateway, r.url = srv, "http://"+hs.Addr()
	r.log.Info("serving the xgr_* JSON-RPC gateway", "url", r.url, "chainId", cfg.ChainID, "precompile", cfg.ControlContract.Hex(),
		"permitLifetime", cfg.MaxPermitLifetime, "requireBoundPermits", cfg.RequireBoundPermits,
		"unboundGrantPermits", cfg.AllowUnboundGrantPermits && !cfg.RequireBoundPermits)
	return nil
}
