package rpc_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/rpc"
)

// countingSource counts the orchestration reads of a start.
type countingSource struct {
	reactor.Source
	reads atomic.Int32
}

func (c *countingSource) Orchestration(ctx context.Context, xrc729, ostcID string, hash common.Hash) (*registry.Orchestration, error) {
	c.reads.Add(1)
	return c.Source.Orchestration(ctx, xrc729, ostcID, hash)
}

// A start over RPC validates once: one orchestration read (it used to be
// read, and its step checked, by the gateway and again by the start).
func TestStartReadsTheOrchestrationOnce(t *testing.T) {
	var src *countingSource
	g := newGatewayWith(t, rpc.ServerConfig{}, func(c *rpc.Config) {
		src = &countingSource{Source: c.Source}
		c.Source = src
	})
	if _, err := g.client.StartWith(context.Background(), g.sessionPermit(g.keys[0], 1, nil), xrc729, "A1", json.RawMessage(`{"n": 1}`)); err != nil {
		t.Fatal(err)
	}
	if n := src.reads.Load(); n != 1 {
		t.Fatalf("a start read the orchestration %d times, want 1", n)
	}
}
