package main

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/replica"
	"github.com/xgr-sidecar/xgr/rpc/permit"
)

// DefaultPrecompile is the control-domain verifyingContract xgr reports
// and ControlPermits are checked against, unless --rpc-precompile names
// another (the XDaLa engine's precompile address of the chain, for
// permits signed for it).
const DefaultPrecompile = "0x0000000000000000000000000000000000000729"

// gatewayFlags are the JSON-RPC gateway's flags; listen is the default of
// --rpc-listen ("" = off).
func gatewayFlags(listen string) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "rpc-listen", Value: listen, EnvVars: []string{"XGR_RPC_LISTEN"}, Usage: "serve the xgr_* JSON-RPC gateway (HTTP and WebSocket) on this address (empty: off)"},
		&cli.StringSliceFlag{Name: "rpc-cors", EnvVars: []string{"XGR_RPC_CORS"}, Usage: "browser origins allowed to call the gateway (repeatable; * for any)"},
		&cli.StringFlag{Name: "rpc-precompile", Value: DefaultPrecompile, EnvVars: []string{"XGR_RPC_PRECOMPILE"}, Usage: "control-domain verifyingContract of ControlPermits"},
		&cli.DurationFlag{Name: "rpc-skew", Value: 30 * time.Second, EnvVars: []string{"XGR_RPC_SKEW"}, Usage: "clock skew allowed on permit expiries"},
		&cli.DurationFlag{Name: "rpc-permit-lifetime", Value: permit.DefaultMaxLifetime, EnvVars: []string{"XGR_RPC_PERMIT_LIFETIME"}, Usage: "refuse permits whose expiry lies further in the future (beyond now plus --rpc-skew); at most 720h"},
		&cli.BoolFlag{Name: "rpc-require-bound-permits", EnvVars: []string{"XGR_RPC_REQUIRE_BOUND_PERMITS"}, Usage: "refuse the unbound SessionPermit and wake ControlPermit/V2: starts need a SessionPermitV2, wakes a ControlPermitV3"},
		&cli.BoolFlag{Name: "rpc-allow-unbound-grant-permits", EnvVars: []string{"XGR_RPC_ALLOW_UNBOUND_GRANT_PERMITS"}, Usage: "let xgr_manageGrants take an xdalaPermit (which signs no RID, scope or entries: a relayed read permit then also writes grants) besides the bound GrantPermit; ignored with --rpc-require-bound-permits"},
		&cli.IntFlag{Name: "rpc-max-body", Value: 1 << 20, EnvVars: []string{"XGR_RPC_MAX_BODY"}, Usage: "largest request body or websocket message in bytes"},
		&cli.BoolFlag{Name: "rpc-any-registry", EnvVars: []string{"XGR_RPC_ANY_REGISTRY"}, Usage: "start sessions of every XRC-729 registry on the chain, not only the followed ones (--config registries, discover)"},
		&cli.IntFlag{Name: "rpc-max-inflight", Value: 16, EnvVars: []string{"XGR_RPC_MAX_INFLIGHT"}, Usage: "requests one connection may have in flight"},
		&cli.IntFlag{Name: "rpc-max-conns", Value: gatewayMaxConns, EnvVars: []string{"XGR_RPC_MAX_CONNS"}, Usage: "connections the gateway keeps open at once (half of them may be websockets)"},
	}
}

// gatewayOf is the gateway of --rpc-listen and its flags (nil when
// --rpc-listen is empty).
func gatewayOf(c *cli.Context) (*replica.Gateway, error) {
	addr := c.String("rpc-listen")
	if addr == "" {
		return nil, nil
	}
	if pre := c.String("rpc-precompile"); !common.IsHexAddress(pre) {
		return nil, cli.Exit(fmt.Sprintf("--rpc-precompile %q: want an address (0x and 40 hex digits)", pre), 2)
	}
	if c.Int("rpc-max-body") < 1024 || c.Int("rpc-max-inflight") < 1 {
		return nil, cli.Exit("--rpc-max-body must be at least 1024 and --rpc-max-inflight at least 1", 2)
	}
	g := &replica.Gateway{Addr: addr, Listener: listenerConfig(c, "rpc-listen"), CORSOrigins: c.StringSlice("rpc-cors"), MaxBodyBytes: c.Int("rpc-max-body"),
		MaxInFlight: c.Int("rpc-max-inflight"), Skew: c.Duration("rpc-skew"), MaxPermitLifetime: c.Duration("rpc-permit-lifetime"),
		RequireBoundPermits: c.Bool("rpc-require-bound-permits"), AllowUnboundGrantPermits: c.Bool("rpc-allow-unbound-grant-permits"),
		AnyRegistry: c.Bool("rpc-any-registry")}
	g.Listener.MaxConns = c.Int("rpc-max-conns")
	if g.AllowUnboundGrantPermits && !g.RequireBoundPermits {
		slog.Warn("--rpc-allow-unbound-grant-permits: xgr_manageGrants takes xdalaPermits, so whoever relays a signer's read permit can also write grants on its RIDs")
	}
	if g.AnyRegistry {
		slog.Warn("--rpc-any-registry: the gateway starts sessions of every XRC-729 registry on the chain, not only the followed ones")
	}
	return g, nil
}

// controlContract is the control-domain verifyingContract of
// --rpc-precompile (the default when it is not an address).
func controlContract(c *cli.Context) common.Address {
	if pre := c.String("rpc-precompile"); common.IsHexAddress(pre) {
		return common.HexToAddress(pre)
	}
	return common.HexToAddress(DefaultPrecompile)
}
