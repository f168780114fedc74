package rpc_test

import (
	"context"
	"strings"
	"testing"
	"time"

	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/xgr-sidecar/xgr/internal/httpserve"
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

// A websocket outlives the listener's request timeouts (it is a stream:
// go-ethereum keeps it alive), while plain HTTP calls still work beside it;
// websockets over the listener's stream cap are refused.
func TestWebsocketOutlivesRequestTimeouts(t *testing.T) {
	g := newGatewayOn(t, rpc.ServerConfig{}, &httpserve.Config{ReadTimeout: 200 * time.Millisecond, WriteTimeout: 200 * time.Millisecond,
		IdleTimeout: 200 * time.Millisecond, MaxConns: 4, MaxStreams: 1})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, err := gethrpc.DialWebsocket(ctx, "ws"+strings.TrimPrefix(g.url, "http"), "")
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	for i := 0; i < 4; i++ {
		var core rpc.CoreAddrs
		if err := ws.CallContext(ctx, &core, "xgr_getCoreAddrs"); err != nil {
			t.Fatalf("call %d over the websocket, %s after the timeouts began: %v", i, time.Duration(i)*300*time.Millisecond, err)
		}
		time.Sleep(300 * time.Millisecond)
	}
	if _, err := gethrpc.DialWebsocket(ctx, "ws"+strings.TrimPrefix(g.url, "http"), ""); err == nil || !strings.Contains(err.Error(), "503") {
		t.Errorf("a second websocket at stream cap 1: %v, want 503", err)
	}
	var core rpc.CoreAddrs
	if err := g.client.Raw(ctx, &core, "xgr_getCoreAddrs"); err != nil {
		t.Errorf("HTTP beside the websocket: %v", err)
	}
}
