package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/testenv"
)

// A step's hard error is kept with the process: in session show (text and
// JSON) and in its proc_steps entry, under xgr run as under simulate.
func TestHardErrorIsRecorded(t *testing.T) {
	ostc := writeFile(t, "abort.json", `{"id": "abort", "structure": {"A1": {"rule": "<typed>", "onValid": {"spawns": ["B1"]}}, "B1": {"rule": "<typed>"}}}`)
	rules := ruleDir(t, map[string]string{"typed.json": `{"payload": {"n": {"type": "uint64"}}, "rules": ["[n] >= 0"], "onValid": {"payload": {"n": "[n]"}}}`})
	payload := writeFile(t, "p.json", `{"n": -1}`)
	const reason = "payload.n"

	t.Run("run", func(t *testing.T) {
		srv := testenv.StartRedis(t)
		url := "redis://" + srv.Addr + "/0"
		common := []string{"--redis", url, "--owner", testOwner}
		if out, code := run(t, append([]string{"session", "start", ostc, "--payload", payload}, common...)...); code != 0 {
			t.Fatalf("start: %d %s", code, out)
		}
		stop := startReplica(t, "--redis", url, "--ostc", ostc, "--rules", rules, "--poll", "20ms")
		defer stop()
		waitStatus(t, url, 1, "finished")
		out, _ := run(t, append([]string{"session", "show", "1"}, common...)...)
		if !strings.Contains(out, "1:1 A1 aborted [step A1: ") || !strings.Contains(out, reason) {
			t.Errorf("show does not give the reason:\n%s", out)
		}
		out, _ = run(t, append([]string{"session", "show", "1", "--json"}, common...)...)
		var v struct {
			Processes []map[string]any
			History   []joinstore.HistoryEntry
		}
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if len(v.Processes) != 1 || !strings.Contains(v.Processes[0]["abortReason"].(string), reason) {
			t.Errorf("show --json: %v", v.Processes)
		}
		if len(v.History) != 1 || v.History[0].Status != "aborted" || !strings.Contains(v.History[0].AbortReason, reason) {
			t.Errorf("proc_steps entry: %v", v.History)
		}
	})

	t.Run("simulate", func(t *testing.T) {
		out, code := run(t, "simulate", ostc, "--rules", rules, "--payload", payload, "--deterministic")
		if code != 0 || !strings.Contains(out, "executed") || !strings.Contains(out, reason) {
			t.Fatalf("simulate: %d\n%s", code, out)
		}
		out, _ = run(t, "simulate", ostc, "--rules", rules, "--payload", payload, "--deterministic", "--json")
		sum := summaryOf(t, out)
		if len(sum.Processes) != 1 || sum.Processes[0].Status != "aborted" || !strings.Contains(sum.Processes[0].Reason, reason) {
			t.Errorf("summary: %+v", sum.Processes)
		}
	})
}
