// Package redisscan lists the keys that match a pattern on one Redis server
// or on every master of a Redis Cluster, where SCAN is per node. It is for
// inspection and start-up, not for hot paths.
package redisscan

import (
	"context"
	"sync"

	"github.com/redis/go-redis/v9"
)

// Keys returns every key matching pattern (SCAN MATCH, in no order): on
// every master of a cluster, or on the one server.
func Keys(ctx context.Context, rdb redis.UniversalClient, pattern string) ([]string, error) {
	var mu sync.Mutex
	var out []string
	scan := func(ctx context.Context, c *redis.Client) error {
		iter := c.Scan(ctx, 0, pattern, 1000).Iterator()
		for iter.Next(ctx) {
			mu.Lock()
			out = append(out, iter.Val())
			mu.Unlock()
		}
		return iter.Err()
	}
	switch c := rdb.(type) {
	case *redis.ClusterClient:
		return out, c.ForEachMaster(ctx, scan)
	case *redis.Client:
		return out, scan(ctx, c)
	}
	iter := rdb.Scan(ctx, 0, pattern, 1000).Iterator()
	for iter.Next(ctx) {
		out = append(out, iter.Val())
	}
	return out, iter.Err()
}
