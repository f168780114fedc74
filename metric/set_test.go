package metric

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/testenv"
)

func logTo(buf *bytes.Buffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// Finished sessions count under the outcome the manager reports; step
// durations pair each claim with its execution; takeovers count only
// adoptions that recovered processes, and log the previous replica.
func TestEventsOutcomesAndLifecycle(t *testing.T) {
	var log bytes.Buffer
	s := New(logTo(&log))
	life := s.Lifecycle("r2")
	t0 := time.Unix(1000, 0)
	a, b, c := joinstore.Root{Owner: "0xa", RootPid: 1}, joinstore.Root{Owner: "0xa", RootPid: 2}, joinstore.Root{Owner: "0xb", RootPid: 1}
	s.Event(a, reactor.Event{Type: reactor.EvClaimed, Pid: "0xa:1", At: t0})
	s.Event(a, reactor.Event{Type: reactor.EvExecuted, Pid: "0xa:1", At: t0.Add(250 * time.Millisecond)})
	fin := joinstore.SessionFinished
	life.Finished(a, joinstore.SessionMeta{Status: fin})
	life.Finished(b, joinstore.SessionMeta{Status: fin, Killed: 1})
	life.Finished(c, joinstore.SessionMeta{Status: fin, Unfulfillable: 1})
	life.Adopted(a, "r1", 0) // a handover or a new session: no takeover
	life.Adopted(b, "r1", 2)
	life.Adopted(c, "r2", 1) // its own earlier run, restarted under its name
	life.LeaseLost(c)

	for outcome, want := range map[string]float64{"ok": 1, "killed": 1, "unfulfillable": 1, "failed": 0} {
		if got := value(t, s.sessionsDone.WithLabelValues(outcome)); got != want {
			t.Errorf("sessions finished %s = %v, want %v", outcome, got, want)
		}
	}
	if got := value(t, s.takeovers); got != 2 {
		t.Errorf("takeovers = %v", got)
	}
	if got := value(t, s.leaseLosses); got != 1 {
		t.Errorf("lease losses = %v", got)
	}
	if got := value(t, s.events.WithLabelValues("claimed")); got != 1 {
		t.Errorf("claimed events = %v", got)
	}
	if h := sample(t, s.stepDuration).GetHistogram(); h.GetSampleCount() != 1 || h.GetSampleSum() != 0.25 {
		t.Errorf("step duration: %d samples, sum %v; want 1, 0.25", h.GetSampleCount(), h.GetSampleSum())
	}
	l := log.String()
	for _, want := range []string{
		`level=INFO msg="session adopted after another replica's lease expired" session=0xa:2 previous=r1 recovered=2 replica=r2`,
		`level=INFO msg="session adopted after this replica's earlier run's lease expired" session=0xb:1 previous=r2 recovered=1 replica=r2`,
	} {
		if !strings.Contains(l, want) {
			t.Errorf("log lacks %q:\n%s", want, l)
		}
	}
	if strings.Count(l, "adopted") != 2 {
		t.Errorf("a plain adoption was logged:\n%s", l)
	}
	s.mu.Lock()
	left := len(s.claimed)
	s.mu.Unlock()
	if left != 0 {
		t.Errorf("%d entries left after every session finished", left)
	}
}

// The Redis hook counts connection errors while redis-server is down,
// ignores empty answers, NOSCRIPT and xgr's own script refusals, counts
// other error replies, and says at INFO when Redis answers again.
func TestRedisHookAgainstARestartedServer(t *testing.T) {
	srv := testenv.StartRedis(t)
	var log bytes.Buffer
	s := New(logTo(&log))
	rdb := redis.NewClient(&redis.Options{Network: srv.Network, Addr: srv.Addr, MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	defer rdb.Close()
	rdb.AddHook(s.RedisHook())
	ctx := context.Background()
	if err := rdb.Get(ctx, "absent").Err(); err != redis.Nil {
		t.Fatalf("get: %v", err)
	}
	rdb.EvalSha(ctx, "0000000000000000000000000000000000000000", nil)         // NOSCRIPT
	rdb.Eval(ctx, `return redis.error_reply("LEASE_LOST token 3")`, nil)      // a refusal
	rdb.Eval(ctx, `return redis.error_reply("OOM command not allowed")`, nil) // a server error
	if got := value(t, s.redisErrors.WithLabelValues("server")); got != 1 {
		t.Errorf("server errors = %v, want 1 (the OOM reply only)", got)
	}
	srv.Stop()
	for range 3 {
		if err := rdb.Ping(ctx).Err(); err == nil {
			t.Fatal("ping answered while redis-server is stopped")
		}
	}
	if got := value(t, s.redisErrors.WithLabelValues("connection")); got < 3 {
		t.Errorf("connection errors = %v, want ≥ 3", got)
	}
	if strings.Contains(log.String(), "reachable again") {
		t.Fatalf("reachable again while down:\n%s", log.String())
	}
	srv.Restart()
	deadline := time.Now().Add(10 * time.Second)
	for rdb.Ping(ctx).Err() != nil {
		if time.Now().After(deadline) {
			t.Fatal("redis-server did not answer after its restart")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n := strings.Count(log.String(), `level=INFO msg="Redis reachable again" down=`); n != 1 {
		t.Errorf("%d reachable-again lines:\n%s", n, log.String())
	}
	if n := sample(t, s.redisLatency.WithLabelValues("command").(prometheus.Histogram)).GetHistogram().GetSampleCount(); n < 5 {
		t.Errorf("command latency samples %d, want ≥ 5", n)
	}
}

// The due queue gauges read the root index: sessions whose time has come
// count, later ones do not; the age is the oldest one's.
func TestDueQueueGauges(t *testing.T) {
	rdb := testenv.StartRedis(t).Client()
	store := joinstore.New(rdb, joinstore.Config{})
	ctx := context.Background()
	now := time.Now()
	for i, at := range []time.Time{now.Add(-90 * time.Second), now.Add(-time.Second), now.Add(time.Hour)} {
		if err := store.MarkRoot(ctx, joinstore.Root{Owner: "0xa", RootPid: int64(i + 1)}, at); err != nil {
			t.Fatal(err)
		}
	}
	s := New(nil)
	s.AddSessions(store, func() int { return 7 })
	if got := value(t, mustGauge(t, s, "xgr_due_sessions")); got != 2 {
		t.Errorf("due sessions = %v, want 2", got)
	}
	if got := value(t, mustGauge(t, s, "xgr_due_oldest_age_seconds")); got < 90 || got > 120 {
		t.Errorf("oldest due age = %v s, want about 90", got)
	}
	if got := value(t, mustGauge(t, s, "xgr_sessions_running")); got != 7 {
		t.Errorf("running = %v", got)
	}
}

// mustGauge gathers the registry and returns the one sample of name as a
// collector testutil can read.
func mustGauge(t *testing.T, s *Set, name string) prometheus.Collector {
	t.Helper()
	mfs, err := s.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name && len(mf.GetMetric()) == 1 {
			g := prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: "copy"})
			g.Set(mf.GetMetric()[0].GetGauge().GetValue())
			return g
		}
	}
	t.Fatalf("%s not gathered", name)
	return nil
}

// sample gathers the one metric of a collector.
func sample(t *testing.T, c prometheus.Collector) *dto.Metric {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	mfs, err := reg.Gather()
	if err != nil || len(mfs) != 1 || len(mfs[0].GetMetric()) != 1 {
		t.Fatalf("gather: %v, %d families", err, len(mfs))
	}
	return mfs[0].GetMetric()[0]
}

// value is a counter's or gauge's value.
func value(t *testing.T, c prometheus.Collector) float64 {
	t.Helper()
	m := sample(t, c)
	if m.Counter != nil {
		return m.GetCounter().GetValue()
	}
	return m.GetGauge().GetValue()
}
