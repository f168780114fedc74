package testenv

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/xgr-sidecar/xgr/internal/redisserver"
	"github.com/xgr-sidecar/xgr/internal/toolbin"
	"github.com/xgr-sidecar/xgr/testenv/provider"
)

// localRedis starts a redis-server child process on a free loopback port
// with its files in a private temporary directory.
func localRedis(t testing.TB, args []string) *Redis {
	t.Helper()
	if _, err := toolbin.Find("redis-server"); err != nil {
		t.Fatal(err)
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
	r := &Redis{Network: srv.Network, Addr: srv.Addr, t: t, srv: srv}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("redis-server %s log:\n%s", r.Addr, r.Log())
		}
		r.Stop()
	})
	return r
}

// localCluster starts n local cluster nodes and joins them with the local
// redis-cli.
func localCluster(t testing.TB, n int) *Cluster {
	t.Helper()
	cli, err := toolbin.Find("redis-cli")
	if err != nil {
		t.Fatal(err)
	}
	c := &Cluster{}
	var addrs []string
	for i := 0; i < n; i++ {
		// Cluster nodes also use port+10000 for the bus; FreePort checks both.
		node := startRedis(t, provider.Local, WithArgs(clusterArgs...))
		c.Nodes = append(c.Nodes, node)
		addrs = append(addrs, node.Addr)
	}
	args := append([]string{"--cluster", "create"}, addrs...)
	args = append(args, "--cluster-replicas", "0", "--cluster-yes")
	if out, err := exec.Command(cli, args...).CombinedOutput(); err != nil {
		t.Fatalf("redis-cli --cluster create: %v\n%s", err, out)
	}
	return c
}

// localSentinel starts a local master and a local sentinel process.
func localSentinel(t testing.TB) *Sentinel {
	t.Helper()
	master := startRedis(t, provider.Local)
	dir := t.TempDir()
	conf := filepath.Join(dir, "sentinel.conf")
	_, port, _ := net.SplitHostPort(master.Addr)
	p, _ := strconv.Atoi(port)
	if err := os.WriteFile(conf, []byte(sentinelConf(p)), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, err := redisserver.Start(redisserver.Options{Dir: dir, Port: FreePort(t), ConfigFile: conf, Args: []string{"--sentinel"}})
	if err != nil {
		t.Fatalf("redis sentinel did not start: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("sentinel log:\n%s", srv.Log())
		}
		srv.Stop()
	})
	return &Sentinel{Master: master, Sentinel: &Redis{Network: srv.Network, Addr: srv.Addr, t: t, srv: srv}, Name: "xgr"}
}
