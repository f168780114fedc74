package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/testenv"
)

// Issue 40: the config's quotas: section and the --quota-* flags set the
// quotas xgr session start enforces (a per-owner override over the
// default, a flag over the file), a start over one exits 1 naming the
// quota and its value, and xgr owner shows the usage against them; a
// mistake in the section is a usage error naming its line.
func TestOwnerQuotasFromConfig(t *testing.T) {
	srv := testenv.StartRedis(t)
	redisURL := "redis://" + srv.Addr + "/0"
	ostc := writeFile(t, "flow.json", `{"id": "flow", "structure": {"A1": {"rule": "0x0000000000000000000000000000000000000001"}}}`)
	owner := "0x00000000000000000000000000000000000000aa"
	other := "0x00000000000000000000000000000000000000bb"
	cfg := writeFile(t, "xgr.yaml", "quotas:\n  liveSessions: 1\n  liveProcesses: 500\n  owners:\n    \""+strings.ToUpper(other[:2])[:1]+other[1:]+"\":\n      liveSessions: 2\n")
	start := func(who string, extra ...string) (string, int) {
		return run(t, append([]string{"session", "start", ostc, "--redis", redisURL, "--owner", who, "--config", cfg}, extra...)...)
	}
	if out, code := start(owner); code != 0 {
		t.Fatalf("first start: %d %s", code, out)
	}
	out, code := start(owner)
	if code != 1 || !strings.Contains(out, "its live-sessions quota is 1") || !strings.Contains(out, "(quota-exceeded at owner)") {
		t.Errorf("a start over the quota: exit %d\n%s", code, out)
	}
	if out, code := start(owner, "--quota-live-sessions", "2"); code != 0 {
		t.Errorf("the flag over the file: %d %s", code, out)
	}
	for i := range 2 {
		if out, code := start(other); code != 0 {
			t.Fatalf("the override's start %d: %d %s", i, code, out)
		}
	}
	out, code = run(t, "owner", owner, "--redis", redisURL, "--config", cfg, "--json")
	var u joinstore.OwnerUsage
	if err := json.Unmarshal([]byte(out), &u); code != 0 || err != nil {
		t.Fatalf("xgr owner: %d %v %s", code, err, out)
	}
	if u.LiveSessions != 2 || u.Quota.LiveSessions != 1 || u.Quota.LiveProcesses != 500 || u.ProcessSlots < 2 || u.ProcessSlots > 2*joinstore.DefaultSlotChunk {
		t.Errorf("xgr owner: %+v", u)
	}
	out, code = run(t, "owner", other, "--redis", redisURL, "--config", cfg)
	if code != 0 || !strings.Contains(out, "live sessions       2 (quota 2)") {
		t.Errorf("xgr owner (text): %d\n%s", code, out)
	}
	bad := writeFile(t, "bad.yaml", "quotas:\n  liveSession: 1\n")
	if out, code := run(t, "owner", owner, "--redis", redisURL, "--config", bad); code != 2 || !strings.Contains(out, "bad.yaml:2:3: quotas.liveSession: unknown setting") {
		t.Errorf("a misspelt setting: exit %d\n%s", code, out)
	}
}
