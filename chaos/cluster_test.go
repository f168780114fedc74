//go:build chaos

package chaos

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/internal/toolbin"
	"github.com/xgr-sidecar/xgr/testenv"
)

// replicatedCluster is a Redis Cluster of masters with one replica each,
// every node with AOF (fsync always) and a node timeout of 1 s.
type replicatedCluster struct {
	nodes []*testenv.Redis
	addrs []string
}

func startReplicatedCluster(t *testing.T, masters int) *replicatedCluster {
	t.Helper()
	cli, err := toolbin.Find("redis-cli")
	if err != nil {
		t.Fatal(err)
	}
	c := &replicatedCluster{}
	for i := 0; i < 2*masters; i++ {
		n := testenv.StartRedis(t, testenv.WithAOF(), testenv.WithArgs("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
			"--cluster-node-timeout", "1000"))
		c.nodes = append(c.nodes, n)
		c.addrs = append(c.addrs, n.Addr)
	}
	args := append([]string{"--cluster", "create"}, c.addrs...)
	args = append(args, "--cluster-replicas", "1", "--cluster-yes")
	if out, err := exec.Command(cli, args...).CombinedOutput(); err != nil {
		t.Fatalf("redis-cli --cluster create: %v\n%s", err, out)
	}
	if err := c.waitHealthy(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	return c
}

// node is one line of CLUSTER NODES.
type node struct {
	id, addr, role, masterID string
	failed                   bool
	slots                    [][2]int64
}

func (n node) serves(slot int64) bool {
	for _, r := range n.slots {
		if r[0] <= slot && slot <= r[1] {
			return true
		}
	}
	return false
}

func (c *replicatedCluster) clusterNodes(addr string) ([]node, error) {
	cl := redis.NewClient(&redis.Options{Addr: addr, DialTimeout: 500 * time.Millisecond, ReadTimeout: time.Second})
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	text, err := cl.ClusterNodes(ctx).Result()
	if err != nil {
		return nil, err
	}
	var out []node
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		f := strings.Fields(line)
		if len(f) < 8 {
			continue
		}
		a, _, _ := strings.Cut(f[1], "@")
		n := node{id: f[0], addr: a, masterID: f[3], failed: strings.Contains(f[2], "fail")}
		for _, r := range f[8:] {
			lo, hi, isRange := strings.Cut(r, "-")
			if !isRange {
				hi = lo
			}
			a, err1 := strconv.ParseInt(lo, 10, 64)
			b, err2 := strconv.ParseInt(hi, 10, 64)
			if err1 == nil && err2 == nil {
				n.slots = append(n.slots, [2]int64{a, b})
			}
		}
		switch {
		case strings.Contains(f[2], "master"):
			n.role = "master"
		case strings.Contains(f[2], "slave"):
			n.role = "replica"
		}
		out = append(out, n)
	}
	return out, nil
}

func info(addr, section string) (string, error) {
	cl := redis.NewClient(&redis.Options{Addr: addr, DialTimeout: 500 * time.Millisecond, ReadTimeout: time.Second})
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if section == "cluster" {
		return cl.ClusterInfo(ctx).Result()
	}
	return cl.Info(ctx, section).Result()
}

// waitHealthy waits until every node says cluster_state:ok, every master
// has a connected replica and every replica's link to its master is up.
func (c *replicatedCluster) waitHealthy(limit time.Duration) error {
	deadline := time.Now().Add(limit)
	var last string
	for time.Now().Before(deadline) {
		ok := true
		for _, a := range c.addrs {
			ci, err := info(a, "cluster")
			if err != nil || !strings.Contains(ci, "cluster_state:ok") {
				ok, last = false, fmt.Sprintf("%s: cluster_state not ok (%v)", a, err)
				break
			}
			rep, err := info(a, "replication")
			if err != nil {
				ok, last = false, fmt.Sprintf("%s: %v", a, err)
				break
			}
			if strings.Contains(rep, "role:master") && !strings.Contains(rep, "connected_slaves:1") ||
				strings.Contains(rep, "role:slave") && !strings.Contains(rep, "master_link_status:up") {
				ok, last = false, fmt.Sprintf("%s: replication not up:\n%s", a, rep)
				break
			}
		}
		if ok {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("redis cluster not healthy after %s: %s", limit, last)
}

// killMaster kills a random master with SIGKILL and waits until its
// replica has taken over (it reports role master and cluster_state:ok);
// then it restarts the old master on its directory, where it rejoins as
// a replica. It returns the failover time.
func (c *replicatedCluster) killMaster(rn *run) (string, time.Duration, error) {
	var masters []node
	var all []node
	for _, a := range c.addrs {
		ns, err := c.clusterNodes(a)
		if err == nil {
			all = ns
			break
		}
	}
	for _, n := range all {
		if n.role == "master" && !n.failed {
			masters = append(masters, n)
		}
	}
	if len(masters) == 0 {
		return "", 0, fmt.Errorf("no master found")
	}
	victim := masters[rn.rng.Intn(len(masters))]
	var successor string
	for _, n := range all {
		if n.role == "replica" && n.masterID == victim.id {
			successor = n.addr
		}
	}
	var vnode *testenv.Redis
	for _, n := range c.nodes {
		if n.Addr == victim.addr {
			vnode = n
		}
	}
	if successor == "" || vnode == nil {
		return "", 0, fmt.Errorf("master %s: no replica or node found", victim.addr)
	}
	// Does it serve the owner's keys (root allocation, idempotency keys)?
	vcl := redis.NewClient(&redis.Options{Addr: victim.addr})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	slot, err := vcl.ClusterKeySlot(ctx, "xgr:{own:"+rn.owner+"}:seq").Result()
	cancel()
	vcl.Close()
	if err != nil {
		return "", 0, err
	}
	ownsOwner := victim.serves(slot)
	vnode.Stop()
	at := time.Now()
	deadline := at.Add(30 * time.Second)
	var failover time.Duration
	for {
		rep, err := info(successor, "replication")
		ci, err2 := info(successor, "cluster")
		if err == nil && err2 == nil && strings.Contains(rep, "role:master") && strings.Contains(ci, "cluster_state:ok") {
			failover = time.Since(at)
			break
		}
		if time.Now().After(deadline) {
			return "", 0, fmt.Errorf("replica %s did not take over from %s within 30s", successor, victim.addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(time.Second)
	if err := vnode.TryRestart(); err != nil {
		return "", failover, fmt.Errorf("restarting the old master %s: %w", victim.addr, err)
	}
	msg := fmt.Sprintf("kill -9 master %s (serves the owner's key slot %d: %v); replica %s took over in %s; old master restarted",
		victim.addr, slot, ownsOwner, successor, failover.Round(time.Millisecond))
	// The next master kill needs every master replicated again.
	if err := c.waitHealthy(30 * time.Second); err != nil {
		return msg, failover, err
	}
	return msg + " and in sync as a replica", failover, nil
}

// runCluster: three masters with one replica each (AOF on every node;
// replication to the replica is asynchronous). Faults: kill -9 of
// replicas, and kill -9 of a master under load, which its replica
// replaces (cluster-node-timeout 1000 ms).
func runCluster(t *testing.T, cfg config, shapes []shape) {
	c := startReplicatedCluster(t, 3)
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.addrs, ContextTimeoutEnabled: true, DialTimeout: time.Second, ReadTimeout: 3 * time.Second, WriteTimeout: 3 * time.Second})
	defer rdb.Close()
	fl := newFleet(t, cfg.replicas, []string{"--redis-cluster", strings.Join(c.addrs, ",")}, abs(t, ostcFiles...), abs(t, outcomesFile)[0])
	rn := newRun(t, cfg, "cluster", rdb, fl, shapes)
	cut := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.addrs, ContextTimeoutEnabled: true, DialTimeout: time.Second, ReadTimeout: 3 * time.Second, WriteTimeout: 3 * time.Second})
	defer cut.Close()
	rn.cut = cutStore(cut)
	rn.begin = time.Now()
	rn.startLoad(cfg.duration * 9 / 10)
	var failovers []string
	var masterKills []fault
	for i := 0; i < cfg.masterKills; i++ {
		masterKills = append(masterKills, fault{kind: "master kill -9", do: func() (string, error) {
			msg, d, err := c.killMaster(rn)
			failovers = append(failovers, d.Round(time.Millisecond).String())
			return msg, err
		}})
	}
	fs := rn.plan(max(1, cfg.kills/2), masterKills...)
	rn.runFaults(fs)
	settled := rn.settle()
	fl.scrapeAll()
	fl.stop(10 * time.Second)
	if err := c.waitHealthy(20 * time.Second); err != nil {
		t.Logf("cluster after the run: %v", err)
	}
	rep := rn.audit()
	rn.print(rep, settled, []string{
		"redis cluster\t3 masters + 1 replica each, AOF fsync always per node, async replication, node timeout 1000ms",
		"master kill -9 survived\t" + strconv.Itoa(rn.counts["master kill -9"]) + " (failover " + strings.Join(failovers, ", ") + ")",
	})
}
