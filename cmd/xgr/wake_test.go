package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/xgr-sidecar/xgr/testenv"
)

// session wake: the operator's wake skips the allow list; a named caller
// is judged under scope rpc; step mode wakes every process on the step;
// a start payload with a malformed allow list creates nothing.
func TestSessionWakeScopes(t *testing.T) {
	srv := testenv.StartRedis(t)
	url := "redis://" + srv.Addr + "/0"
	common := []string{"--redis", url, "--owner", testOwner}
	flow := "../../examples/ostc/minimal_join.json"
	const (
		allowed  = "0x00000000000000000000000000000000000000a1"
		stranger = "0x00000000000000000000000000000000000000a2"
	)

	bad := writeFile(t, "bad.json", `{"__wakeUp": {"steps": {"A1": {"rpc": ["*"]}}}}`)
	out, code := run(t, append([]string{"session", "start", flow, "--step", "A1", "--payload", bad}, common...)...)
	if code != 2 || !strings.Contains(out, `payload.__wakeUp.steps.A1.rpc[0]: wildcard "*" is not allowed here`) {
		t.Fatalf("a malformed allow list: %d %s", code, out)
	}
	if n := srv.Client().DBSize(context.Background()).Val(); n != 0 {
		t.Fatalf("a refused start left %d keys", n)
	}

	good := writeFile(t, "good.json", `{"x": 1, "__wakeUp": {"steps": {"A1": {"rpc": ["`+allowed+`"]}}}}`)
	for i := 0; i < 2; i++ {
		if out, code := run(t, append([]string{"session", "start", flow, "--step", "A1", "--delay", "1h", "--payload", good}, common...)...); code != 0 {
			t.Fatalf("start: %d %s", code, out)
		}
	}
	payload := writeFile(t, "p.json", `{"big": 18446744073709551615, "_x": 1, "__wakeUp": {"default": {"rpc": ["`+stranger+`"]}}}`)

	out, code = run(t, append([]string{"session", "wake", "1:1", "--caller", stranger, "--payload", payload}, common...)...)
	if code != 1 || !strings.Contains(out, "denied: __wakeUp.steps.A1.rpc does not list "+stranger) {
		t.Fatalf("a caller the list does not name: %d %s", code, out)
	}
	out, code = run(t, append([]string{"session", "wake", "1:1", "--caller", "0xnope"}, common...)...)
	if code != 2 || !strings.Contains(out, "not an address") {
		t.Fatalf("a malformed caller: %d %s", code, out)
	}
	out, code = run(t, append([]string{"session", "wake", "1:1", "--caller", allowed, "--payload", payload, "--json"}, common...)...)
	var res struct {
		Woken     int
		Processes []struct{ Pid, Reason string }
	}
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || res.Woken != 1 || !strings.Contains(res.Processes[0].Reason, "rpc lists "+allowed) {
		t.Fatalf("an allowed caller: %d %s", code, out)
	}
	out, _ = run(t, append([]string{"session", "show", "1", "--json"}, common...)...)
	// The wake payload's "_" keys never reach the process: the allow list
	// stays the owner's.
	if !strings.Contains(out, `"resumePlain":{"__wakeUp":{"steps":{"A1":{"rpc":["`+allowed+`"]}}},"big":18446744073709551615,"x":1}`) {
		t.Errorf("merged payload:\n%s", out)
	}
	// A second wake: the process is due already but still waiting: allowed again.
	// Step mode, as the operator, on session 2.
	out, code = run(t, append([]string{"session", "wake", "2", "--step", "A1"}, common...)...)
	if code != 0 || !strings.HasPrefix(out, "woke 2:1 of "+testOwner+":2") {
		t.Fatalf("step mode: %d %s", code, out)
	}
	out, code = run(t, append([]string{"session", "wake", "2", "--step", "B1"}, common...)...)
	if code != 1 || !strings.Contains(out, `no process of `+testOwner+`:2 waits on step "B1"`) {
		t.Fatalf("step mode, nothing waiting: %d %s", code, out)
	}
	out, code = run(t, append([]string{"session", "wake", "9", "--step", "A1"}, common...)...)
	if code != 1 || !strings.Contains(out, "no such session") {
		t.Fatalf("no such session: %d %s", code, out)
	}
}
