package rpc_test

import (
	"context"
	"strings"
	"testing"
	"time"

	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/xgr-sidecar/xgr/rpc"
)

// A websocket handshake from a browser page (it carries Origin) is refused
// unless its origin is listed — also http://localhost pages when nothing
// is listed; a program's handshake (no Origin) is accepted.
func TestWebsocketOrigins(t *testing.T) {
	dial := func(g *gateway, origin string) error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		ws, err := gethrpc.DialWebsocket(ctx, "ws"+strings.TrimPrefix(g.url, "http"), origin)
		if err != nil {
			return err
		}
		defer ws.Close()
		var core rpc.CoreAddrs
		return ws.Call(&core, "xgr_getCoreAddrs")
	}
	unlisted := newGateway(t, rpc.ServerConfig{})
	for _, origin := range []string{"http://localhost:1234", "http://localhost", "http://127.0.0.1:8080", "null"} {
		if err := dial(unlisted, origin); err == nil || !strings.Contains(err.Error(), "403") {
			t.Errorf("Origin %s without --rpc-cors: %v, want 403", origin, err)
		}
	}
	if err := dial(unlisted, ""); err != nil {
		t.Errorf("no Origin (a program): %v", err)
	}
	listed := newGateway(t, rpc.ServerConfig{CORSOrigins: []string{"https://ops.example"}})
	if err := dial(listed, "https://ops.example"); err != nil {
		t.Errorf("a listed origin: %v", err)
	}
	for _, origin := range []string{"https://evil.example", "http://localhost:1234", "https://ops.example:8443", "http://ops.example"} {
		if err := dial(listed, origin); err == nil || !strings.Contains(err.Error(), "403") {
			t.Errorf("Origin %s, only https://ops.example listed: %v, want 403", origin, err)
		}
	}
	if err := dial(listed, ""); err != nil {
		t.Errorf("no Origin with a list: %v", err)
	}
}
