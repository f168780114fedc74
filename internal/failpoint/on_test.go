//go:build xgrfailpoint

package failpoint

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

func TestParse(t *testing.T) {
	pts, err := parse("a=3, b=0.25")
	if err != nil || pts["a"].nth != 3 || pts["b"].p != 0.25 {
		t.Fatalf("%v %v", pts, err)
	}
	for _, bad := range []string{"a", "=1", "a=0", "a=1.5", "a=x"} {
		if _, err := parse(bad); err == nil {
			t.Errorf("parse(%q) accepted", bad)
		}
	}
}

// The third hit of an armed point kills the process with SIGKILL.
func TestHitKills(t *testing.T) {
	if os.Getenv("FAILPOINT_CHILD") == "1" {
		for i := 1; i <= 5; i++ {
			os.Stdout.WriteString("hit\n")
			Hit("p")
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestHitKills$")
	cmd.Env = append(os.Environ(), "FAILPOINT_CHILD=1", "XGR_FAILPOINTS=p=3")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if err == nil || !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("child: %v (%v)", err, cmd.ProcessState)
	}
	if n := strings.Count(string(out), "hit"); n != 3 || !strings.Contains(stderr.String(), "failpoint p: kill -9") {
		t.Fatalf("child hit %d times before dying; stderr %q", n, stderr.String())
	}
}
