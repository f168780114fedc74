package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/testenv"
)

const testOwner = "0x00000000000000000000000000000000000000dd"

func TestSessionCommandsAndRun(t *testing.T) {
	srv := testenv.StartRedis(t)
	url := "redis://" + srv.Addr + "/0"
	flow := "../../examples/ostc/nested_join.json"
	common := []string{"--redis", url, "--owner", testOwner}

	// Start: pinned to the wrong hash, nothing is created.
	out, code := run(t, append([]string{"session", "start", flow, "--pin", "0x" + strings.Repeat("ab", 32)}, common...)...)
	if code != 1 || !strings.Contains(out, "orchestration hash mismatch") {
		t.Fatalf("pinned to a wrong hash: %d %s", code, out)
	}
	if n := srv.Client().DBSize(context.Background()).Val(); n != 0 {
		t.Fatalf("a rejected start left %d keys", n)
	}
	out, code = run(t, append([]string{"session", "start", flow, "--json", "--key", "k1"}, common...)...)
	var started map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &started) != nil || started["ack"] != "queued" {
		t.Fatalf("start: %d %s", code, out)
	}
	if out, _ = run(t, append([]string{"session", "start", flow, "--key", "k1"}, common...)...); !strings.HasPrefix(out, "already_queued: session 1") {
		t.Fatalf("idempotent start: %s", out)
	}
	run(t, append([]string{"session", "start", flow, "--paused"}, common...)...)

	// Run a replica until the first session finishes.
	outcomes := writeFile(t, "o.json", `{"default":{"result":"valid"}}`)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	addr := fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(t))
	go func() {
		err := runApp(ctx, newApp(io.Discard, io.Discard), []string{"xgr", "run", "--redis", url, "--ostc", flow, "--outcomes", outcomes, "--poll", "20ms", "--listen", addr})
		if err != nil {
			done <- 1
			return
		}
		done <- 0
	}()
	waitHealthz(t, addr)
	waitStatus(t, url, 1, "finished")

	out, _ = run(t, append([]string{"session", "show", "1"}, common...)...)
	for _, want := range []string{"session 1 of " + testOwner + ": finished", "└─ 1:1 A1 done (valid)", "1:2 J1 done (valid)  join closed k=1", "1:3 G1 ", "1:4 H1 "} {
		if !strings.Contains(out, want) {
			t.Errorf("show lacks %q:\n%s", want, out)
		}
	}
	// --json gives numbers as numbers and times in one format.
	out, _ = run(t, append([]string{"session", "show", "1", "--json"}, common...)...)
	var shown struct {
		Session map[string]any `json:"session"`
	}
	if err := json.Unmarshal([]byte(out), &shown); err != nil {
		t.Fatalf("show --json: %v\n%s", err, out)
	}
	if live, ok := shown.Session["live"].(float64); !ok || live != 0 {
		t.Errorf("show --json: live %#v, want the number 0", shown.Session["live"])
	}
	if steps, ok := shown.Session["steps"].(float64); !ok || steps < 4 {
		t.Errorf("show --json: steps %#v, want a number, at least the 4 processes' commits", shown.Session["steps"])
	}
	for _, f := range []string{"createdAt", "finishedAt"} {
		if s, _ := shown.Session[f].(string); !strings.HasSuffix(s, "Z") || len(s) != len(joinstore.TimeFormat)-5 {
			t.Errorf("show --json: %s %#v, want a time as %s in UTC", f, shown.Session[f], joinstore.TimeFormat)
		}
	}
	// The paused session waits until resumed.
	time.Sleep(100 * time.Millisecond)
	if out, _ = run(t, append([]string{"session", "list", "--json"}, common...)...); !strings.Contains(out, `"rootPid":2,`) || !strings.Contains(out, `"status":"live"`) {
		t.Fatalf("list: %s", out)
	}
	if out, code = run(t, append([]string{"session", "resume", "2"}, common...)...); code != 0 || !strings.Contains(out, "2:1 resumed") {
		t.Fatalf("resume: %d %s", code, out)
	}
	waitStatus(t, url, 2, "finished")

	// Kill a session before anything runs: nothing of it runs.
	run(t, append([]string{"session", "start", flow, "--delay", "1h"}, common...)...)
	if out, code = run(t, append([]string{"session", "kill", "3"}, common...)...); code != 0 || !strings.Contains(out, "3:1 aborted") {
		t.Fatalf("kill: %d %s", code, out)
	}
	if out, code = run(t, append([]string{"session", "wake", "3:1"}, common...)...); code != 1 || !strings.Contains(out, "killed") {
		t.Fatalf("wake of a killed process: %d %s", code, out)
	}

	// Outcomes: the list's column and filter.
	if out, code = run(t, append([]string{"session", "list"}, common...)...); code != 0 || !strings.Contains(out, "OUTCOME") ||
		!regexp.MustCompile(`(?m)^3 .* finished +killed `).MatchString(out) || !regexp.MustCompile(`(?m)^1 .* finished +ok `).MatchString(out) {
		t.Fatalf("list: %d %s", code, out)
	}
	for outcome, want := range map[string]string{"killed": "3", "ok": "2,1", "failed": ""} {
		out, code = run(t, append([]string{"session", "list", "--outcome", outcome, "--json"}, common...)...)
		var rows []struct {
			RootPid int64  `json:"rootPid"`
			Outcome string `json:"outcome"`
		}
		if err := json.Unmarshal([]byte(out), &rows); code != 0 || err != nil {
			t.Fatalf("list --outcome %s: %d %v %s", outcome, code, err, out)
		}
		var ids []string
		for _, r := range rows {
			ids = append(ids, strconv.FormatInt(r.RootPid, 10))
			if r.Outcome != outcome {
				t.Errorf("list --outcome %s: row %d has outcome %q", outcome, r.RootPid, r.Outcome)
			}
		}
		if got := strings.Join(ids, ","); got != want {
			t.Errorf("list --outcome %s: sessions %q, want %q", outcome, got, want)
		}
	}
	if out, code = run(t, append([]string{"session", "list", "--outcome", "bogus"}, common...)...); code != 2 || !strings.Contains(out, "want one of killed") {
		t.Errorf("list --outcome bogus: %d %s", code, out)
	}
	if out, _ = run(t, append([]string{"session", "show", "3"}, common...)...); !strings.Contains(out, "finished, outcome killed") {
		t.Errorf("show 3: %s", out)
	}

	// Ops endpoints of the running replica.
	for path, want := range map[string]string{"/healthz": "ok", "/metrics": `xgr_sessions_finished_total{outcome="ok"} 2`} {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(body), want) {
			t.Errorf("%s lacks %q:\n%s", path, want, body)
		}
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("run exited %d", code)
	}
}

func waitStatus(t *testing.T, url string, root int64, status string) {
	t.Helper()
	waitStatusOf(t, url, testOwner, root, status)
}

// Commands that change sessions run only against a Redis the operator
// named; list prints a header, and says so when there is nothing.
func TestSessionCommandsNeedANamedRedis(t *testing.T) {
	srv := testenv.StartRedis(t)
	url := "redis://" + srv.Addr + "/0"
	flow := "../../examples/ostc/nested_join.json"
	for _, args := range [][]string{
		{"session", "start", flow, "--owner", testOwner},
		{"session", "kill", "--owner", testOwner, "1"},
		{"session", "pause", "--owner", testOwner, "1"},
		{"session", "resume", "--owner", testOwner, "1"},
		{"session", "wake", "--owner", testOwner, "1:1"},
	} {
		out, code := run(t, args...)
		if code != 2 || !strings.Contains(out, "changes sessions: name their Redis with --redis") {
			t.Errorf("xgr %v without --redis: exit %d, want 2 naming --redis:\n%s", args, code, out)
		}
		t.Setenv("XGR_REDIS", "localhost")
		out, code = run(t, args...)
		if code != 2 || !strings.Contains(out, `--redis "localhost" names a host without a port; write localhost:6379`) {
			t.Errorf("xgr %v with XGR_REDIS=localhost: exit %d, want 2:\n%s", args, code, out)
		}
		t.Setenv("XGR_REDIS", "")
	}
	out, code := run(t, "session", "list", "--redis", url, "--owner", testOwner)
	if code != 0 || strings.TrimSpace(out) != "no sessions of "+testOwner {
		t.Fatalf("list of nothing: %d %q", code, out)
	}
	if out, code = run(t, "session", "start", flow, "--redis", url, "--owner", testOwner, "--key", "k"); code != 0 {
		t.Fatalf("start with a named Redis: %d %s", code, out)
	}
	out, code = run(t, "session", "list", "--redis", url, "--owner", testOwner)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[0], "SESSION") || !strings.Contains(lines[0], "ORCHESTRATION") || !strings.HasPrefix(lines[1], "1 ") {
		t.Fatalf("list: %d\n%s", code, out)
	}
}

// waitHealthz waits until an in-process xgr run serves /healthz on addr:
// it got past flag parsing (urfave/cli's help flag is one package-level
// value every app writes while parsing, so the test may run more commands
// only then) and its store answers.
func waitHealthz(t *testing.T, addr string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if resp, err := http.Get("http://" + addr + "/healthz"); err == nil {
			resp.Body.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("xgr run did not serve /healthz within 10s")
		}
	}
}
