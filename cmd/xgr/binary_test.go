package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// The built binary, for tests of what only a process shows: exit statuses
// as main sets them, stderr, environment variables, signals. It is built
// once per test run, with the race detector when the tests have it, and
// removed after the tests.
var built struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// xgrBinary builds cmd/xgr once per test run and returns its path.
func xgrBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "xgr-cli-test-"); built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "xgr")
		args := []string{"build", "-o", built.path}
		if raceEnabled {
			args = append(args, "-race")
		}
		out, err := exec.Command("go", append(args, ".")...).CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("go build ./cmd/xgr: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

// runBinary runs the built xgr with args and extra environment (NAME=value)
// and returns its stdout, stderr and exit status.
func runBinary(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, xgrBinary(t), args...)
	cmd.Env = append(os.Environ(), env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		t.Fatalf("xgr %v: %v", args, err)
	}
	return o.String(), e.String(), code
}

// runCombined runs the built xgr to its end and returns its stdout and
// stderr interleaved, as a terminal shows them, and its exit status.
func runCombined(t *testing.T, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(xgrBinary(t), args...)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return string(out), ee.ExitCode()
	case err != nil:
		t.Fatalf("run xgr %v: %v", args, err)
	}
	return string(out), 0
}
