package testenv

import (
	"context"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/testenv/provider"
)

// Redis is a real Redis server started for one test on a loopback port:
// a local redis-server in a private temporary directory, or a container of
// provider.RedisImage with its port published on 127.0.0.1. It is stopped
// on cleanup; its log is printed when the test failed.
type Redis struct {
	// Network and Addr are what a client dials: "tcp" and 127.0.0.1:PORT.
	Network, Addr string

	t   testing.TB
	srv server
}

// server is one running Redis process, local or in a container.
type server interface {
	// Log is what the server printed so far.
	Log() string
	// Stop kills the server as a crash would (no shutdown save).
	Stop()
	// Restart kills the server and starts it again on the same address and
	// data directory.
	Restart() error
}

// RedisOption adjusts the server's command line.
type RedisOption func(*[]string)

// WithAOF turns on the append-only file with fsync on every write, so a
// restart keeps every acknowledged write.
func WithAOF() RedisOption {
	return func(a *[]string) { *a = append(*a, "--appendonly", "yes", "--appendfsync", "always") }
}

// WithArgs passes extra redis-server arguments.
func WithArgs(args ...string) RedisOption {
	return func(a *[]string) { *a = append(*a, args...) }
}

// StartRedis starts a Redis server on the test provider (see Provider) and
// waits until it answers PING. A missing binary (local) or engine (docker)
// fails the test with what to install.
func StartRedis(t testing.TB, opts ...RedisOption) *Redis {
	t.Helper()
	return startRedis(t, kind(t), opts...)
}

func startRedis(t testing.TB, k provider.Kind, opts ...RedisOption) *Redis {
	t.Helper()
	var args []string
	for _, o := range opts {
		o(&args)
	}
	if k == provider.Docker {
		return dockerRedis(t, args, nil)
	}
	return localRedis(t, args)
}

// Log is what the server printed so far.
func (r *Redis) Log() string { return r.srv.Log() }

// Stop kills the server as a crash would (no shutdown save).
func (r *Redis) Stop() { r.srv.Stop() }

// Restart kills the server and starts it again on the same port and data
// directory (with AOF on, acknowledged writes survive).
func (r *Redis) Restart() {
	r.t.Helper()
	if err := r.TryRestart(); err != nil {
		r.t.Fatalf("redis-server did not restart: %v", err)
	}
}

// TryRestart is Restart that reports a failure instead of failing the test
// (for goroutines other than the test's).
func (r *Redis) TryRestart() error { return r.srv.Restart() }

// CrashRestart kills the server as a crash would, runs between while it
// is down (e.g. to cut its append-only file back as an OS crash would),
// and starts it again on the same port and data directory.
func (r *Redis) CrashRestart(between func() error) error {
	r.srv.Stop()
	if err := between(); err != nil {
		return err
	}
	return r.srv.Restart()
}

// Client returns a client for the server, closed on cleanup.
func (r *Redis) Client() *redis.Client {
	c := redis.NewClient(&redis.Options{Network: r.Network, Addr: r.Addr})
	r.t.Cleanup(func() { c.Close() })
	return c
}

// Cluster is a Redis Cluster of real redis-server masters without replicas.
type Cluster struct {
	Nodes []*Redis
}

// clusterArgs turn a redis-server into a cluster node.
var clusterArgs = []string{"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "2000"}

// StartCluster starts n masters with cluster mode on, joins them with
// `redis-cli --cluster create` and waits until every node reports
// cluster_state:ok. Every node is reachable on 127.0.0.1 under the address
// it announces: locally each node is a process on a loopback port; in
// containers the nodes share one network namespace, each listening on the
// port that is published under the same number on 127.0.0.1.
func StartCluster(t testing.TB, n int) *Cluster {
	t.Helper()
	return startCluster(t, kind(t), n)
}

func startCluster(t testing.TB, k provider.Kind, n int) *Cluster {
	t.Helper()
	var c *Cluster
	if k == provider.Docker {
		c = dockerCluster(t, n)
	} else {
		c = localCluster(t, n)
	}
	deadline := time.Now().Add(20 * time.Second)
	for _, node := range c.Nodes {
		client := redis.NewClient(&redis.Options{Addr: node.Addr})
		for {
			info, err := client.ClusterInfo(context.Background()).Result()
			if err == nil && strings.Contains(info, "cluster_state:ok") {
				break
			}
			if time.Now().After(deadline) {
				client.Close()
				t.Fatalf("cluster node %s not ok after 20s: %v\n%s", node.Addr, err, info)
			}
			time.Sleep(50 * time.Millisecond)
		}
		client.Close()
	}
	return c
}

// Client returns a cluster client, closed on cleanup.
func (c *Cluster) Client(t testing.TB) *redis.ClusterClient {
	var addrs []string
	for _, n := range c.Nodes {
		addrs = append(addrs, n.Addr)
	}
	cl := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs})
	t.Cleanup(func() { cl.Close() })
	return cl
}

// FreePort returns a loopback TCP port that is free, together with the port
// 10000 above it (a Redis Cluster node's bus port).
func FreePort(t testing.TB) int {
	t.Helper()
	for i := 0; i < 100; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if port+10000 > 65535 {
			continue
		}
		if bus, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port+10000)); err == nil {
			bus.Close()
			return port
		}
	}
	t.Fatal("no free loopback port pair found")
	return 0
}

// Backends runs test against a single Redis server and, in parallel, against
// a three-master Redis Cluster, each started for the test.
func Backends(t *testing.T, test func(t *testing.T, rdb redis.UniversalClient)) {
	t.Run("single", func(t *testing.T) {
		t.Parallel()
		test(t, StartRedis(t).Client())
	})
	t.Run("cluster", func(t *testing.T) {
		t.Parallel()
		test(t, StartCluster(t, 3).Client(t))
	})
}

// Sentinel is a master Redis server watched by one Redis Sentinel.
type Sentinel struct {
	Master   *Redis
	Sentinel *Redis
	// Name is the monitored master's name.
	Name string
}

// sentinelConf is the sentinel's configuration for a master on loopback
// port masterPort. Sentinel rewrites the file, so it must be writable.
func sentinelConf(masterPort int) string {
	return "sentinel monitor xgr 127.0.0.1 " + strconv.Itoa(masterPort) + " 1\nsentinel down-after-milliseconds xgr 2000\n"
}

// StartSentinel starts a master and a sentinel monitoring it as "xgr" at
// 127.0.0.1 (in containers, the sentinel shares the master's network
// namespace, so that address is the same inside and outside).
func StartSentinel(t testing.TB) *Sentinel {
	t.Helper()
	return startSentinel(t, kind(t))
}

func startSentinel(t testing.TB, k provider.Kind) *Sentinel {
	t.Helper()
	if k == provider.Docker {
		return dockerSentinel(t)
	}
	return localSentinel(t)
}

// Client returns a go-redis universal client that finds the master through
// the sentinel, closed on cleanup.
func (s *Sentinel) Client(t testing.TB) redis.UniversalClient {
	c := redis.NewUniversalClient(&redis.UniversalOptions{MasterName: s.Name, Addrs: []string{s.Sentinel.Addr}})
	t.Cleanup(func() { c.Close() })
	return c
}
