package rpc_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/xgr-sidecar/xgr/authority"
	"github.com/xgr-sidecar/xgr/indexer"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/rpc"
)

// other is an XRC-729 registry the gateway does not follow (owned by the
// same key as the followed one).
var other = common.HexToAddress("0x00000000000000000000000000000000000007e5")

// The gateway starts sessions of followed registries only: a start naming
// another is refused with its own code before the permit's signer is
// checked against the chain, and writes nothing; --rpc-any-registry
// (AnyRegistry) opens every registry.
func TestStartOnlyFollowedRegistries(t *testing.T) {
	ctx := context.Background()
	g := newGateway(t, rpc.ServerConfig{})
	owner := g.keys[0]
	g.owners.m[other] = addr(owner)

	before, lookups := g.keys0(), g.owners.calls.Load()
	_, err := g.client.StartWith(ctx, g.sessionPermit(owner, 1, nil), other, "A1", json.RawMessage(`{"n": 1}`))
	refused(t, err, rpc.CodeRegistryNotServed, "registry-not-served")
	if !strings.Contains(err.Error(), other.Hex()) || !strings.Contains(err.Error(), "--rpc-any-registry") || !strings.Contains(err.Error(), "registries") {
		t.Errorf("the refusal must name the registry and how to allow it: %v", err)
	}
	var de gethrpc.DataError
	if errors.As(err, &de) {
		if data, _ := de.ErrorData().(map[string]any); data["registry"] != other.Hex() || data["path"] != "orchestration" {
			t.Errorf("error data: %v", data)
		}
	}
	if after := g.keys0(); after != before {
		t.Fatalf("a start of an unfollowed registry changed Redis: %d keys, before %d", after, before)
	}
	if n := g.owners.calls.Load(); n != lookups {
		t.Fatalf("a start of an unfollowed registry asked for its owner (%d lookups)", n-lookups)
	}

	// The followed registry works.
	if res, err := g.client.StartWith(ctx, g.sessionPermit(owner, 1, nil), xrc729, "A1", nil); err != nil || res.SessionID != "1" {
		t.Fatalf("start of the followed registry: %+v %v", res, err)
	}

	// AnyRegistry serves the other one too.
	open := newGatewayWith(t, rpc.ServerConfig{}, func(c *rpc.Config) { c.Registries, c.AnyRegistry = nil, true })
	open.owners.m[other] = addr(owner)
	if res, err := open.client.StartWith(ctx, open.sessionPermit(owner, 1, nil), other, "A1", nil); err != nil || res.SessionID != "1" {
		t.Fatalf("start of an unfollowed registry with AnyRegistry: %+v %v", res, err)
	}
}

// A gateway configured with no registries to serve is a configuration
// error, not a gateway that serves every registry.
func TestServiceNeedsRegistries(t *testing.T) {
	o, err := registry_Parse(flowText)
	if err != nil {
		t.Fatal(err)
	}
	cfg := rpc.Config{Store: joinstore.New(nil, joinstore.Config{SessionTTL: time.Hour}), Source: reactor.NewStaticSource(o), Authority: authority.NewChecker(&owners{}).WithRules(scriptedRules),
		ChainID: chainID, ControlContract: precomp}
	if _, err := rpc.NewService(cfg); err == nil || !strings.Contains(err.Error(), "registries") {
		t.Fatalf("no registries and no AnyRegistry: %v", err)
	}
	cfg.Registries = &indexer.Followed{}
	if _, err := rpc.NewService(cfg); err != nil {
		t.Fatalf("with a (possibly empty) followed set: %v", err)
	}
}
