package testenv

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/internal/toolbin"
	"github.com/xgr-sidecar/xgr/testenv/provider"
)

// eachProvider runs test once per provider with the same checks, so both
// providers are held to one contract. The docker run skips, naming the
// missing engine, unless the docker provider serves this run; the local run
// always runs under the local provider (a missing binary fails) and skips
// under docker only when the binaries are missing, naming them.
func eachProvider(t *testing.T, bins []string, test func(t *testing.T, k provider.Kind)) {
	t.Run("local", func(t *testing.T) {
		if k, err := Provider(); err == nil && k == provider.Docker {
			for _, b := range bins {
				if _, err := toolbin.Find(b); err != nil {
					t.Skipf("local provider check under the docker provider: %v", err)
				}
			}
		}
		test(t, provider.Local)
	})
	t.Run("docker", func(t *testing.T) {
		requireDocker(t)
		test(t, provider.Docker)
	})
}

func TestRedisRestartKeepsAOFWrites(t *testing.T) {
	eachProvider(t, []string{"redis-server"}, func(t *testing.T, k provider.Kind) {
		r := startRedis(t, k, WithAOF())
		if r.Network != "tcp" || !strings.HasPrefix(r.Addr, "127.0.0.1:") {
			t.Fatalf("address %s %s, want tcp on 127.0.0.1", r.Network, r.Addr)
		}
		addr := r.Addr
		ctx := context.Background()
		c := r.Client()
		if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
			t.Fatal(err)
		}
		r.Restart()
		if r.Addr != addr {
			t.Fatalf("address moved on restart: %s -> %s", addr, r.Addr)
		}
		if v, err := c.Get(ctx, "k").Result(); err != nil || v != "v" {
			t.Fatalf("after restart: %q, %v", v, err)
		}
		if !strings.Contains(r.Log(), "Ready to accept connections") {
			t.Errorf("log lacks the readiness line:\n%s", r.Log())
		}
	})
}

func TestClusterThreeMasters(t *testing.T) {
	eachProvider(t, []string{"redis-server", "redis-cli"}, func(t *testing.T, k provider.Kind) {
		cl := startCluster(t, k, 3).Client(t)
		ctx := context.Background()
		for _, key := range []string{"a", "b", "c", "d", "e", "f"} {
			if err := cl.Set(ctx, key, key, 0).Err(); err != nil {
				t.Fatalf("set %s: %v", key, err)
			}
		}
		var mu sync.Mutex
		masters := 0
		err := cl.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error {
			mu.Lock()
			defer mu.Unlock()
			masters++
			if !strings.HasPrefix(c.Options().Addr, "127.0.0.1:") {
				t.Errorf("master announced at %s, want 127.0.0.1", c.Options().Addr)
			}
			return c.Ping(ctx).Err()
		})
		if err != nil || masters != 3 {
			t.Fatalf("masters %d, %v", masters, err)
		}
	})
}

func TestSentinelFindsTheMaster(t *testing.T) {
	eachProvider(t, []string{"redis-server"}, func(t *testing.T, k provider.Kind) {
		s := startSentinel(t, k)
		ctx := context.Background()
		sc := redis.NewSentinelClient(&redis.Options{Addr: s.Sentinel.Addr})
		defer sc.Close()
		addr, err := sc.GetMasterAddrByName(ctx, s.Name).Result()
		if err != nil || len(addr) != 2 || "127.0.0.1:"+addr[1] != s.Master.Addr {
			t.Fatalf("sentinel reports master %v, %v; want %s", addr, err, s.Master.Addr)
		}
		c := s.Client(t)
		if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
			t.Fatal(err)
		}
		if v, err := s.Master.Client().Get(ctx, "k").Result(); err != nil || v != "v" {
			t.Fatalf("write through the sentinel client not on the master: %q, %v", v, err)
		}
	})
}
