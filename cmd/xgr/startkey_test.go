package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/xgr-sidecar/xgr/testenv"
)

// session start without --key generates an idempotency key and prints it;
// a retry with it names the same session, and session show --key tells a
// session started with another key apart ("not this start").
func TestSessionStartKey(t *testing.T) {
	srv := testenv.StartRedis(t)
	common := []string{"--redis", "redis://" + srv.Addr + "/0", "--owner", testOwner}
	flow := "../../examples/ostc/nested_join.json"
	out, code := run(t, append([]string{"session", "start", flow}, common...)...)
	m := regexp.MustCompile(`^queued: session 1 .*, start key (cli-[0-9a-f]{32})\n$`).FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("start without --key: %d %q, want a generated start key", code, out)
	}
	key := m[1]
	if out, code = run(t, append([]string{"session", "start", flow, "--key", key}, common...)...); code != 0 || !strings.HasPrefix(out, "already_queued: session 1 ") {
		t.Fatalf("retry with the printed key: %d %s", code, out)
	}
	if out, code = run(t, append([]string{"session", "start", flow}, common...)...); code != 0 || !strings.HasPrefix(out, "queued: session 2 ") {
		t.Fatalf("a second start without --key: %d %s", code, out)
	}
	if out, code = run(t, append([]string{"session", "show", "1", "--key", key}, common...)...); code != 0 || !strings.Contains(out, "start key "+key) {
		t.Fatalf("show --key of its own start: %d %s", code, out)
	}
	if out, code = run(t, append([]string{"session", "show", "2", "--key", key}, common...)...); code != 1 || !strings.Contains(out, "not this start") {
		t.Fatalf("show --key of another start: %d %s", code, out)
	}
}
