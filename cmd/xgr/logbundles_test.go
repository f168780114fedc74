package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/evidence"
	"github.com/xgr-sidecar/xgr/internal/redisscan"
	"github.com/xgr-sidecar/xgr/testenv"
)

// xgr run --log-bundles stores one bundle per executed step, readable with
// xgr session log; once the session finished and its records expired, its
// live keys are back to what was there before it started while its
// bundles live on until their own (short, --log-day) lifetime.
func TestRunStoresLogBundles(t *testing.T) {
	t.Setenv("XGR_SESSION_TTL_SECS", "1")
	srv := testenv.StartRedis(t)
	rdb := srv.Client()
	ctx := context.Background()
	url := "redis://" + srv.Addr + "/0"
	ostc := writeFile(t, "flow.json", `{"id": "flow", "structure": {"A1": {"rule": "<a>", "onValid": {"spawns": ["B1"]}}, "B1": {"rule": "<b>"}}}`)
	rules := ruleDir(t, map[string]string{
		"a.json": `{"payload": {"n": {"type": "uint64"}}, "rules": ["[n] > 0"], "onValid": {"payload": {"doubled": "[n] * 2"}, "logExpireDays": 2}}`,
		"b.json": `{"payload": {"doubled": {"type": "uint64"}}, "rules": ["[doubled] > 100"], "onInvalid": {"payload": {"small": true}}}`,
	})
	payload := writeFile(t, "p.json", `{"n": 21}`)
	live := func() []string {
		keys, err := redisscan.Keys(ctx, rdb, "*")
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, k := range keys {
			if !strings.HasPrefix(k, "xgr:log:") && !strings.HasPrefix(k, "xgr:{gr:") && !strings.HasPrefix(k, "xgr:{gg:") {
				out = append(out, k)
			}
		}
		sort.Strings(out)
		return out
	}
	stop := startReplica(t, "--redis", url, "--ostc", ostc, "--rules", rules, "--poll", "20ms",
		"--log-bundles", "--log-expire-days", "1", "--log-day", "4s")
	defer stop()
	start := func() {
		if out, code := run(t, "session", "start", ostc, "--payload", payload, "--redis", url, "--owner", testOwner); code != 0 {
			t.Fatalf("start: %d %s", code, out)
		}
	}
	gone := func(root int64) {
		tag := fmt.Sprintf("{%s:%d}", testOwner, root)
		for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			left := 0
			for _, k := range live() {
				if strings.Contains(k, tag) {
					left++
				}
			}
			if left == 0 {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("session %d: keys left %v", root, live())
			}
		}
	}
	// A first session leaves the owner's own keys (its id counter, its
	// index): the baseline once it is gone.
	start()
	waitStatus(t, url, 1, "finished")
	gone(1)
	baseline := live()
	start()
	waitStatus(t, url, 2, "finished")

	read := func(pid string) (evidence.Log, evidence.Bundle, int) {
		out, code := run(t, "session", "log", "--redis", url, "--owner", testOwner, "2", pid, "--json")
		var l evidence.Log
		var b evidence.Bundle
		if code == 0 {
			if err := json.Unmarshal([]byte(out), &l); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if err := json.Unmarshal(l.Bundle, &b); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
		}
		return l, b, code
	}
	l1, b1, code := read("1")
	if code != 0 || b1.Step != "A1" || b1.Outcome.Result != evidence.Valid || string(b1.Payload) != `{"n":21}` ||
		!strings.Contains(string(b1.Outcome.Output), `"doubled":42`) || b1.Rule != "<a>" || l1.Encrypted {
		t.Fatalf("bundle 2:1: %d %+v", code, b1)
	}
	// logExpireDays 2 of A1's branch: twice B1's default of one (4 s) day.
	if l1.TTLSeconds < 5 || l1.TTLSeconds > 8 {
		t.Fatalf("bundle 2:1 TTL %d s, want 2 days of 4 s", l1.TTLSeconds)
	}
	_, b2, code := read("2")
	if code != 0 || b2.Step != "B1" || b2.Outcome.Result != evidence.Invalid || len(b2.Outcome.Reasons) == 0 {
		t.Fatalf("bundle 2:2: %d %+v", code, b2)
	}
	if _, _, code := read("3"); code != 1 {
		t.Fatalf("a third bundle: exit %d", code)
	}
	// The session's records expire (1 s): the live keys are back to the
	// baseline; its bundles stay.
	gone(2)
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if got := live(); fmt.Sprint(got) == fmt.Sprint(baseline) {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("live keys after the session expired:\n%v\nbefore it started:\n%v", got, baseline)
		}
	}
	if _, _, code := read("1"); code != 0 {
		t.Fatal("bundle 2:1 went with the session's records")
	}
	// Then the bundles expire on their own TTL: B1's (one 4 s day) first.
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		_, _, c1 := read("1")
		_, _, c2 := read("2")
		if c1 == 1 && c2 == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("bundles still there after their TTL: %d %d", c1, c2)
		}
	}
	if keys, _ := redisscan.Keys(ctx, rdb, "xgr:log:*"); len(keys) != 0 {
		t.Fatalf("bundle keys left: %v", keys)
	}
	// The owner's grants on them expired with them.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		keys, _ := redisscan.Keys(ctx, rdb, "xgr:{gr:*")
		if len(keys) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("grant keys left after their bundles expired: %v", keys)
		}
	}
}
