package main

import (
	"strings"
	"testing"

	"github.com/xgr-sidecar/xgr/testenv"
)

// xgr session kill 245 244 243 kills three sessions (a bare number is
// never read as a process of the first); the documented ROOTPID
// ROOTPID:ITER form still names processes of one session, and a mix is
// refused with the forms allowed, killing nothing.
func TestSessionKillSeveralSessions(t *testing.T) {
	srv := testenv.StartRedis(t)
	common := []string{"--redis", "redis://" + srv.Addr + "/0", "--owner", testOwner}
	flow := "../../examples/ostc/nested_join.json"
	for range 4 {
		if out, code := run(t, append([]string{"session", "start", flow, "--delay", "1h"}, common...)...); code != 0 {
			t.Fatalf("start: %d %s", code, out)
		}
	}
	out, code := run(t, append([]string{"session", "kill", "3", "2:1", "4"}, common...)...)
	if code != 2 || !strings.Contains(out, "not both") || !strings.Contains(out, "usage: xgr session kill ROOTPID [ROOTPID...] | ROOTPID ROOTPID:ITER... | ROOTPID:ITER...") {
		t.Fatalf("a mix: exit %d\n%s", code, out)
	}
	out, code = run(t, append([]string{"session", "pause", "3", "2"}, common...)...)
	if code != 0 || out != "2:1 paused\n3:1 paused\n" {
		t.Fatalf("pause 3 2: exit %d\n%q", code, out)
	}
	out, code = run(t, append([]string{"session", "kill", "3", "2", "1"}, common...)...)
	if code != 0 || out != "1:1 aborted\n2:1 aborted\n3:1 aborted\n" {
		t.Fatalf("kill 3 2 1: exit %d\n%q", code, out)
	}
	out, code = run(t, append([]string{"session", "kill", "4", "4:1", "--json"}, common...)...)
	if code != 0 || strings.TrimSpace(out) != `{"4:1":"aborted"}` {
		t.Fatalf("kill 4 4:1: exit %d\n%s", code, out)
	}
}
