package rpc_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/xgr-sidecar/xgr/rpc"
)

// A start over RPC answers its start key; xgr_sessionAlive and
// xgr_stepExecuted given it answer for that start only: a session another
// start created under the id (Redis lost writes) is refused
// (not-this-start), and without a key they answer as before.
func TestStartKeyNamesTheStart(t *testing.T) {
	g := newGateway(t, rpc.ServerConfig{})
	ctx := context.Background()
	key := g.keys[0]
	runner := addr(key).Hex()
	next, err := g.client.NextProcessID(ctx, addr(key))
	if err != nil {
		t.Fatal(err)
	}
	r, err := g.client.StartWith(ctx, g.sessionPermit(key, next, nil), xrc729, "A1", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(r.StartKey, "permit:0x") {
		t.Fatalf("start answered start key %q, want permit:<digest>", r.StartKey)
	}
	id := strconv.FormatInt(next, 10)
	var alive bool
	if alive, err := g.client.SessionAliveOf(ctx, addr(key), next, r.StartKey); err != nil || !alive {
		t.Fatalf("sessionAlive with its start key: %v %v", alive, err)
	}
	_, err = g.client.SessionAliveOf(ctx, addr(key), next, "permit:0xother")
	refused(t, err, rpc.CodeConflict, "not-this-start")
	if err := g.client.Raw(ctx, &alive, "xgr_sessionAlive", runner, id); err != nil || !alive {
		t.Fatalf("sessionAlive without a key: %v %v", alive, err)
	}
	if done, err := g.client.StepExecutedOf(ctx, addr(key), next, 1, r.StartKey); err != nil || done == nil {
		t.Fatalf("stepExecuted with its start key: %v %v", done, err)
	}
	_, err = g.client.StepExecutedOf(ctx, addr(key), next, 1, "permit:0xother")
	refused(t, err, rpc.CodeConflict, "not-this-start")
}
