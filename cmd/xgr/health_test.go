package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/testenv"
)

// /healthz checks what the replica needs, a write acknowledged in time: it
// fails with the reason while Redis refuses writes (out of memory) or is
// paused, and recovers after.
func TestHealthzChecksAWrite(t *testing.T) {
	srv := testenv.StartRedis(t)
	url := "redis://" + srv.Addr + "/0"
	flow := "../../examples/ostc/minimal_join.json"
	outcomes := writeFile(t, "o.json", `{"default":{"result":"valid"}}`)
	stop, addr := startReplicaAt(t, "--redis", url, "--ostc", flow, "--outcomes", outcomes, "--health-timeout", "300ms")
	defer stop()
	get := func(path string) (int, string, time.Duration) {
		start := time.Now()
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), time.Since(start)
	}
	rdb, ctx := srv.Client(), context.Background()
	for _, path := range []string{"/healthz", "/readyz"} {
		if code, body, _ := get(path); code != 200 || !strings.HasPrefix(body, "ok: redis write acknowledged") {
			t.Fatalf("%s: %d %s", path, code, body)
		}
	}
	rdb.ConfigSet(ctx, "maxmemory-policy", "noeviction")
	rdb.ConfigSet(ctx, "maxmemory", "1")
	if code, body, _ := get("/healthz"); code != 503 || !strings.Contains(body, "OOM") {
		t.Errorf("out of memory: %d %s", code, body)
	}
	rdb.ConfigSet(ctx, "maxmemory", "0")
	if err := rdb.Do(ctx, "CLIENT", "PAUSE", "1500", "WRITE").Err(); err != nil {
		t.Fatal(err)
	}
	code, body, took := get("/healthz")
	if code != 503 || !strings.Contains(body, "did not acknowledge a write within 300ms") {
		t.Errorf("paused: %d %s", code, body)
	}
	if took > time.Second {
		t.Errorf("a paused Redis took %s to notice (timeout 300ms)", took)
	}
	rdb.Do(ctx, "CLIENT", "UNPAUSE")
	if code, _, _ := get("/healthz"); code != 200 {
		t.Errorf("after unpause: %d", code)
	}
}

// --require-aof refuses a Redis that can lose acknowledged writes, also
// appendfsync everysec unless --accept-aof-everysec, and accepts one with
// appendonly yes and appendfsync always.
func TestRequireAOF(t *testing.T) {
	srv := testenv.StartRedis(t)
	url := "redis://" + srv.Addr + "/0"
	rdb, ctx := srv.Client(), context.Background()
	rdb.ConfigSet(ctx, "appendonly", "no")
	outcomes := writeFile(t, "o.json", `{"default":{"result":"valid"}}`)
	out, code := run(t, "run", "--redis", url, "--outcomes", outcomes, "--listen", "", "--require-aof")
	if code != 1 || !strings.Contains(out, `appendonly is "no"`) {
		t.Fatalf("a Redis without AOF: %d %s", code, out)
	}
	rdb.ConfigSet(ctx, "appendonly", "yes")
	rdb.ConfigSet(ctx, "appendfsync", "everysec")
	out, code = run(t, "run", "--redis", url, "--outcomes", outcomes, "--listen", "", "--require-aof")
	if code != 1 || !strings.Contains(out, `appendfsync is "everysec"`) || !strings.Contains(out, "--accept-aof-everysec") {
		t.Fatalf("everysec without --accept-aof-everysec: %d %s", code, out)
	}
	stop := startReplica(t, "--redis", url, "--outcomes", outcomes, "--require-aof", "--accept-aof-everysec")
	stop()
	rdb.ConfigSet(ctx, "appendfsync", "always")
	stop = startReplica(t, "--redis", url, "--outcomes", outcomes, "--require-aof")
	stop()
}
