package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/internal/redisscan"
	"github.com/xgr-sidecar/xgr/testenv"
)

// checkBundlesMatchCommits holds the evidence invariant over every session
// of owner in Redis: each committed step (a proc_steps commit line) has its
// bundle, written with the commit's status, and no bundle exists without
// its commit or is left staged. It returns the number of commits.
func checkBundlesMatchCommits(t *testing.T, rdb redis.UniversalClient, owner string) int {
	t.Helper()
	ctx := context.Background()
	streams, err := redisscan.Keys(ctx, rdb, "xgr:{"+owner+":*}:steps")
	if err != nil {
		t.Fatal(err)
	}
	commits := map[string]string{} // bundle key -> the commit's status
	for _, k := range streams {
		root := strings.TrimSuffix(strings.TrimPrefix(k, "xgr:{"+owner+":"), "}:steps")
		for _, e := range rdb.XRange(ctx, k, "-", "+").Val() {
			st, ok := e.Values["status"].(string)
			if !ok {
				continue
			}
			pid, _ := e.Values["pid"].(string)
			_, iter, _ := strings.Cut(pid, ":")
			commits["xgr:log:{"+owner+":"+root+"}:"+iter] = st
		}
	}
	logs, err := redisscan.Keys(ctx, rdb, "xgr:log:{"+owner+":*")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range logs {
		f := rdb.HGetAll(ctx, k).Val()
		if f["pending"] != "" {
			t.Fatalf("%s: a bundle left staged: %v", k, f)
		}
		st, ok := commits[k]
		if !ok {
			t.Fatalf("%s: a bundle without its commit", k)
		}
		if f["status"] != st || f["body"] == "" {
			t.Fatalf("%s: status %q body %d bytes; its commit says %s", k, f["status"], len(f["body"]), st)
		}
	}
	if len(logs) != len(commits) {
		missing := []string{}
		have := map[string]bool{}
		for _, k := range logs {
			have[k] = true
		}
		for k := range commits {
			if !have[k] {
				missing = append(missing, k)
			}
		}
		t.Fatalf("%d commits, %d bundles; committed without a bundle: %v", len(commits), len(logs), missing)
	}
	return len(commits)
}

// A replica killed (SIGKILL, failpoint reactor.committed) right after a
// commit went to Redis — before it hears the answer, before anything else
// it would do — leaves every committed step with its bundle and no bundle
// of a commit that did not apply; the replica that takes the sessions over
// finishes them, each step with its bundle. The replica is xgr built with
// the tag xgrfailpoint, killed at the 1st, 5th and 12th commit in turn.
func TestReplicaKilledAtCommitKeepsItsBundles(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "xgr-failpoint")
	if out, err := exec.Command("go", "build", "-tags", "xgrfailpoint", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build -tags xgrfailpoint ./cmd/xgr: %v\n%s", err, out)
	}
	srv := testenv.StartRedis(t)
	rdb := srv.Client()
	url := "redis://" + srv.Addr + "/0"
	ostc := writeFile(t, "chain.json", `{"id": "chain", "structure": {
		"A1": {"rule": "<a>", "onValid": {"spawns": ["A2", "B2"]}},
		"A2": {"rule": "<a>", "onValid": {"spawns": ["A3"]}}, "B2": {"rule": "<a>"},
		"A3": {"rule": "<a>", "onValid": {"spawns": ["A4"]}}, "A4": {"rule": "<a>"}}}`)
	outcomes := writeFile(t, "outcomes.json", `{"default": {"result": "valid", "payload": {"seen": 1}}}`)
	payload := writeFile(t, "p.json", `{"n": 12345678901234567890}`)
	const sessions = 6
	for i := 0; i < sessions; i++ {
		if out, code := run(t, "session", "start", ostc, "--payload", payload, "--redis", url, "--owner", testOwner); code != 0 {
			t.Fatalf("start: %d %s", code, out)
		}
	}
	args := []string{"run", "--redis", url, "--ostc", ostc, "--outcomes", outcomes, "--poll", "20ms",
		"--root-lease", "1s", "--proc-lease", "1s", "--log-bundles"}
	for _, hit := range []int{1, 5, 12} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, bin, append(args, "--listen", fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(t)))...)
		cmd.Env = append(os.Environ(), fmt.Sprintf("XGR_FAILPOINTS=reactor.committed=%d", hit))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		cancel()
		if err == nil || !strings.Contains(stderr.String(), "failpoint reactor.committed: kill -9") {
			t.Fatalf("the replica armed at commit %d was not killed there: %v\n%s", hit, err, stderr.String())
		}
		n := checkBundlesMatchCommits(t, rdb, testOwner)
		t.Logf("killed at its commit %d: %d steps committed so far, each with its bundle", hit, n)
		time.Sleep(1200 * time.Millisecond) // its leases expire
	}
	stop := startReplica(t, "--redis", url, "--ostc", ostc, "--outcomes", outcomes, "--poll", "20ms", "--log-bundles")
	for i := int64(1); i <= sessions; i++ {
		waitStatusOf(t, url, testOwner, i, "finished")
	}
	stop()
	n := checkBundlesMatchCommits(t, rdb, testOwner)
	// Every process ran to its commit, or was abandoned: in flight at
	// each of the three kills (XGR_MAX_RECOVERIES), it is aborted without
	// a commit, so without a bundle (and spawns nothing).
	procs, err := redisscan.Keys(context.Background(), rdb, "xgr:{"+testOwner+":*}:p:*")
	if err != nil {
		t.Fatal(err)
	}
	abandoned := 0
	for _, k := range procs {
		f := rdb.HGetAll(context.Background(), k).Val()
		if f["status"] == "aborted" && strings.Contains(f["abortReason"], "abandon") {
			abandoned++
		}
	}
	if n+abandoned != len(procs) || (abandoned == 0 && len(procs) != sessions*5) {
		t.Fatalf("%d processes in %d sessions: %d committed, %d abandoned", len(procs), sessions, n, abandoned)
	}
	t.Logf("%d steps committed with their bundles, %d abandoned after three kills", n, abandoned)
}
