package e2e

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/xgr-sidecar/xgr/testenv"
)

// xgrBin is the xgr binary built for this test run.
var xgrBin string

func TestMain(m *testing.M) {
	// Fail before the build when no provider can serve the servers
	// (XGR_TEST_PROVIDER=docker without an engine): one line, not a
	// failure per test.
	if _, err := testenv.Provider(); err != nil {
		os.Exit(1) // the line is already on stderr
	}
	dir, err := os.MkdirTemp("", "xgr-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	xgrBin = filepath.Join(dir, "xgr")
	build := exec.Command("go", "build", "-race", "-o", xgrBin, "../cmd/xgr")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building xgr:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
