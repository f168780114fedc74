package main

import (
	"strings"
	"testing"
)

func TestDevRunsTheWholePipeline(t *testing.T) {
	out, code := run(t, "--log-level", "warn", "dev", "--ostc-dir", "../../examples/ostc", "--orders", "2", "--every", "10ms", "--exit-when-done")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	for _, want := range []string{"with 8 orchestrations", "registered order-2 (a trigger event)", "join_closed", "all 10 sessions finished"} {
		if !strings.Contains(out, want) {
			t.Errorf("xgr dev output lacks %q:\n%s", want, out)
		}
	}
}
