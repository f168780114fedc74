package testenv

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/internal/redisserver"
	"github.com/xgr-sidecar/xgr/internal/toolbin"
)

// Redis is a real redis-server started for one test on a free loopback port.
// It writes into a private temporary directory and is stopped on cleanup;
// its log is printed when the test failed.
type Redis struct {
	*redisserver.Server
	t testing.TB
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

// StartRedis starts a redis-server and waits until it answers PING. A missing
// binary fails the test with the command that installs it.
func StartRedis(t testing.TB, opts ...RedisOption) *Redis {
	t.Helper()
	if _, err := toolbin.Find("redis-server"); err != nil {
		t.Fatal(err)
	}
	var args []string
	for _, o := range opts {
		o(&args)
	}
	dir := t.TempDir()
	var srv *redisserver.Server
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		if srv, err = redisserver.Start(redisserver.Options{Dir: dir, Port: FreePort(t), Args: args}); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("redis-server did not start: %v", err)
	}
	r := &Redis{Server: srv, t: t}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("redis-server %s log:\n%s", r.Addr, r.Log())
		}
		r.Stop()
	})
	return r
}

// Restart kills the server and starts it again on the same port and data
// directory (with AOF on, acknowledged writes survive).
func (r *Redis) Restart() {
	r.t.Helper()
	if err := r.Server.Restart(); err != nil {
		r.t.Fatalf("redis-server did not restart: %v", err)
	}
}

// Client returns a client for the server, closed on cleanup.
func (r *Redis) Client() *redis.Client {
	c := r.Server.Client()
	r.t.Cleanup(func() { c.Close() })
	return c
}

// Cluster is a Redis Cluster of real redis-server masters without replicas.
type Cluster struct {
	Nodes []*Redis
}

// StartCluster starts n masters with cluster mode on, joins them with
// `redis-cli --cluster create` and waits until every node reports
// cluster_state:ok.
func StartCluster(t testing.TB, n int) *Cluster {
	t.Helper()
	cli, err := toolbin.Find("redis-cli")
	if err != nil {
		t.Fatal(err)
	}
	c := &Cluster{}
	var addrs []string
	for i := 0; i < n; i++ {
		// Cluster nodes also use port+10000 for the bus; FreePort checks both.
		node := StartRedis(t, WithArgs("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "2000"))
		c.Nodes = append(c.Nodes, node)
		addrs = append(addrs, node.Addr)
	}
	args := append([]string{"--cluster", "create"}, addrs...)
	args = append(args, "--cluster-replicas", "0", "--cluster-yes")
	if out, err := exec.Command(cli, args...).CombinedOutput(); err != nil {
		t.Fatalf("redis-cli --cluster create: %v\n%s", err, out)
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

// Backends runs test against a single redis-server and, in parallel, against
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

// Sentinel is a master redis-server watched by one Redis Sentinel.
type Sentinel struct {
	Master   *Redis
	Sentinel *Redis
	// Name is the monitored master's name.
	Name string
}

// StartSentinel starts a master and a sentinel monitoring it as "xgr".
func StartSentinel(t testing.TB) *Sentinel {
	t.Helper()
	master := StartRedis(t)
	dir := t.TempDir()
	conf := filepath.Join(dir, "sentinel.conf")
	_, port, _ := net.SplitHostPort(master.Addr)
	text := "sentinel monitor xgr 127.0.0.1 " + port + " 1\nsentinel down-after-milliseconds xgr 2000\n"
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, err := redisserver.Start(redisserver.Options{Dir: dir, Port: FreePort(t), ConfigFile: conf, Args: []string{"--sentinel"}})
	if err != nil {
		t.Fatalf("redis sentinel did not start: %v", err)
	}
	s := &Redis{Server: srv, t: t}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("sentinel log:\n%s", s.Log())
		}
		s.Stop()
	})
	return &Sentinel{Master: master, Sentinel: s, Name: "xgr"}
}

// Client returns a go-redis universal client that finds the master through
// the sentinel, closed on cleanup.
func (s *Sentinel) Client(t testing.TB) redis.UniversalClient {
	c := redis.NewUniversalClient(&redis.UniversalOptions{MasterName: s.Name, Addrs: []string{s.Sentinel.Addr}})
	t.Cleanup(func() { c.Close() })
	return c
}
