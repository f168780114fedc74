package joinstore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/internal/redisstat"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/testenv"
)

// BenchmarkPlainStep measures the plain step of a running session: a loop
// step that respawns itself, its commit claiming the child it creates (one
// script, one round trip), as a replica runs a chain. It reports steps/s,
// Redis round trips, commands (all, also those a script runs) and Redis
// CPU µs per step (INFO commandstats: the EVALSHA's time, which includes
// its commands), and latency percentiles of the commit.
func BenchmarkPlainStep(b *testing.B) {
	srv := testenv.StartRedis(b)
	rdb := srv.Client()
	s, ctx := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour, ServerClock: true}), context.Background()
	if err := s.Preload(ctx); err != nil {
		b.Fatal(err)
	}
	o, _ := registry.Parse([]byte(`{"id":"loop","structure":{"S":{"rule":"x","onValid":{"spawns":["S"]}}}}`))
	table := reactor.Table(o)
	res, err := s.Start(ctx, joinstore.StartRequest{Owner: benchOwner, StartStep: "S", Now: time.Now()})
	if err != nil {
		b.Fatal(err)
	}
	c, err := s.Claim(ctx, res.Root, time.Now(), time.Minute, "w", table, []int64{1})
	if err != nil || len(c) != 1 {
		b.Fatalf("claim: %v %v", c, err)
	}
	cur := c[0]
	payload := json.RawMessage(`{"order":"A-1029","amount":"125000000000000000000"}`)
	stats := srv.Client()
	before, err := redisstat.Read(ctx, stats)
	if err != nil {
		b.Fatal(err)
	}
	rt := &redisstat.RoundTrips{}
	rdb.AddHook(rt)
	valid := true
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		ch := reactor.Children(o.Step("S"), false, true, reactor.Parent{Group: cur.JoinGroupID, FirstChild: cur.FirstChild}, payload, start, 0)
		ch[0].Reserve = table["S"].Reserve
		cr, err := s.Commit(ctx, cur, start, joinstore.Commit{Status: "done", Valid: &valid, Payload: payload, Children: ch, ClaimLease: time.Minute})
		if err != nil || len(cr.Claims) != 1 {
			b.Fatalf("commit: %+v %v", cr, err)
		}
		cur = cr.Claims[0]
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	after, err := redisstat.Read(ctx, stats)
	if err != nil {
		b.Fatal(err)
	}
	d := after.Sub(before)
	report(b, lat, float64(rt.N())/float64(b.N), "roundtrips/step")
	b.ReportMetric(float64(d.Calls())/float64(b.N), "redis-cmds/step")
	b.ReportMetric(d.CPU(map[string]int64{"evalsha": int64(b.N)})/float64(b.N), "redis-µs/step")
	if os.Getenv("XGR_BENCH_SHUTDOWN") != "" {
		// A profiler wrapping redis-server (scripts/callgrind-step.sh)
		// writes its output when the server exits, not when it is killed.
		stats.Shutdown(ctx)
		time.Sleep(2 * time.Second)
	}
}

// BenchmarkClaim measures a claim of one due process (the reactor's claim
// of due work; a commit claims the children it creates itself): its round
// trips and Redis commands (all, also those the script runs). "root": the
// process is in the root group, one round trip; "target": its group has a
// join target (open), whose record and member hash claim.lua reaches only
// declared, so Store.Claim repeats the claim with them declared.
func BenchmarkClaim(b *testing.B) {
	for _, group := range []string{"root", "target"} {
		b.Run(group, func(b *testing.B) { benchClaim(b, group == "target") })
	}
}

var benchClaimRoot int64 = 7000

func benchClaim(b *testing.B, inTarget bool) {
	srv := testenv.StartRedis(b)
	rdb := srv.Client()
	s, ctx := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour}), context.Background()
	if err := s.Preload(ctx); err != nil {
		b.Fatal(err)
	}
	benchClaimRoot++
	root := joinstore.Root{Owner: benchOwner, RootPid: benchClaimRoot}
	now := time.Now()
	setup := srv.Client()
	pipe := setup.Pipeline()
	pipe.HSet(ctx, joinstore.KeyOf(root, "meta"), "owner", root.Owner, "fence", 1, "iter", b.N+10, "live", b.N+1, "status", "running")
	group := "0"
	if inTarget {
		group = "1"
		pipe.HSet(ctx, joinstore.KeyOf(root, "targets"), group, 1)
		pipe.HSet(ctx, joinstore.KeyOf(root, "p:1"), "pid", root.Pid(1), "status", "waiting", "target", "1", "joinGroupId", "0",
			"joinFromGroupId", group, "closed", "0", "policy", "kill", "resumeStep", "J")
	}
	for i := 0; i < b.N; i++ {
		iter := int64(i + 2)
		pipe.HSet(ctx, joinstore.KeyOf(root, "p:"+strconv.FormatInt(iter, 10)), "pid", root.Pid(iter), "status", "waiting", "paused", "0",
			"resumeStep", "S", "resumePlain", `{}`, "parentPid", root.Pid(1), "joinGroupId", group, "threadHeadPid", root.Pid(iter))
		pipe.ZAdd(ctx, joinstore.KeyOf(root, "due"), redis.Z{Score: float64(now.UnixMilli() - 1), Member: iter})
		if inTarget {
			pipe.HSet(ctx, joinstore.KeyOf(root, "g:"+group), iter, "S")
		}
	}
	if _, err := pipe.Exec(ctx); err != nil {
		b.Fatal(err)
	}
	table := joinstore.StepTable{"S": {}}
	before, err := redisstat.Read(ctx, setup)
	if err != nil {
		b.Fatal(err)
	}
	rt := &redisstat.RoundTrips{}
	rdb.AddHook(rt)
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		c, err := s.Claim(ctx, root, now, time.Minute, "w", table, []int64{int64(i + 2)})
		if err != nil || len(c) != 1 {
			b.Fatalf("claim: %+v %v", c, err)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	after, err := redisstat.Read(ctx, setup)
	if err != nil {
		b.Fatal(err)
	}
	report(b, lat, float64(rt.N())/float64(b.N), "roundtrips/claim")
	b.ReportMetric(float64(after.Sub(before).Calls())/float64(b.N), "redis-cmds/claim")
}

const benchOwner = "0x00000000000000000000000000000000000000be"

// BenchmarkJoinClose measures a delivery that closes a join: the last of
// eight producers commits and its commit decides the join (Commit.DecideJoin,
// as the replicas and the simulator do): delivery, decision, close and
// promotion of the target in the commit's one script, one round trip.
func BenchmarkJoinClose(b *testing.B) {
	benchJoinClose(b, func(ctx context.Context, s *joinstore.Store, o *registry.Orchestration, c joinstore.Claim, payload json.RawMessage) (string, error) {
		valid := true
		cr, err := s.Commit(ctx, c, t0, joinstore.Commit{Status: "done", Valid: &valid, Payload: payload, DecideJoin: true})
		if err != nil || len(cr.Joins) != 1 {
			return "", fmt.Errorf("commit: %+v %v", cr, err)
		}
		return cr.Joins[0].Verdict, nil
	})
}

// BenchmarkJoinCloseJoinStep measures the same close through a join step
// (the path of a join whose decision a commit leaves to one): the commit
// with the join lock taken along in one pipeline (Commit.LockTarget), then
// the Go decision and join_apply.
func BenchmarkJoinCloseJoinStep(b *testing.B) {
	benchJoinClose(b, func(ctx context.Context, s *joinstore.Store, o *registry.Orchestration, c joinstore.Claim, payload json.RawMessage) (string, error) {
		valid := true
		cr, err := s.Commit(ctx, c, t0, joinstore.Commit{Status: "done", Valid: &valid, Payload: payload, LockTarget: time.Minute})
		if err != nil || cr.Lock == nil {
			return "", fmt.Errorf("commit: %+v %v", cr, err)
		}
		res, err := s.JoinStepLocked(ctx, cr.Lock, t0, time.Minute, decider(o))
		if err != nil {
			return "", err
		}
		return res.Verdicts[0], nil
	})
}

func benchJoinClose(b *testing.B, close func(context.Context, *joinstore.Store, *registry.Orchestration, joinstore.Claim, json.RawMessage) (string, error)) {
	rdb := testenv.StartRedis(b).Client()
	s, ctx := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour}), context.Background()
	s.Preload(ctx)
	o := fanOut(b, 8, `"all"`, "drain")
	rt := &redisstat.RoundTrips{}
	rdb.AddHook(rt)
	valid := true
	lat := make([]time.Duration, 0, b.N)
	var trips int64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		root, producers, target := startFan(b, s, o)
		for _, c := range producers[:7] {
			s.Commit(ctx, c, t0, joinstore.Commit{Status: "done", Valid: &valid})
			s.JoinStep(ctx, root, target, t0, time.Minute, decider(o))
		}
		before := rt.N()
		b.StartTimer()
		start := time.Now()
		verdict, err := close(ctx, s, o, producers[7], json.RawMessage(`{"x":1}`))
		if err != nil || verdict != joinstore.VerdictSatisfied {
			b.Fatalf("close: %s %v", verdict, err)
		}
		lat = append(lat, time.Since(start))
		trips += rt.N() - before
	}
	b.StopTimer()
	report(b, lat, float64(trips)/float64(b.N), "roundtrips/close")
}

func report(b *testing.B, lat []time.Duration, trips float64, unit string) {
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) }
	b.ReportMetric(trips, unit)
	b.ReportMetric(pct(0.5), "p50-µs")
	b.ReportMetric(pct(0.99), "p99-µs")
	var total time.Duration
	for _, l := range lat {
		total += l
	}
	b.ReportMetric(float64(len(lat))/total.Seconds(), "ops/s")
}

// BenchmarkMemoryPerLiveProcess reports Redis memory per live waiting
// process (fan-outs of 32 producers with realistic payloads).
func BenchmarkMemoryPerLiveProcess(b *testing.B) {
	rdb := testenv.StartRedis(b).Client()
	s, ctx := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour}), context.Background()
	o := fanOut(b, 32, `"all"`, "kill")
	used := func() int64 {
		info := rdb.Info(ctx, "memory").Val()
		for _, line := range strings.Split(info, "\r\n") {
			if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
				n, _ := strconv.ParseInt(v, 10, 64)
				return n
			}
		}
		b.Fatal("no used_memory")
		return 0
	}
	before := used()
	valid := true
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, _ := s.Start(ctx, joinstore.StartRequest{Owner: benchOwner, StartStep: "A1", Now: t0, Payload: json.RawMessage(`{"order":"A-1029","amount":"125000000000000000000","user":"0x00000000000000000000000000000000000000aa"}`)})
		c, _ := s.Claim(ctx, res.Root, t0, time.Minute, "w", reactor.Table(o), []int64{1})
		ch := reactor.Children(o.Step("A1"), false, true, reactor.Parent{Group: "0", FirstChild: c[0].FirstChild}, json.RawMessage(c[0].ResumePlain), t0, time.Hour)
		s.Commit(ctx, c[0], t0, joinstore.Commit{Status: "done", Valid: &valid, Payload: c[0].ResumePlain, Children: ch})
	}
	b.StopTimer()
	live := b.N * 33 // 32 producers and one target per session
	b.ReportMetric(float64(used()-before)/float64(live), "bytes/live-process")
}
