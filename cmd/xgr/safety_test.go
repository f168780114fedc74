package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/redisconn"
	"github.com/xgr-sidecar/xgr/testenv"
)

// redisKeys lists the keys of a test server other than replicas'
// heartbeats and the schema record they write at start.
func redisKeys(t *testing.T, srv *testenv.Redis) []string {
	t.Helper()
	keys, err := srv.Client().Keys(context.Background(), "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, k := range keys {
		if !strings.HasPrefix(k, "xgr:{health}:") && k != redisconn.SchemaKey { // the replica's heartbeat and schema
			out = append(out, k)
		}
	}
	return out
}

// simulate runs on a shared Redis only when --redis names it, and then
// leaves no session a replica could run: a replica serving the same
// orchestration on that Redis executes nothing, and no key is left, also
// after --timeout.
func TestSimulateOnASharedRedis(t *testing.T) {
	srv := testenv.StartRedis(t)
	url := "redis://" + srv.Addr + "/0"
	flow := writeFile(t, "wait.json", `{"id": "wait", "structure": {"A1": {"rule": "x", "onValid": {"spawns": ["B1"]}}, "B1": {"rule": "x"}}}`)
	outcomes := writeFile(t, "o.json", `{"A1": {"result": "valid", "waitSec": 1}, "default": {"result": "valid"}}`)
	stop, addr := startReplicaAt(t, "--redis", url, "--ostc", flow, "--outcomes", outcomes, "--poll", "10ms")
	defer stop()

	// XGR_REDIS alone is not read: a private redis-server.
	out, stderr, code := runBinary(t, []string{"XGR_REDIS=" + url}, "simulate", flow, "--outcomes", outcomes, "--deterministic")
	if code != 0 || !strings.Contains(out, "1:2      B1           done") {
		t.Fatalf("simulate with XGR_REDIS: exit %d\n%s%s", code, out, stderr)
	}
	if keys := redisKeys(t, srv); len(keys) != 0 {
		t.Fatalf("simulate wrote to the Redis of XGR_REDIS: %v", keys)
	}

	// --redis host:port: the session runs there, held by simulate (B1 is
	// due for a second while the replica polls), and goes afterwards.
	out, stderr, code = runBinary(t, nil, "simulate", flow, "--outcomes", outcomes, "--redis", srv.Addr, "--json")
	if code != 0 {
		t.Fatalf("simulate --redis: exit %d\n%s%s", code, out, stderr)
	}
	sum := summaryOf(t, out)
	if len(sum.Processes) != 2 || sum.Processes[1].Status != "done" {
		t.Fatalf("simulate --redis: %+v", sum)
	}
	if keys := redisKeys(t, srv); len(keys) != 0 {
		t.Errorf("simulate --redis left keys behind: %v", keys)
	}

	// Stopped by --timeout while B1 waits: still nothing left.
	long := writeFile(t, "long.json", `{"A1": {"result": "valid", "waitSec": 3600}, "default": {"result": "valid"}}`)
	_, stderr, code = runBinary(t, nil, "simulate", flow, "--outcomes", long, "--redis", url, "--timeout", "500ms")
	if code != 1 || !strings.Contains(stderr, "stopped by --timeout 500ms") {
		t.Errorf("simulate --redis --timeout: exit %d\n%s", code, stderr)
	}
	if keys := redisKeys(t, srv); len(keys) != 0 {
		t.Errorf("simulate --redis stopped by --timeout left keys behind: %v", keys)
	}

	// The replica executed nothing.
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if strings.Contains(string(metrics), `xgr_events_total{type="claimed"}`) {
		t.Errorf("the replica ran a simulated session:\n%s", metrics)
	}
}

// Redis addresses: one parser for every command.
func TestParseRedisAddr(t *testing.T) {
	for _, tc := range []struct {
		in, network, addr, err string
	}{
		{"127.0.0.1:6380", "", "127.0.0.1:6380", ""},
		{":6380", "", "127.0.0.1:6380", ""},
		{"redis.internal", "", "redis.internal:6379", ""},
		{"[::1]:6379", "", "[::1]:6379", ""},
		{"redis://10.0.0.5:7000/2", "tcp", "10.0.0.5:7000", ""},
		{"rediss://h:6379", "tcp", "h:6379", ""},
		{"unix:///run/redis.sock", "unix", "/run/redis.sock", ""},
		{"/run/redis.sock", "unix", "/run/redis.sock", ""},
		{"", "", "", "empty address: want host:port"},
		{"http://h:6379", "", "", `scheme "http" is not a Redis scheme: want host:port`},
		{"h:port", "", "", `port "port" is not a port number`},
		{"h:70000", "", "", `port "70000" is not a port number`},
		{"redis://h:6379/x", "", "", "not a Redis URL"},
	} {
		opts, err := parseRedisAddr(tc.in)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.err)
			}
		case err != nil:
			t.Errorf("%q: %v", tc.in, err)
		case opts.Addr != tc.addr || opts.Network != tc.network:
			t.Errorf("%q: network %q addr %q, want %q %q", tc.in, opts.Network, opts.Addr, tc.network, tc.addr)
		}
	}
}

// Redis errors name Redis, the address and the flag; host:port works.
func TestRedisErrorsNameRedis(t *testing.T) {
	_, stderr, code := runBinary(t, nil, "session", "list", "--redis", "127.0.0.1:1", "--owner", testOwner)
	if code != 1 || !strings.Contains(stderr, "xgr: session list: Redis at 127.0.0.1:1 (--redis / XGR_REDIS): connection refused") {
		t.Errorf("unreachable Redis: exit %d\n%s", code, stderr)
	}
	_, stderr, code = runBinary(t, nil, "session", "list", "--redis", "redis://127.0.0.1:6379/x", "--owner", testOwner)
	if code != 2 || !strings.Contains(stderr, `--redis "redis://127.0.0.1:6379/x": not a Redis URL`) {
		t.Errorf("a bad URL: exit %d\n%s", code, stderr)
	}
	srv := testenv.StartRedis(t)
	_, port, _ := strings.Cut(srv.Addr, ":")
	for _, env := range [][]string{{"XGR_REDIS=" + srv.Addr}, {"XGR_REDIS=:" + port}} {
		out, stderr, code := runBinary(t, env, "session", "list", "--owner", testOwner, "--json")
		if code != 0 || strings.TrimSpace(out) != "[]" {
			t.Errorf("%v: exit %d\n%s%s", env, code, out, stderr)
		}
	}
}

// Every command checks its flags before it does anything: exit 2 with the
// command, the flag, the value and what is allowed.
func TestEveryCommandChecksItsFlags(t *testing.T) {
	f := "../../examples/ostc/minimal_join.json"
	owner := []string{"--owner", testOwner, "--redis", "127.0.0.1:1"}
	for _, tc := range []struct {
		env  []string
		args []string
		want string
	}{
		{nil, append([]string{"session", "start", f, "--delay", "-1s"}, owner...), "session start: --delay -1s: want a positive duration"},
		{nil, append([]string{"session", "start", f, "--pin", "0x12"}, owner...), `session start: --pin "0x12": want an orchestration hash`},
		{nil, append([]string{"session", "start", f, "--window", "-2"}, owner...), "session start: --window -2: want 0 (no cap) or more"},
		{nil, append([]string{"session", "list", "--limit", "-1"}, owner...), "session list: --limit -1: want 0 (the default, 20) or more"},
		{nil, []string{"session", "show", "1", "--owner", testOwner, "--redis", "redis//h"}, `session show: --redis "redis//h"`},
		{nil, append([]string{"session", "wake", "1:1", "--caller", "0xnope"}, owner...), `session wake: --caller "0xnope": not an address`},
		{nil, []string{"simulate", f, "--timeout", "0s"}, "simulate: --timeout 0s: want a positive duration"},
		{nil, []string{"simulate", f, "--owner", "alice"}, `simulate: --owner: owner "alice": want an EVM address`},
		{nil, []string{"simulate", f, "--redis", "http://h:1"}, `simulate: --redis "http://h:1": scheme "http" is not a Redis scheme`},
		{nil, []string{"run", "--outcomes", f, "--health-timeout", "-1s"}, "run: --health-timeout -1s: want a positive duration"},
		{nil, []string{"run", "--outcomes", f, "--listen", "nope"}, `run: --listen "nope": want host:port or :port`},
		{nil, []string{"run", "--outcomes", f, "--rpc", "ftp://h"}, `run: --rpc "ftp://h": scheme "ftp"`},
		{nil, []string{"run", "--outcomes", f, "--redis-cluster", "a,b"}, `run: --redis-cluster: "a" is not host:port`},
		{nil, []string{"run", "--outcomes", f, "--rpc-max-body", "10"}, "run: --rpc-max-body 10: want at least 1024"},
		{nil, []string{"run", "--outcomes", f, "--rpc-permit-lifetime", "721h"}, "run: --rpc-permit-lifetime 721h0m0s: want between 1s and 720h0m0s"},
		{[]string{"XGR_RPC_PERMIT_LIFETIME=0s"}, []string{"dev"}, "dev: --rpc-permit-lifetime 0s: want a positive duration"},
		{nil, []string{"dev", "--rpc-permit-lifetime", "500ms"}, "dev: --rpc-permit-lifetime 500ms: want between 1s and 720h0m0s"},
		{nil, []string{"run", "--outcomes", f, "--rpc-skew", "25h"}, "run: --rpc-skew 25h0m0s: want between 0s and 24h0m0s"},
		{[]string{"XGR_POLL=-1s"}, []string{"run", "--outcomes", f}, "run: --poll -1s: want a positive duration"},
		{[]string{"XGR_ROOT_LEASE=500us"}, []string{"run", "--outcomes", f}, "run: --root-lease 500µs: want a positive duration (e.g. 200ms, 10s), at least 1ms"},
		{nil, []string{"dev", "--every", "-1s"}, "dev: --every -1s: want a positive duration"},
		{nil, []string{"dev", "--orders", "-1"}, "dev: --orders -1: want 0 (none) or more"},
		{nil, []string{"index", "status", "--rpc", "localhost:8545"}, `index status: --rpc "localhost:8545": want an http(s):// or ws(s):// URL or the path of an IPC socket`},
		{nil, []string{"rpc", "kill", "1", "--timeout", "-1s"}, "rpc kill: --timeout -1s: want a positive duration"},
		{nil, []string{"rpc", "start", f, "--orchestration", "0x1"}, `rpc start: --orchestration "0x1": not an address`},
		{nil, []string{"rpc", "start", f, "--orchestration", testOwner, "--expiry", "0s"}, "rpc start: --expiry 0s: want a positive duration"},
		{nil, []string{"rpc", "list", "--last", "-1"}, "rpc list: --last -1: want 0 (the default, 100) or more"},
		{nil, []string{"rpc", "alive", testOwner, "1", "--endpoint", "h:8645"}, `rpc alive: --endpoint "h:8645": want an http(s):// or ws(s):// URL (e.g.`},
		{nil, []string{"ostc", "put", "x", f, "--confirmations", "0"}, "ostc put: --confirmations 0: want 1 (mined) or more"},
		{nil, []string{"ostc", "get", "x", "--registry", "0xnope"}, `ostc get: --registry "0xnope": not an address`},
		{nil, []string{"ostc", "list", "--timeout", "-5s"}, "ostc list: --timeout -5s: want a positive duration"},
		{nil, []string{"rule", "get", "--address", "0x1"}, `rule get: --address "0x1": not an address`},
		{nil, []string{"rule", "eval", f, "--timeout", "-1s"}, "rule eval: --timeout -1s: want a positive duration"},
		{nil, []string{"registry", "deploy", "--executor", "0xnope"}, `registry deploy: --executor "0xnope": not an address`},
		{nil, []string{"registry", "deploy", "--rpc-backend", "x"}, ""}, // not a flag of registry deploy: a usage error too
		{nil, []string{"scenario", "run", f, "--settle", "-1s"}, "scenario run: --settle -1s: want a positive duration"},
		{nil, []string{"scenario", "run", f, "--plan-wait", "0s"}, "scenario run: --plan-wait 0s: want a positive duration"},
	} {
		_, stderr, code := runBinary(t, tc.env, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v xgr %v: exit %d, want 2 with %q:\n%s", tc.env, tc.args, code, tc.want, stderr)
		}
	}
}

// A node that mines only on demand (anvil's automine) gets no more blocks
// by itself: a mined write is done there, and xgr says why it does not wait;
// on a node that mines on its own xgr says what it waits for.
func TestConfirmationsOnANodeThatMinesOnDemand(t *testing.T) {
	a := testenv.StartAnvil(t)
	env := []string{chain.PrivateKeyEnv + "=" + keyHex(a, 0)}
	out, stderr, code := runBinary(t, env, "registry", "deploy", "--rpc", a.URL, "--json")
	var dep struct{ Registry string }
	if code != 0 || json.Unmarshal([]byte(out), &dep) != nil {
		t.Fatalf("registry deploy: exit %d\n%s%s", code, out, stderr)
	}
	common := []string{"--rpc", a.URL, "--registry", dep.Registry, "--confirmations", "3", "--timeout", "30s"}
	start := time.Now()
	out, stderr, code = runBinary(t, env, append([]string{"ostc", "put", "minimal_join", "../../examples/ostc/minimal_join.json"}, common...)...)
	if code != 0 || !strings.Contains(stderr, "--confirmations 3: the node mines only on demand (anvil_getAutomine is true), so no block comes without another transaction: a write is done once it is mined") {
		t.Fatalf("ostc put --confirmations 3: exit %d\n%s%s", code, out, stderr)
	}
	out, stderr, code = runBinary(t, env, append([]string{"ostc", "delete", "minimal_join", "--json"}, common...)...)
	var del struct {
		Deleted string
		Block   uint64
	}
	if code != 0 || json.Unmarshal([]byte(out), &del) != nil || del.Deleted != "minimal_join" || del.Block == 0 {
		t.Fatalf("ostc delete --confirmations 3: exit %d\n%s%s", code, out, stderr)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("the writes took %s on a node that mines on demand", took)
	}

	// Interval mining: the blocks come; xgr says what it waits for.
	rpc := a.Client.Client()
	if err := rpc.Call(nil, "evm_setAutomine", false); err != nil {
		t.Fatal(err)
	}
	if err := rpc.Call(nil, "evm_setIntervalMining", 1); err != nil {
		t.Fatal(err)
	}
	out, stderr, code = runBinary(t, env, append([]string{"ostc", "put", "minimal_join", "../../examples/ostc/minimal_join.json"}, append(common[:len(common)-4], "--confirmations", "2", "--timeout", "30s")...)...)
	if code != 0 || !strings.Contains(stderr, "waiting for 1 more block(s) for 2 confirmations") {
		t.Fatalf("ostc put --confirmations 2 with interval mining: exit %d\n%s%s", code, out, stderr)
	}
}

// One queued session of an orchestration the replica does not serve is
// logged once (a stall, WARN, retried after a backoff of at least a
// second), not at every poll, and is no ERROR; --log-format json covers
// every line, go-redis's too.
func TestRepeatedLogRecordsHeldBack(t *testing.T) {
	srv := testenv.StartRedis(t)
	url := "redis://" + srv.Addr + "/0"
	if out, code := run(t, "session", "start", "../../examples/ostc/minimal_join.json", "--redis", url, "--owner", testOwner); code != 0 {
		t.Fatalf("session start: %d %s", code, out)
	}
	outcomes := writeFile(t, "o.json", `{"default":{"result":"valid"}}`)
	cmd := exec.Command(xgrBinary(t), "run", "--redis", url, "--ostc", "../../examples/ostc/nested_join.json", "--outcomes", outcomes,
		"--poll", "20ms", "--listen", "", "--log-format", "json")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second) // 100 polls
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("xgr run: %v\n%s", err, stderr.String())
	}
	logged := stderr.String()
	errors, stalls := 0, 0
	sc := bufio.NewScanner(strings.NewReader(logged))
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Errorf("not a JSON log line: %s", sc.Text())
			continue
		}
		if rec["level"] == "ERROR" {
			errors++
		}
		if rec["level"] == "WARN" && rec["msg"] == "session stalled: this replica cannot run it" {
			stalls++
		}
	}
	if errors != 0 || stalls < 1 || stalls > 2 {
		t.Errorf("%d errors and %d stall lines in 2s of polling a session of an orchestration not served, want none and 1 or 2 (a backoff of 1 s, then 2 s):\n%s", errors, stalls, logged)
	}

	// go-redis's own messages are JSON too.
	_, errOut, _ := runBinary(t, nil, "--log-format", "json", "session", "list", "--redis", "127.0.0.1:1", "--owner", testOwner)
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	if len(lines) < 2 || !strings.Contains(errOut, `"component":"go-redis"`) {
		t.Fatalf("no go-redis line through slog:\n%s", errOut)
	}
	for _, l := range lines[:len(lines)-1] { // the last is the command's error
		if !json.Valid([]byte(l)) {
			t.Errorf("not a JSON log line: %s", l)
		}
	}
}
