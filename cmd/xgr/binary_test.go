package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// The built xgr binary, for the tests that run it as a user does (signals,
// a process of its own): built once, on first use, with the race detector
// when the tests have it, and removed after the tests.
var xgrBinary struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if xgrBinary.dir != "" {
		os.RemoveAll(xgrBinary.dir)
	}
	os.Exit(code)
}

// builtXgr is the path of the built binary.
func builtXgr(t *testing.T) string {
	t.Helper()
	xgrBinary.once.Do(func() {
		if xgrBinary.dir, xgrBinary.err = os.MkdirTemp("", "xgr-cmd-test-"); xgrBinary.err != nil {
			return
		}
		xgrBinary.path = filepath.Join(xgrBinary.dir, "xgr")
		args := []string{"build", "-o", xgrBinary.path}
		if raceEnabled {
			args = append(args, "-race")
		}
		var out bytes.Buffer
		build := exec.Command("go", append(args, ".")...)
		build.Stdout, build.Stderr = &out, &out
		if err := build.Run(); err != nil {
			xgrBinary.err = errors.New("go build: " + err.Error() + "\n" + out.String())
		}
	})
	if xgrBinary.err != nil {
		t.Fatalf("building xgr: %v", xgrBinary.err)
	}
	return xgrBinary.path
}

// runBinary runs the built binary to its end and returns its combined
// output and exit code.
func runBinary(t *testing.T, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(builtXgr(t), args...)
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
