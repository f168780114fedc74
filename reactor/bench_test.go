package reactor

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/internal/proccpu"
	"github.com/xgr-sidecar/xgr/internal/redisstat"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/testenv"
)

// benchShapes are the session shapes of the figures.
func benchShapes(tb testing.TB) map[string]*registry.Orchestration {
	chain := `{"id":"chain10","structure":{`
	for i := 1; i <= 10; i++ {
		next := ""
		if i < 10 {
			next = fmt.Sprintf(`,"onValid":{"spawns":["S%d"]}`, i+1)
		}
		if i > 1 {
			chain += ","
		}
		chain += fmt.Sprintf(`"S%d":{"rule":"x"%s}`, i, next)
	}
	chain += `}}`
	fan := func(id, mode, policy string) string {
		var spawns, from, steps []string
		for i := 0; i < 8; i++ {
			spawns = append(spawns, fmt.Sprintf(`"P%d"`, i))
			from = append(from, fmt.Sprintf(`{"node":"P%d"}`, i))
			steps = append(steps, fmt.Sprintf(`"P%d":{"rule":"x"}`, i))
		}
		return fmt.Sprintf(`{"id":"%s","structure":{"A":{"rule":"x","onValid":{"spawns":[%s],"join":{"joinid":"J","mode":%s,"waitonjoin":"%s","from":[%s]}}},"J":{"rule":"x"},%s}}`,
			id, strings.Join(spawns, ","), mode, policy, strings.Join(from, ","), strings.Join(steps, ","))
	}
	out := map[string]*registry.Orchestration{}
	for name, raw := range map[string]string{
		"chain10":         chain,
		"fanout8_all":     fan("fanout8_all", `"all"`, "drain"),
		"fanout8_k2_kill": fan("fanout8_k2_kill", `{"k":2}`, "kill"),
	} {
		o, err := registry.Parse([]byte(raw))
		if err != nil {
			tb.Fatal(err)
		}
		out[name] = o
	}
	return out
}

// BenchmarkSessions runs b.N sessions of each shape on one replica against
// one local redis-server with an instant executor and reports executed
// steps/s, Redis round trips per step and the join-close latency (from the
// closing producer's result to the join's close) at p50 and p99. With
// sessions=1 the replica runs one session at a time (latency); with
// sessions=32 up to 32 at once (throughput, latency includes queueing on two
// cores).
func BenchmarkSessions(b *testing.B) {
	for _, name := range []string{"chain10", "fanout8_all", "fanout8_k2_kill"} {
		for _, maxRoots := range []int{1, 32} {
			b.Run(fmt.Sprintf("%s/sessions=%d", name, maxRoots), func(b *testing.B) { benchSessions(b, name, maxRoots) })
		}
	}
}

func benchSessions(b *testing.B, name string, maxRoots int) {
	{
		{
			o := benchShapes(b)[name]
			srv := testenv.StartRedis(b)
			rdb := srv.Client()
			store := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour, ServerClock: true, Batch: joinstore.DefaultBatch})
			// The benchmark polls for the end through a client of its own,
			// so that the round trips counted are the replica's; its own
			// commands are taken out of Redis's command statistics.
			watchRdb := srv.Client()
			own := &redisstat.Sent{}
			watchRdb.AddHook(own)
			store.Preload(context.Background())
			src := NewStaticSource(o)
			exec, _ := ParseOutcomes([]byte(`{"default":{"result":"valid"}}`))
			ctx := context.Background()
			roots := make([]joinstore.Root, 0, b.N)
			for i := 0; i < b.N; i++ {
				res, err := Start(ctx, store, src, StartRequest{Owner: "0x00000000000000000000000000000000000000be", OstcID: o.ID, Step: o.Steps[0].ID}, time.Now())
				if err != nil {
					b.Fatal(err)
				}
				roots = append(roots, res.Root)
			}
			var mu sync.Mutex
			lastExec := map[joinstore.Root]time.Time{}
			var closeLat []time.Duration
			var steps atomic.Int64
			rt, sent := &redisstat.RoundTrips{}, &redisstat.Sent{}
			rdb.AddHook(rt)
			rdb.AddHook(sent)
			m := &Manager{Store: store, Source: src, Exec: exec, Replica: "bench", Poll: benchPoll, Log: discardLog(), MaxRoots: maxRoots,
				OnEvent: func(r joinstore.Root, e Event) {
					now := time.Now()
					switch e.Type {
					case "executed":
						steps.Add(1)
						mu.Lock()
						lastExec[r] = now
						mu.Unlock()
					case "join_closed":
						mu.Lock()
						closeLat = append(closeLat, now.Sub(lastExec[r]))
						mu.Unlock()
					}
				}}
			runCtx, cancel := context.WithCancel(ctx)
			done := make(chan struct{})
			before, err := redisstat.Read(ctx, watchRdb)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			start, cpu := time.Now(), proccpu.Used()
			go func() { m.Run(runCtx); close(done) }()
			for _, r := range roots {
				for {
					if st, _ := watchRdb.HGet(ctx, "xgr:{"+r.String()+"}:meta", "status").Result(); st == "finished" {
						break
					}
					time.Sleep(5 * time.Millisecond)
				}
			}
			elapsed, cpu := time.Since(start), proccpu.Used()-cpu
			b.StopTimer()
			cancel()
			<-done
			after, err := redisstat.Read(ctx, watchRdb)
			if err != nil {
				b.Fatal(err)
			}
			n := steps.Load()
			d := after.Sub(before).Without(own.Counts())
			b.ReportMetric(float64(n)/elapsed.Seconds(), "steps/s")
			b.ReportMetric(float64(rt.N())/float64(n), "roundtrips/step")
			b.ReportMetric(float64(d.Calls())/float64(n), "redis-cmds/step")
			b.ReportMetric(d.CPU(sent.Counts())/float64(n), "redis-µs/step")
			b.ReportMetric(float64(cpu.Microseconds())/float64(n), "client-cpu-µs/step")
			if len(closeLat) > 0 {
				sort.Slice(closeLat, func(i, j int) bool { return closeLat[i] < closeLat[j] })
				b.ReportMetric(float64(closeLat[len(closeLat)/2].Microseconds()), "close-p50-µs")
				b.ReportMetric(float64(closeLat[len(closeLat)*99/100].Microseconds()), "close-p99-µs")
			}
		}
	}
}

// benchPoll is the replicas' poll interval in the benchmark: that of xgr
// run, so that nothing waits less than it would there.
const benchPoll = 200 * time.Millisecond
