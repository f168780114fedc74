package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/testenv"
)

// The three numbers a float64 cannot hold, as they must come out, and the
// forms float64 rounding turns them into.
var (
	exactNumbers   = []string{"9007199254740993", "18446744073709551615", "123456789012345678901234567890"}
	roundedNumbers = []string{"9007199254740992", "18446744073709552000", "1.2345678901234568e+29", "e+"}
)

const numbersOSTC = `{"id": "numbers", "structure": {
  "A1": {"rule": "<copy>", "onValid": {"spawns": ["B1", "C1"],
         "join": {"joinid": "J1", "mode": "all", "waitonjoin": "drain",
                  "from": [{"node": "B1", "when": "valid"}, {"node": "C1", "when": "valid"}]}}},
  "B1": {"rule": "<copy>"},
  "C1": {"rule": "<copy>"},
  "J1": {"rule": "<park>", "onValid": {"spawns": ["W1"]}},
  "W1": {"rule": "<copy>"}}}`

// copy declares two of the numbers with their XRC types and copies every
// one (the third undeclared) to its output; park does the same and parks
// its children for an hour (a wake ends the wait).
const (
	copyRule = `{"payload": {"n53": {"type": "int64"}, "u64": {"type": "uint64"}},
  "rules": ["[n53] > 0", "[u64] > 0"],
  "onValid": {"payload": {"n53": "[n53]", "u64": "[u64]", "u256": "[u256]"}}}`
	parkRule = `{"payload": {"n53": {"type": "int64"}, "u64": {"type": "uint64"}},
  "rules": ["[n53] > 0"],
  "onValid": {"payload": {"n53": "[n53]", "u64": "[u64]", "u256": "[u256]"}, "waitSec": 3600}}`
	numbersPayload = `{"n53": 9007199254740993, "u64": 18446744073709551615, "u256": 123456789012345678901234567890}`
)

func checkExact(t *testing.T, where, out string) {
	t.Helper()
	for _, n := range exactNumbers {
		if !strings.Contains(out, n) {
			t.Errorf("%s lacks %s:\n%s", where, n, out)
		}
	}
	for _, n := range roundedNumbers {
		if strings.Contains(out, n) {
			t.Errorf("%s holds the rounded form %s:\n%s", where, n, out)
		}
	}
}

// The three numbers pass every path exactly: XRC-137 steps, a join's
// inbox and merge, a wake's merge, the simulate summary and session show.
func TestNumbersStayExact(t *testing.T) {
	ostc := writeFile(t, "numbers.json", numbersOSTC)
	rules := ruleDir(t, map[string]string{"copy.json": copyRule, "park.json": parkRule})
	payload := writeFile(t, "p.json", numbersPayload)

	t.Run("simulate", func(t *testing.T) {
		out, code := run(t, "simulate", ostc, "--rules", rules, "--payload", payload, "--deterministic", "--json")
		if code != 0 {
			t.Fatalf("simulate: %d\n%s", code, out)
		}
		sum := summaryOf(t, out)
		if len(sum.Joins) != 1 || sum.Joins[0].Status != "closed" {
			t.Fatalf("join: %+v", sum.Joins)
		}
		// The summary line holds every process's payload and the join's
		// merged payload; read as text, not through float64.
		lines := strings.Split(strings.TrimSpace(out), "\n")
		checkExact(t, "the simulate summary", lines[len(lines)-1])
	})

	t.Run("run, wake and show", func(t *testing.T) {
		srv := testenv.StartRedis(t)
		url := "redis://" + srv.Addr + "/0"
		common := []string{"--redis", url, "--owner", testOwner}
		if out, code := run(t, append([]string{"session", "start", ostc, "--payload", payload}, common...)...); code != 0 {
			t.Fatalf("start: %d %s", code, out)
		}
		stop := startReplica(t, "--redis", url, "--ostc", ostc, "--rules", rules, "--poll", "20ms")
		defer stop()
		waitProcess(t, url, 1, "W1", "waiting")
		wake := writeFile(t, "wake.json", `{"woken": 18446744073709551615, "_drop": 1}`)
		if out, code := run(t, append([]string{"session", "wake", "1", "--step", "W1", "--payload", wake}, common...)...); code != 0 {
			t.Fatalf("wake: %d %s", code, out)
		}
		waitStatus(t, url, 1, "finished")
		out, _ := run(t, append([]string{"session", "show", "1", "--json"}, common...)...)
		checkExact(t, "session show --json", out)
		if !strings.Contains(out, `"woken":18446744073709551615`) || strings.Contains(out, "_drop") {
			t.Errorf("the wake payload was not merged exactly:\n%s", out)
		}
	})
}

// startReplica runs `xgr run` with args until the test's cleanup.
func startReplica(t *testing.T, args ...string) (stop func()) {
	t.Helper()
	stop, _ = startReplicaAt(t, args...)
	return stop
}

// startReplicaAt is startReplica that also returns the ops address
// (/metrics, /healthz, /readyz).
func startReplicaAt(t *testing.T, args ...string) (stop func(), addr string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addr = fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(t))
	done := make(chan error, 1)
	go func() {
		done <- runApp(ctx, newApp(io.Discard, io.Discard), append([]string{"xgr", "run", "--listen", addr}, args...))
	}()
	// Let the replica get past flag parsing (urfave/cli shares its help
	// flag between apps) before the test runs more commands.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if resp, err := http.Get("http://" + addr + "/healthz"); err == nil {
			resp.Body.Close()
			break
		}
		select {
		case err := <-done:
			t.Fatalf("xgr run exited: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("xgr run did not serve /healthz")
		}
	}
	return func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("xgr run: %v", err)
		}
	}, addr
}

// waitProcess waits until a process of the session runs step with status.
func waitProcess(t *testing.T, url string, root int64, step, status string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		out, _ := run(t, "session", "show", "--redis", url, "--owner", testOwner, fmt.Sprint(root))
		if strings.Contains(out, " "+step+" "+status) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s process %s:\n%s", step, status, out)
		}
	}
}
