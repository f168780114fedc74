package main

import (
	"strings"
	"testing"
	"time"
)

// Flags are checked at start with a clear message and exit 2 (they used to
// panic, repeat script errors, leave sessions stuck or be ignored).
func TestFlagsCheckedAtStart(t *testing.T) {
	outcomes := writeFile(t, "o.json", `{"default":{"result":"valid"}}`)
	cfg := writeFile(t, "xgr.yaml", "registries: []\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--outcomes", outcomes, "--poll", "-1s"}, "--poll -1s: want a positive duration"},
		{[]string{"run", "--outcomes", outcomes, "--root-lease", "-1s"}, "--root-lease -1s: want a positive duration"},
		{[]string{"run", "--outcomes", outcomes, "--proc-lease", "0s"}, "--proc-lease 0s: want a positive duration"},
		{[]string{"run", "--outcomes", outcomes, "--max-sessions", "-3"}, "--max-sessions -3: want 0 (no cap) or more"},
		{[]string{"run", "--outcomes", outcomes, "--config", cfg}, "--config needs --rpc"},
		{[]string{"run", "--outcomes", outcomes, "--allow-host", "127.0.0.1"}, `--allow-host "127.0.0.1": no port: want HOST:PORT`},
		{[]string{"rule", "eval", outcomes, "--allow-host", "prices.internal"}, `--allow-host "prices.internal": no port: want HOST:PORT`},
		{[]string{"simulate", outcomes, "--allow-host", "api.test=127.0.0.1"}, `is not IP:PORT`},
		{[]string{"dev", "--flow", "nope", "--ostc-dir", "../../examples/ostc"}, `--flow "nope" is not an orchestration of ../../examples/ostc (ids: `},
	} {
		out, code := run(t, tc.args...)
		if code != 2 || !strings.Contains(out, tc.want) {
			t.Errorf("%v: %d %q, want exit 2 with %q", tc.args, code, out, tc.want)
		}
	}
}

// Owners are EVM addresses, in one key form (lower case).
func TestOwnerChecked(t *testing.T) {
	for _, owner := range []string{"0xabc", "alice", "0xZZ00000000000000000000000000000000000000"} {
		out, code := run(t, "session", "list", "--redis", "redis://127.0.0.1:1/0", "--owner", owner)
		if code != 2 || !strings.Contains(out, "--owner: owner") || !strings.Contains(out, "want an EVM address") {
			t.Errorf("--owner %s: %d %q", owner, code, out)
		}
	}
}

// simulate stops while a step waits (it used to sleep through --timeout,
// Ctrl-C and SIGTERM) and still prints its summary and cleans up.
func TestSimulateStopsWhileWaiting(t *testing.T) {
	ostc := writeFile(t, "wait.json", `{"id": "wait", "structure": {"A1": {"rule": "x", "onValid": {"spawns": ["B1"]}}, "B1": {"rule": "x"}}}`)
	outcomes := writeFile(t, "o.json", `{"A1": {"result": "valid", "waitSec": 3600}, "default": {"result": "valid"}}`)
	start := time.Now()
	out, code := run(t, "simulate", ostc, "--outcomes", outcomes, "--timeout", "300ms")
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("simulate took %s to stop at a 300ms timeout", took)
	}
	if code != 1 || !strings.Contains(out, "stopped by --timeout 300ms after 1 executed steps; 1 live process(es) not run") {
		t.Fatalf("simulate at its timeout: %d\n%s", code, out)
	}
}
