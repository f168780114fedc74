package toolbin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEnvName(t *testing.T) {
	if got := EnvName("redis-server"); got != "XGR_REDIS_SERVER_BIN" {
		t.Fatalf("EnvName = %q", got)
	}
}

func TestFindPrefersEnvOverride(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "fake")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvName("anvil"), bin)
	got, err := Find("anvil")
	if err != nil || got != bin {
		t.Fatalf("Find = %q, %v; want %q", got, err, bin)
	}
}

func TestFindRejectsBadOverride(t *testing.T) {
	t.Setenv(EnvName("anvil"), "/nonexistent/anvil")
	if _, err := Find("anvil"); err == nil || !strings.Contains(err.Error(), "XGR_ANVIL_BIN") {
		t.Fatalf("Find with a bad override: %v", err)
	}
}

func TestFindMissingSaysHowToInstall(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Find("redis-server-does-not-exist")
	if err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("want a not-found error, got %v", err)
	}
	t.Setenv(EnvName("solcjs"), "")
	if _, err := Find("solcjs"); err != nil && !strings.Contains(err.Error(), "make tools") {
		t.Fatalf("missing solcjs should say `make tools`: %v", err)
	}
}
