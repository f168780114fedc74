package testenv

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/internal/toolbin"
)

// Redis is a real redis-server started for one test on a free loopback port.
// It writes into a private temporary directory and is stopped on cleanup;
// its log is printed when the test failed.
type Redis struct {
	t    testing.TB
	Addr string
	dir  string
	args []string
	mu   sync.Mutex
	cmd  *exec.Cmd
	log  *bytes.Buffer
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
	r := &Redis{t: t, dir: t.TempDir()}
	for _, o := range opts {
		o(&r.args)
	}
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		port := FreePort(t)
		r.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		if err = r.start(); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("redis-server did not start: %v\n%s", err, r.logText())
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("redis-server %s log:\n%s", r.Addr, r.logText())
		}
		r.Stop()
	})
	return r
}

func (r *Redis) start() error {
	bin, err := toolbin.Find("redis-server")
	if err != nil {
		r.t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(r.Addr)
	args := append([]string{
		"--bind", "127.0.0.1", "--port", port, "--dir", r.dir,
		"--save", "", "--protected-mode", "no", "--daemonize", "no",
		"--logfile", "", "--loglevel", "notice",
	}, r.args...)
	r.mu.Lock()
	r.log = &bytes.Buffer{}
	r.cmd = exec.Command(bin, args...)
	r.cmd.Stdout, r.cmd.Stderr = r.log, r.log
	r.mu.Unlock()
	if err := r.cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- r.cmd.Wait() }()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			return fmt.Errorf("redis-server exited: %v", err)
		default:
		}
		c := redis.NewClient(&redis.Options{Addr: r.Addr, MaxRetries: -1})
		err := c.Ping(context.Background()).Err()
		c.Close()
		if err == nil {
			go func() { <-exited }()
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	r.cmd.Process.Kill()
	return fmt.Errorf("redis-server on %s did not answer PING within 10s", r.Addr)
}

func (r *Redis) logText() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.log == nil {
		return ""
	}
	return r.log.String()
}

// Stop kills the server (as a crash would: no shutdown save).
func (r *Redis) Stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cmd != nil && r.cmd.Process != nil {
		r.cmd.Process.Kill()
		r.cmd.Process.Wait()
		r.cmd = nil
	}
}

// Restart kills the server and starts it again on the same port and data
// directory (with AOF on, acknowledged writes survive).
func (r *Redis) Restart() {
	r.t.Helper()
	r.Stop()
	var err error
	for attempt := 0; attempt < 50; attempt++ { // the port may linger briefly
		if err = r.start(); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	r.t.Fatalf("redis-server did not restart: %v\n%s", err, r.logText())
}

// Client returns a client for the server, closed on cleanup.
func (r *Redis) Client() *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: r.Addr})
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

// TempDir is where a server keeps its files (for tests that inspect them).
func (r *Redis) TempDir() string { return filepath.Clean(r.dir) }

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
