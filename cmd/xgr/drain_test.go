package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/testenv"
)

// A replica stopped while Redis is down could not drain (its commits and
// lease releases never arrived): it exits 1 and says why, instead of 0.
func TestRunStoppedWhileRedisDownExitsNonZero(t *testing.T) {
	srv := testenv.StartRedis(t)
	outcomes := writeFile(t, "o.json", `{"default":{"result":"valid"}}`)
	addr := fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(t))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr strings.Builder
	done := make(chan error, 1)
	go func() {
		done <- runApp(ctx, newApp(io.Discard, &stderr), []string{"xgr", "run", "--listen", addr, "--redis", "redis://" + srv.Addr + "/0",
			"--outcomes", outcomes, "--poll", "20ms", "--health-timeout", "300ms"})
	}()
	waitHealthz(t, addr)
	srv.Stop()
	cancel()
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("xgr run did not stop")
	}
	if err == nil || !strings.Contains(err.Error(), "stopped without draining: redis is unreachable") {
		t.Fatalf("stopped while Redis was down: %v, want a non-zero exit with the reason", err)
	}
}
