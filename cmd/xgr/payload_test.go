package main

import (
	"context"
	"strings"
	"testing"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/testenv"
)

// session start and session wake refuse a payload nested deeper than the
// cap or with a duplicate name (exit 2, naming the path and the cap) and
// change nothing.
func TestSessionPayloadShape(t *testing.T) {
	srv := testenv.StartRedis(t)
	common := []string{"--redis", "redis://" + srv.Addr + "/0", "--owner", testOwner}
	flow := "../../examples/ostc/minimal_join.json"
	deep := writeFile(t, "deep.json", `{"a":`+strings.Repeat("[", 9000)+strings.Repeat("]", 9000)+`}`)
	dup := writeFile(t, "dup.json", `{"__wakeUp": {"steps": {}}, "__wakeUp": {"default": {"rpc": ["0x00000000000000000000000000000000000000a1"]}}}`)
	for _, tc := range []struct{ file, want string }{
		{deep, "payload.a" + strings.Repeat("[0]", 31) + ": nested deeper than 32 levels (at most 32 are allowed)"},
		{dup, "payload.__wakeUp: duplicate member name"},
	} {
		out, code := run(t, append([]string{"session", "start", flow, "--step", "A1", "--payload", tc.file}, common...)...)
		if code != 2 || !strings.Contains(out, tc.want) {
			t.Errorf("start with %s: %d %s", tc.file, code, out)
		}
	}
	if n := srv.Client().DBSize(context.Background()).Val(); n != 0 {
		t.Fatalf("refused starts left %d keys", n)
	}
	if out, code := run(t, append([]string{"session", "start", flow, "--step", "A1", "--delay", "1h"}, common...)...); code != 0 {
		t.Fatalf("start: %d %s", code, out)
	}
	store, root := joinstore.New(srv.Client(), joinstore.Config{}), joinstore.Root{Owner: testOwner, RootPid: 1}
	before, _ := store.Process(context.Background(), root, 1)
	for _, tc := range []struct{ file, want string }{
		{deep, "nested deeper than 32 levels"},
		{dup, "payload.__wakeUp: duplicate member name"},
	} {
		out, code := run(t, append([]string{"session", "wake", "1:1", "--payload", tc.file}, common...)...)
		if code != 2 || !strings.Contains(out, tc.want) {
			t.Errorf("wake with %s: %d %s", tc.file, code, out)
		}
	}
	after, _ := store.Process(context.Background(), root, 1)
	if before.Pid == "" || string(after.ResumePlain) != string(before.ResumePlain) || !after.NextWakeAt.Equal(before.NextWakeAt) {
		t.Errorf("a refused wake changed the process: %+v, before %+v", after, before)
	}
}
