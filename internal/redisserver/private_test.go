package redisserver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xgr-sidecar/xgr/internal/toolbin"
)

func TestPrivateServerIsRemovedByStop(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	p, err := StartPrivate("test")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(p.Dir()), "xgr-test-") || filepath.Dir(p.Dir()) != os.TempDir() {
		t.Errorf("directory %s: want %s/xgr-test-*", p.Dir(), os.TempDir())
	}
	if p.Network != "unix" || filepath.Dir(p.Addr) != p.Dir() {
		t.Errorf("address %s %s: want a unix socket in %s", p.Network, p.Addr, p.Dir())
	}
	c := p.Client()
	defer c.Close()
	if err := c.Set(context.Background(), "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	p.Stop()
	if err := c.Ping(context.Background()).Err(); err == nil {
		t.Errorf("server still answers after Stop")
	}
	if _, err := os.Stat(p.Dir()); !os.IsNotExist(err) {
		t.Errorf("%s is still there after Stop (stat: %v)", p.Dir(), err)
	}
}

func TestPrivateServerThatCannotStartLeavesNothing(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv(toolbin.EnvName("redis-server"), filepath.Join(tmp, "no-such-redis-server"))
	p, err := StartPrivate("test")
	if err == nil {
		p.Stop()
		t.Fatal("StartPrivate succeeded with a redis-server that does not exist")
	}
	if !strings.Contains(err.Error(), "cannot start a private redis-server") {
		t.Errorf("error %q does not say what failed", err)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("left %d entries in %s, first %s", len(entries), tmp, entries[0].Name())
	}
}
