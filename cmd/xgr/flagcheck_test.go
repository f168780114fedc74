package main

import (
	"strings"
	"testing"
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
