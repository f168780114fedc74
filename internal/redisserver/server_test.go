package redisserver

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestUnixSocketServerLeavesNothingBehind(t *testing.T) {
	dir := t.TempDir()
	s, err := Start(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	c := s.Client()
	defer c.Close()
	if err := c.Set(context.Background(), "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if s.Network != "unix" || filepath.Dir(s.Addr) != dir {
		t.Errorf("address %s %s", s.Network, s.Addr)
	}
	s.Stop()
	if err := c.Ping(context.Background()).Err(); err == nil {
		t.Errorf("server still answers after Stop")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != "redis.sock" {
			t.Errorf("left %s behind", e.Name())
		}
	}
}
