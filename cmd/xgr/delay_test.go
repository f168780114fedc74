package main

import (
	"context"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/testenv"
)

// xgr run spends an outcome's delayMs (it used to finish 10 steps of
// delayMs 2000 in 11 ms): three steps of 300 ms take at least 900 ms from
// the first claim to the last commit.
func TestRunSpendsDelayMs(t *testing.T) {
	srv := testenv.StartRedis(t)
	url := "redis://" + srv.Addr + "/0"
	flow := writeFile(t, "chain.json", `{"id": "chain3", "structure": {
  "S1": {"rule": "x", "onValid": {"spawns": ["S2"]}}, "S2": {"rule": "x", "onValid": {"spawns": ["S3"]}}, "S3": {"rule": "x"}}}`)
	outcomes := writeFile(t, "o.json", `{"default": {"result": "valid", "delayMs": 300}}`)
	if out, code := run(t, "session", "start", flow, "--redis", url, "--owner", testOwner); code != 0 {
		t.Fatalf("start: %d %s", code, out)
	}
	stop := startReplica(t, "--redis", url, "--ostc", flow, "--outcomes", outcomes, "--poll", "20ms")
	defer stop()
	waitStatus(t, url, 1, "finished")
	h, err := joinstore.New(srv.Client(), joinstore.Config{}).History(context.Background(), joinstore.Root{Owner: testOwner, RootPid: 1})
	if err != nil || len(h) != 3 {
		t.Fatalf("history: %v %v", h, err)
	}
	meta, err := joinstore.New(srv.Client(), joinstore.Config{}).SessionMeta(context.Background(), joinstore.Root{Owner: testOwner, RootPid: 1})
	if err != nil || meta.CreatedAt.IsZero() || meta.FinishedAt.IsZero() {
		t.Fatalf("session meta without its creation and end: %+v %v", meta, err)
	}
	if d := meta.FinishedAt.Sub(meta.CreatedAt); d < 900*time.Millisecond {
		t.Fatalf("three steps of delayMs 300 took %s", d)
	}
}
