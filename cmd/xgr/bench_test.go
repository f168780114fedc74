package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/benchmark"
	"github.com/xgr-sidecar/xgr/testenv"
)

const chain10 = "../../examples/bench/chain10.json"

// xgr bench on a private redis-server: every documented JSON field, and
// exactly ten steps per chain session.
func TestBenchJSON(t *testing.T) {
	out, errOut, code := runBinary(t, nil, "bench", "--sessions", "20", chain10, "--json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	var fields map[string]any
	if err := json.Unmarshal([]byte(out), &fields); err != nil {
		t.Fatalf("--json output: %v\n%s", err, out)
	}
	for _, name := range []string{"steps_per_sec", "sessions_per_sec", "roundtrips_per_step", "redis_cpu_us_per_step",
		"redis_cmds_per_step", "evalsha_per_step", "allocs_per_step", "latency_p50_us", "latency_p99_us",
		"redis_memory_bytes", "sessions", "steps", "seconds"} {
		if _, ok := fields[name]; !ok {
			t.Errorf("--json output lacks %q:\n%s", name, out)
		}
	}
	var r benchmark.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Sessions != 20 || r.Steps != 200 || r.Seconds <= 0 || r.StepsPerSec <= 0 {
		t.Errorf("sessions %d, steps %d, seconds %v, steps/s %v; want 20 sessions, 200 steps", r.Sessions, r.Steps, r.Seconds, r.StepsPerSec)
	}
	// Every step is committed by an EVALSHA (which claims the next step too).
	if r.RoundtripsPerStep <= 0 || r.EvalshaPerStep < 1 || r.RedisCmdsPerStep < r.EvalshaPerStep || r.RedisCPUUsPerStep <= 0 || r.ClientCPUUsPerStep <= 0 || r.AllocsPerStep <= 0 {
		t.Errorf("per-step figures: %+v", r)
	}
	if r.LatencyP50Us <= 0 || r.LatencyP99Us < r.LatencyP50Us || r.RedisMemoryBytes <= 0 {
		t.Errorf("latency p50 %v p99 %v, memory %d", r.LatencyP50Us, r.LatencyP99Us, r.RedisMemoryBytes)
	}
}

func TestBenchBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "--sessions", "0", chain10}, "--sessions 0: want at least 1"},
		{[]string{"bench", "--concurrency", "-2", chain10}, "--concurrency -2: want at least 1"},
		{[]string{"bench", "--replicas", "0", chain10}, "--replicas 0: want at least 1"},
		{[]string{"bench", "--poll", "0s", chain10}, "--poll 0s: want a positive duration"},
		{[]string{"bench", "--timeout", "-1s", chain10}, "--timeout -1s: want a positive duration"},
		{[]string{"bench", "--force", chain10}, "--force is for --redis"},
		{[]string{"bench", "--redis", "http://x", chain10}, `--redis "http://x"`},
		{[]string{"bench"}, "bench: name exactly one FILE"},
		{[]string{"bench", "--sessions", "many", chain10}, `invalid value "many" for flag -sessions`},
		{[]string{"bench", "nope.json"}, "nope.json"},
	} {
		out, errOut, code := runBinary(t, nil, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit 2 with %q", tc.args, code, errOut, out, tc.want)
		}
	}
}

// On a shared Redis, xgr bench refuses a database with keys unless
// --force, and deletes every key it created: after a complete run and
// after SIGINT in the middle of one.
func TestBenchSharedRedisLeavesNothing(t *testing.T) {
	srv := testenv.StartRedis(t)
	rdb := srv.Client()
	ctx := context.Background()
	url := "redis://" + srv.Addr + "/0"
	if err := rdb.Set(ctx, "someone:else", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	onlyTheirs := func(when string) {
		t.Helper()
		keys, err := rdb.Keys(ctx, "*").Result()
		if err != nil || len(keys) != 1 || keys[0] != "someone:else" {
			t.Errorf("%s: keys %v (%v), want only someone:else", when, keys, err)
		}
	}
	_, errOut, code := runBinary(t, nil, "bench", "--redis", url, "--sessions", "5", chain10)
	if code != 2 || !strings.Contains(errOut, "holds 1 keys") || !strings.Contains(errOut, "--force") {
		t.Fatalf("non-empty Redis without --force: exit %d\n%s", code, errOut)
	}
	onlyTheirs("after the refusal")

	out, errOut, code := runBinary(t, nil, "bench", "--redis", url, "--force", "--sessions", "10", chain10)
	if code != 0 || !strings.Contains(out, "steps/s") {
		t.Fatalf("--force: exit %d\n%s\n%s", code, out, errOut)
	}
	onlyTheirs("after a complete run")

	// SIGINT while the sessions run: the replicas drain, the keys go.
	cmd := exec.Command(xgrBinary(t), "bench", "--redis", url, "--force", "--sessions", "3000", chain10)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		// The replicas run once a session has finished (the bench owner's
		// expiry index exists).
		if keys, _ := rdb.Keys(ctx, "xgr:{own:*}:expire").Result(); len(keys) > 0 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no session finished after 60s\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), "interrupted") {
		t.Fatalf("after SIGINT: %v\n%s", err, stderr.String())
	}
	onlyTheirs("after SIGINT")
}
