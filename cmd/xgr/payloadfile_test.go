package main

import (
	"context"
	"strings"
	"testing"

	"github.com/xgr-sidecar/xgr/testenv"
)

// A --payload file with broken JSON is refused with its line and column
// (as orchestration files are), before anything is written; one that is
// not a payload object is refused by its path in the payload.
func TestPayloadFileErrorsHavePositions(t *testing.T) {
	srv := testenv.StartRedis(t)
	common := []string{"--redis", "redis://" + srv.Addr + "/0", "--owner", testOwner}
	flow := "../../examples/ostc/nested_join.json"
	broken := writeFile(t, "in.json", "{\n  \"a\": 1,\n  \"b\": }\n")
	notObject := writeFile(t, "list.json", "[1]")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"session", "start", flow, "--payload", broken}, "session start: --payload " + broken + ":3:8: broken JSON: missing value after object name"},
		{[]string{"session", "wake", "1:1", "--payload", broken}, "session wake: --payload " + broken + ":3:8: broken JSON"},
		{[]string{"session", "start", flow, "--payload", notObject}, "session start: --payload " + notObject + ": payload: want a JSON object, not an array"},
	} {
		out, code := run(t, append(c.args, common...)...)
		if code != 2 || !strings.Contains(out, c.want) {
			t.Errorf("%v: exit %d\n%s\nwant %s", c.args[:2], code, out, c.want)
		}
	}
	if n := srv.Client().DBSize(context.Background()).Val(); n != 0 {
		t.Errorf("refused payloads left %d keys", n)
	}
}
