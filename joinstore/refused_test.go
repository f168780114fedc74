package joinstore

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/testenv"
)

// What Redis Cluster answers for a command it did not run because the
// slot moves is sent again; every other error is the caller's.
func TestRefusedClassification(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{errors.New("TRYAGAIN Multiple keys request during rehashing of slot"), true},
		{errors.New("MOVED 14273 127.0.0.1:7001"), true},
		{errors.New("ASK 14273 127.0.0.1:7001"), true},
		{errors.New("NOSCRIPT No matching script."), false},
		{errors.New("LEASE_LOST"), false},
		{errors.New("ERR Script attempted to access a non local key in a cluster node"), false},
		{errors.New("CLUSTERDOWN The cluster is down"), false},
		{context.DeadlineExceeded, false},
	} {
		if got := refused(c.err); got != c.want {
			t.Errorf("refused(%v) = %v, want %v", c.err, got, c.want)
		}
	}
	calls := 0
	err := whileRefused(context.Background(), func() error {
		if calls++; calls < 3 {
			return errors.New("TRYAGAIN Multiple keys request during rehashing of slot")
		}
		return nil
	})
	if err != nil || calls != 3 {
		t.Errorf("whileRefused: %v after %d calls, want nil after 3", err, calls)
	}
	calls = 0
	if err := whileRefused(context.Background(), func() error { calls++; return errors.New("LEASE_LOST") }); err == nil || calls != 1 {
		t.Errorf("whileRefused of an error of the script's own: %v after %d calls, want it after 1", err, calls)
	}
}

// A shared pipeline while a slot migrates (keys split between source and
// target): its first command is refused with TRYAGAIN, a later one is
// redirected with ASK. The redirected one runs once (go-redis v9.23 sent
// it to both masters again, with the node's whole share, after the first
// command's TRYAGAIN), and the refused one is sent again until the slot
// has moved, then runs.
func TestBatcherThroughSlotMigration(t *testing.T) {
	c := testenv.StartCluster(t, 3)
	rdb := c.Client(t)
	ctx := context.Background()
	var nodes []*redis.Client
	var ids []string
	for _, n := range c.Nodes {
		cl := n.Client()
		id, err := cl.Do(ctx, "cluster", "myid").Text()
		if err != nil {
			t.Fatal(err)
		}
		nodes, ids = append(nodes, cl), append(ids, id)
	}
	do := func(node int, args ...any) {
		t.Helper()
		if err := nodes[node].Do(ctx, args...).Err(); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
	}
	const split, moved, fresh = "mig:{m}:split", "mig:{m}:moved", "mig:{m}:fresh"
	slot, err := nodes[0].ClusterKeySlot(ctx, split).Result()
	if err != nil {
		t.Fatal(err)
	}
	from := -1
	shards, err := nodes[0].ClusterShards(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, sh := range shards {
		for _, r := range sh.Slots {
			if r.Start <= slot && slot <= r.End {
				for _, n := range sh.Nodes {
					for i, id := range ids {
						if n.Role == "master" && n.ID == id {
							from = i
						}
					}
				}
			}
		}
	}
	if from < 0 {
		t.Fatalf("slot %d: no master", slot)
	}
	to := (from + 1) % len(nodes)
	for _, k := range []string{split, moved} {
		if err := rdb.Set(ctx, k, 1, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	host, port, _ := net.SplitHostPort(c.Nodes[to].Addr)
	do(to, "cluster", "setslot", slot, "importing", ids[from])
	do(from, "cluster", "setslot", slot, "migrating", ids[to])
	do(from, "migrate", host, port, "", 0, 5000, "keys", moved)
	tryAgains := func() int {
		s, err := nodes[from].Info(ctx, "errorstats").Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(s, "\n") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), "errorstat_TRYAGAIN:count="); ok {
				n, _ := strconv.Atoi(v)
				return n
			}
		}
		return 0
	}

	b := newBatcher(rdb, 1)
	var first, second *redis.Cmd
	done := make(chan error, 1)
	go func() {
		_, err := b.pipelined(ctx, func(p redis.Pipeliner) {
			// split is on the source, fresh on neither: TRYAGAIN.
			first = p.Eval(ctx, `redis.call("SET", KEYS[2], "x") return redis.call("INCR", KEYS[1])`, []string{split, fresh})
			// moved is on the target only: ASK, then it runs there.
			second = p.Eval(ctx, `return redis.call("INCR", KEYS[1])`, []string{moved})
		})
		done <- err
	}()
	// The pipeline's TRYAGAIN, then at least one of the batcher's own
	// sends of the refused command: the slot may move now.
	deadline := time.Now().Add(10 * time.Second)
	for tryAgains() < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("the source refused %d commands in 10s, want the pipeline's and a resend", tryAgains())
		}
		time.Sleep(5 * time.Millisecond)
	}
	do(from, "migrate", host, port, "", 0, 5000, "keys", split)
	for _, i := range []int{to, from, 3 - to - from} {
		do(i, "cluster", "setslot", slot, "node", ids[to])
	}
	if err := <-done; err != nil {
		t.Fatalf("the group failed: %v (first %v, second %v)", err, first.Err(), second.Err())
	}
	if v, _ := first.Int(); v != 2 {
		t.Errorf("the refused command's reply %v, %v; want 2", first.Val(), first.Err())
	}
	if v, _ := second.Int(); v != 2 {
		t.Errorf("the redirected command's reply %v, %v; want 2", second.Val(), second.Err())
	}
	for k, want := range map[string]string{split: "2", moved: "2", fresh: "x"} {
		if got, err := rdb.Get(ctx, k).Result(); err != nil || got != want {
			t.Errorf("%s = %q, %v; want %q (each command run once)", k, got, err, want)
		}
	}
}
