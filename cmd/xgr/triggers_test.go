package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/indexstore"
	"github.com/xgr-sidecar/xgr/testenv"
)

// xgr index triggers lists the pending trigger starts with the block each
// waits for and, for one that failed and is retried, its attempts and
// last error.
func TestIndexTriggers(t *testing.T) {
	srv := testenv.StartRedis(t)
	ctx := context.Background()
	common_ := []string{"--redis", "redis://" + srv.Addr + "/0", "--chain-id", "1337"}
	if out, code := run(t, append([]string{"index", "triggers"}, common_...)...); code != 0 || !strings.Contains(out, "no pending trigger starts") {
		t.Fatalf("empty index: %d %s", code, out)
	}
	idx := indexstore.New(srv.Client(), 1337)
	key := indexstore.StartKey("0xabc:7:0")
	if err := idx.Commit(ctx, common.Hash{}, true, []indexstore.Block{{Number: 7, Hash: common.HexToHash("0x07")}}, nil,
		[]indexstore.Change{{Block: 7, Key: key, Pending: true, Fields: map[string]string{"status": "pending", "trigger": "orders", "owner": "0x00000000000000000000000000000000000000aa", "ostcId": "flow", "start": "A1"}}}); err != nil {
		t.Fatal(err)
	}
	if err := idx.RecordAttempt(ctx, key, "dial tcp 127.0.0.1:7000: connect: connection refused", time.UnixMilli(1_800_000_000_000)); err != nil {
		t.Fatal(err)
	}
	out, code := run(t, append([]string{"index", "triggers"}, common_...)...)
	for _, want := range []string{"7          orders           1        " + key, "last error at 2027-01-15T08:00:00Z: dial tcp 127.0.0.1:7000: connect: connection refused"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("index triggers lacks %q: %d\n%s", want, code, out)
		}
	}
	out, code = run(t, append([]string{"index", "triggers", "--json"}, common_...)...)
	var list []indexstore.PendingStart
	if err := json.Unmarshal([]byte(out), &list); code != 0 || err != nil || len(list) != 1 || list[0].Block != 7 || list[0].Attempts != 1 || list[0].Key != key {
		t.Fatalf("index triggers --json: %d %s (%v)", code, out, err)
	}
}
