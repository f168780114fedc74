package main

import (
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"
	"github.com/urfave/cli/v2"
)

// redisFlags select the Redis that holds session state: one server by URL,
// a Redis Cluster by seed addresses, or a master through Sentinel.
func redisFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "redis", Value: "redis://127.0.0.1:6379/0", EnvVars: []string{"XGR_REDIS"}, Usage: "Redis URL (redis://[:password@]host:port/db, rediss:// for TLS)"},
		&cli.StringFlag{Name: "redis-cluster", EnvVars: []string{"XGR_REDIS_CLUSTER"}, Usage: "comma-separated seed addresses of a Redis Cluster (instead of --redis)"},
		&cli.StringFlag{Name: "redis-sentinel", EnvVars: []string{"XGR_REDIS_SENTINEL"}, Usage: "comma-separated Sentinel addresses (with --redis-master)"},
		&cli.StringFlag{Name: "redis-master", EnvVars: []string{"XGR_REDIS_MASTER"}, Usage: "master name known to the Sentinels"},
	}
}

func openRedis(c *cli.Context) (redis.UniversalClient, error) {
	split := func(s string) []string {
		var out []string
		for _, a := range strings.Split(s, ",") {
			if a = strings.TrimSpace(a); a != "" {
				out = append(out, a)
			}
		}
		return out
	}
	switch {
	case c.String("redis-cluster") != "":
		return redis.NewClusterClient(&redis.ClusterOptions{Addrs: split(c.String("redis-cluster")), ContextTimeoutEnabled: true}), nil
	case c.String("redis-sentinel") != "":
		if c.String("redis-master") == "" {
			return nil, fmt.Errorf("--redis-sentinel needs --redis-master")
		}
		return redis.NewFailoverClient(&redis.FailoverOptions{MasterName: c.String("redis-master"), SentinelAddrs: split(c.String("redis-sentinel")), ContextTimeoutEnabled: true}), nil
	}
	opts, err := redis.ParseURL(c.String("redis"))
	if err != nil {
		return nil, fmt.Errorf("--redis %q: %w", c.String("redis"), err)
	}
	// Deadlines of a context bound the socket too (a health check must not
	// wait out a paused or frozen Redis).
	opts.ContextTimeoutEnabled = true
	return redis.NewClient(opts), nil
}
