package main

import (
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/testenv"
)

// SIGHUP reloads nothing and kills nothing: xgr run logs that it is not
// supported and goes on serving; SIGTERM still drains and exits 0.
func TestRunSurvivesSIGHUP(t *testing.T) {
	srv := testenv.StartRedis(t)
	outcomes := writeFile(t, "o.json", `{"default":{"result":"valid"}}`)
	addr := fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(t))
	var out lockedOutput
	cmd := exec.Command(xgrBinary(t), "run", "--listen", addr, "--no-ui", "--redis", "redis://"+srv.Addr+"/0", "--outcomes", outcomes, "--poll", "20ms")
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	healthy := func() bool {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	}
	for deadline := time.Now().Add(20 * time.Second); !healthy(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("xgr run did not serve /healthz:\n%s", out.String())
		}
	}
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(out.String(), "SIGHUP not supported"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no SIGHUP line:\n%s", out.String())
		}
	}
	select {
	case err := <-exited:
		t.Fatalf("xgr run exited after SIGHUP: %v\n%s", err, out.String())
	case <-time.After(300 * time.Millisecond):
	}
	if !healthy() {
		t.Fatalf("xgr run stopped serving after SIGHUP:\n%s", out.String())
	}
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("exit %d after SIGTERM:\n%s", ee.ExitCode(), out.String())
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("xgr run did not stop after SIGTERM:\n%s", out.String())
	}
	if !strings.Contains(out.String(), `level=WARN msg="SIGHUP not supported`) {
		t.Errorf("the SIGHUP line is not a warning:\n%s", out.String())
	}
}
