package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/testenv"
)

// One orchestration with two entry points: "arm" parks "wait" for an hour;
// "notify" wakes the session named in its payload at "wait". "self" spawns
// both in one session, which then wakes itself through the meta keys.
const wakeupOSTC = `{"id": "wakeup", "structure": {
  "self":   {"rule": "<pass>", "onValid": {"spawns": ["arm", "notifySelf"]}},
  "arm":    {"rule": "<arm>", "onValid": {"spawns": ["wait"]}},
  "wait":   {"rule": "<wait>"},
  "notify": {"rule": "<notify>"},
  "notifySelf": {"rule": "<notifySelf>"}}}`

var wakeupRules = map[string]string{
	"pass.json": `{"payload": {}, "onValid": {"payload": {}}}`,
	"arm.json":  `{"payload": {}, "onValid": {"payload": {"armed": true}, "waitSec": 3600}}`,
	"wait.json": `{"payload": {"approved": {"type": "bool", "default": false}, "amount": {"type": "uint256", "default": "0"}},
  "rules": ["[approved] == true", "[amount] > 0"],
  "onValid": {"payload": {"result": "approved", "amount": "[amount]"}},
  "onInvalid": {"payload": {"result": "timed out"}}}`,
	"notify.json": `{"payload": {"Runner": {"type": "address"}, "Session": {"type": "uint64"}},
  "rules": ["[Session] > 0"],
  "onValid": {"payload": {"sent": true, "fromSession": "[__sessionId]"},
    "wakeUps": [{"runner": "[Runner]", "sessionId": "[Session]", "stepId": "wait",
                 "payload": {"approved": true, "amount": 123456789012345678901234567890, "_hidden": 1}}]}}`,
	"notifySelf.json": `{"payload": {},
  "onValid": {"payload": {"sent": true},
    "wakeUps": [{"runner": "[__owner]", "sessionId": "[__sessionId]", "stepId": "wait", "payload": {"approved": true, "amount": "7"}}]}}`,
}

// Under xgr run: a rule of one owner's session wakes another owner's
// waiting process, allowed by its internal allow list; the woken step runs
// at once with the merged payload, and both histories say what happened.
func TestRuleWakeUpUnderRun(t *testing.T) {
	ostc := writeFile(t, "wakeup.json", wakeupOSTC)
	rules := ruleDir(t, wakeupRules)
	srv := testenv.StartRedis(t)
	url := "redis://" + srv.Addr + "/0"
	const notifier = "0x00000000000000000000000000000000000000e1"
	allow := writeFile(t, "a.json", `{"__wakeUp": {"steps": {"wait": {"internal": ["`+notifier+`"]}}}}`)
	if out, code := run(t, "session", "start", ostc, "--step", "arm", "--payload", allow, "--redis", url, "--owner", testOwner); code != 0 {
		t.Fatalf("start: %d %s", code, out)
	}
	stop := startReplica(t, "--redis", url, "--ostc", ostc, "--rules", rules, "--poll", "20ms")
	defer stop()
	waitProcess(t, url, 1, "wait", "waiting")

	// A stranger's session is refused: a recorded no-op.
	stranger := "0x00000000000000000000000000000000000000e2"
	p := writeFile(t, "n.json", `{"Runner": "`+testOwner+`", "Session": 1}`)
	if out, code := run(t, "session", "start", ostc, "--step", "notify", "--payload", p, "--redis", url, "--owner", stranger); code != 0 {
		t.Fatalf("start: %d %s", code, out)
	}
	waitStatusOf(t, url, stranger, 1, "finished")
	out, _ := run(t, "session", "show", "1", "--redis", url, "--owner", stranger)
	if !strings.Contains(out, "wake-up from 1:1 (notify): no-op: 1:2 denied: __wakeUp.steps.wait.internal does not allow "+stranger) {
		t.Fatalf("the stranger's history:\n%s", out)
	}

	if out, code := run(t, "session", "start", ostc, "--step", "notify", "--payload", p, "--redis", url, "--owner", notifier); code != 0 {
		t.Fatalf("start: %d %s", code, out)
	}
	waitStatus(t, url, 1, "finished")
	out, _ = run(t, "session", "show", "1", "--redis", url, "--owner", testOwner, "--json")
	var v struct {
		Processes []struct {
			Step        string          `json:"resumeStep"`
			Status      string          `json:"status"`
			Valid       *bool           `json:"lastEvalValid"`
			ResumePlain json.RawMessage `json:"resumePlain"`
		}
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	w := v.Processes[len(v.Processes)-1]
	if w.Step != "wait" || w.Status != "done" || w.Valid == nil || !*w.Valid {
		t.Fatalf("the woken step: %+v", w)
	}
	for _, want := range []string{`"approved":true`, `"amount":"123456789012345678901234567890"`, `"result":"approved"`, `"sent":true`, `"fromSession":1`} {
		if !strings.Contains(string(w.ResumePlain), want) {
			t.Errorf("woken payload lacks %s: %s", want, w.ResumePlain)
		}
	}
	if strings.Contains(string(w.ResumePlain), "_hidden") {
		t.Errorf("a _ key of the wake-up payload reached the process: %s", w.ResumePlain)
	}
	out, _ = run(t, "session", "show", "1", "--redis", url, "--owner", testOwner)
	if !strings.Contains(out, "1:2 (wait) woken by wake-up "+notifier+":1:1#0") {
		t.Errorf("the woken session's history:\n%s", out)
	}
	out, _ = run(t, "session", "show", "1", "--redis", url, "--owner", notifier)
	if !strings.Contains(out, "wake-up from 1:1 (notify): woke 1:2 of "+testOwner+":1") {
		t.Errorf("the waking session's history:\n%s", out)
	}
}

// Under simulate: a session wakes its own waiting process through the meta
// keys [__owner] and [__sessionId]; the virtual clock shows the hour's
// wait was cut short.
func TestRuleWakeUpUnderSimulate(t *testing.T) {
	ostc := writeFile(t, "wakeup.json", wakeupOSTC)
	rules := ruleDir(t, wakeupRules)
	out, code := run(t, "simulate", ostc, "--start", "self", "--rules", rules, "--deterministic", "--json")
	if code != 0 {
		t.Fatalf("simulate: %d\n%s", code, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var start, waitRan, woke string
	for _, l := range lines[:len(lines)-1] {
		var e struct{ At, Type, Step, Detail string }
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatal(err)
		}
		switch {
		case e.Type == "claimed" && e.Step == "self":
			start = e.At
		case e.Type == "executed" && e.Step == "wait":
			waitRan = e.At
			if e.Detail != "valid" {
				t.Errorf("wait ran %s", e.Detail)
			}
		case e.Type == "wakeup":
			woke = e.Detail
		}
	}
	if !strings.HasPrefix(woke, "woke 1:4 of 0x0000000000000000000000000000000000000001:1") {
		t.Errorf("wake-up outcome %q", woke)
	}
	if waitRan == "" || waitRan != start {
		t.Errorf("wait ran at %q, the session started at %q: the wake-up did not cut the hour short\n%s", waitRan, start, out)
	}
}

func waitStatusOf(t *testing.T, url, owner string, root int64, status string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		out, _ := run(t, "session", "show", "--json", "--redis", url, "--owner", owner, fmt.Sprint(root))
		var v struct{ Session map[string]any }
		json.Unmarshal([]byte(out), &v)
		if v.Session["status"] == status {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("session %d of %s not %s: %s", root, owner, status, out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
