package execution

import (
	"strings"
	"testing"
	"time"
)

// senderLease: how long a dead replica holds the executor key (default 0:
// the transaction manager's 10 s).
func TestParseConfigSenderLease(t *testing.T) {
	c, _, err := ParseConfig("x.yaml", []byte("executions:\n  senderLease: 4s\n"))
	if err != nil || c.SenderLease != 4*time.Second {
		t.Errorf("senderLease 4s: %v, %v", c.SenderLease, err)
	}
	if c, _, _ := ParseConfig("x.yaml", []byte("executions:\n  inflight: 4\n")); c.SenderLease != 0 {
		t.Errorf("default %v; want 0 (the transaction manager's)", c.SenderLease)
	}
	for text, want := range map[string]string{
		"executions:\n  senderLease: 10\n":   "x.yaml:2:16: executions.senderLease: expected a duration from 1s to 5m0s (e.g. 10s), found \"10\"",
		"executions:\n  senderLease: 1h\n":   "executions.senderLease: expected a duration from 1s to 5m0s",
		"executions:\n  senderLease: 10ms\n": "executions.senderLease: expected a duration from 1s to 5m0s",
	} {
		_, _, err := ParseConfig("x.yaml", []byte(text))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v; want %q", text, err, want)
		}
	}
}
