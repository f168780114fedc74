package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/testenv"
)

// xgr health exits 0 while the replica's /healthz answers 200, 1 with the
// status and reason once Redis is gone, and 1 when no answer comes in time.
func TestHealthCommand(t *testing.T) {
	srv := testenv.StartRedis(t)
	outcomes := writeFile(t, "o.json", `{"default":{"result":"valid"}}`)
	stop, addr := startReplicaAt(t, "--redis", "redis://"+srv.Addr+"/0", "--ostc", "../../examples/ostc/minimal_join.json", "--outcomes", outcomes, "--health-timeout", "300ms")
	defer stop()
	port := addr[strings.LastIndex(addr, ":")+1:]
	out, code := run(t, "health", "--listen", "0.0.0.0:"+port)
	if code != 0 || !strings.HasPrefix(out, "ok: http://127.0.0.1:"+port+"/healthz: ") {
		t.Fatalf("healthy: exit %d\n%s", code, out)
	}
	if out, code = run(t, "health", "--url", "http://"+addr+"/readyz"); code != 0 {
		t.Fatalf("--url /readyz: exit %d\n%s", code, out)
	}
	rdb, ctx := srv.Client(), context.Background()
	rdb.ConfigSet(ctx, "maxmemory-policy", "noeviction")
	rdb.ConfigSet(ctx, "maxmemory", "1")
	out, code = run(t, "health", "--listen", addr, "--timeout", "5s")
	if code != 1 || !strings.Contains(out, "health: http://"+addr+"/healthz: 503 Service Unavailable: ") || !strings.Contains(out, "OOM") {
		t.Errorf("Redis out of memory: exit %d\n%s", code, out)
	}
	rdb.ConfigSet(ctx, "maxmemory", "0")

	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	if out, code = run(t, "health", "--url", slow.URL+"/healthz", "--timeout", "100ms"); code != 1 || !strings.Contains(out, "no answer within 100ms") {
		t.Errorf("slow: exit %d\n%s", code, out)
	}
	for _, args := range [][]string{{"--url", "127.0.0.1:9464"}, {"--listen", "9464"}, {"--timeout", "0s"}, {"x"}} {
		if out, code = run(t, append([]string{"health"}, args...)...); code != 2 {
			t.Errorf("%v: exit %d, want 2\n%s", args, code, out)
		}
	}
}
