package testenv

import (
	"context"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"
)

func TestRedisRestartKeepsAOFWrites(t *testing.T) {
	r := StartRedis(t, WithAOF())
	ctx := context.Background()
	c := r.Client()
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	r.Restart()
	if v, err := c.Get(ctx, "k").Result(); err != nil || v != "v" {
		t.Fatalf("after restart: %q, %v", v, err)
	}
}

func TestClusterThreeMasters(t *testing.T) {
	cl := StartCluster(t, 3).Client(t)
	ctx := context.Background()
	for _, k := range []string{"a", "b", "c", "d", "e", "f"} {
		if err := cl.Set(ctx, k, k, 0).Err(); err != nil {
			t.Fatalf("set %s: %v", k, err)
		}
	}
	var mu sync.Mutex
	masters := 0
	err := cl.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error {
		mu.Lock()
		defer mu.Unlock()
		masters++
		return c.Ping(ctx).Err()
	})
	if err != nil || masters != 3 {
		t.Fatalf("masters %d, %v", masters, err)
	}
}
