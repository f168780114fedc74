package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/testenv"
)

// A step's execution through `xgr run` on anvil: the executor key (from
// XGR_EXECUTOR_KEY) sends settle(amount, ref) to the target once; the
// step's output carries the transaction (txHash, block, gasUsed, status)
// and the next step sees it. A call that reverts ("amount is zero") flips
// the step to invalid: onInvalid's payload applies, with the reverted
// transaction and its reason, and nothing lands on chain.
func TestExecutionThroughRun(t *testing.T) {
	anvil := testenv.StartAnvil(t)
	rs := testenv.StartRedis(t)
	target := testenv.DeployExecTarget(t, anvil)
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	rules := filepath.Join(dir, "rules")
	os.Mkdir(rules, 0o755)
	write("rules/Pay.json", fmt.Sprintf(`{
  "payload": {"Amount": {"type": "int64"}, "Ref": {"type": "string"}},
  "rules": [],
  "onValid": {"payload": {"Settled": "[Amount]"},
    "execution": {"to": "%s", "function": "settle(uint256,string)", "args": [{"type": "uint256", "value": "[Amount]"}, {"type": "string", "value": "[Ref]"}]}},
  "onInvalid": {"payload": {"Refund": "[Amount]"}, "spawns": []}
}`, target.Address.Hex()))
	write("rules/Done.json", `{"payload": {}, "rules": []}`)
	flow := write("flow.json", `{"id": "pay", "structure": {"P1": {"rule": "<Pay>", "onValid": {"spawns": ["P2"]}, "onInvalid": {"spawns": ["P2"]}}, "P2": {"rule": "<Done>"}}}`)
	cfg := write("xgr.yaml", fmt.Sprintf(`
finality: confirmations
confirmations: 1
executions:
  enabled: true
  targets: ["%s"]
`, target.Address.Hex()))
	url := "redis://" + rs.Addr + "/0"
	owner := strings.ToLower(anvil.Address(3).Hex())

	var logs lockedBuffer
	run := exec.Command(xgrBin, "--log-format", "json", "run", "--rpc", anvil.URL, "--redis", url, "--config", cfg,
		"--ostc", flow, "--rules", rules, "--poll", "20ms", "--exec-poll", "50ms", "--index-poll", "50ms", "--listen", "",
		"--metrics-listen", "127.0.0.1:0")
	run.Env = append(os.Environ(), "XGR_EXECUTOR_KEY="+privHex(anvil.Key(1)))
	run.Stdout, run.Stderr = &logs, &logs
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		run.Process.Signal(syscall.SIGTERM)
		run.Wait()
		if t.Failed() {
			t.Logf("xgr run log:\n%s", logs.String())
		}
	}()
	start := func(key string, amount int) {
		t.Helper()
		p := write(key+".json", fmt.Sprintf(`{"Amount": %d, "Ref": %q}`, amount, key))
		out, err := exec.Command(xgrBin, "session", "start", flow, "--redis", url, "--owner", owner, "--payload", p, "--key", key).CombinedOutput()
		if err != nil {
			t.Fatalf("session start: %v\n%s", err, out)
		}
	}
	start("pay-1", 5)
	start("pay-0", 0)

	type proc struct {
		Pid           string          `json:"pid"`
		Status        string          `json:"status"`
		ResumeStep    string          `json:"resumeStep"`
		LastEvalValid *bool           `json:"lastEvalValid"`
		ResumePlain   json.RawMessage `json:"resumePlain"`
		AbortReason   string          `json:"abortReason"`
	}
	show := func(session int) (string, []proc) {
		out, err := exec.Command(xgrBin, "session", "show", fmt.Sprint(session), "--json", "--redis", url, "--owner", owner).Output()
		if err != nil {
			return "", nil
		}
		var s struct {
			Meta      struct{ Status string } `json:"session"`
			Processes []proc                  `json:"processes"`
		}
		json.Unmarshal(out, &s)
		return s.Meta.Status, s.Processes
	}
	var paid, refused []proc
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		s1, p1 := show(1)
		s2, p2 := show(2)
		if s1 == "finished" && s2 == "finished" {
			paid, refused = p1, p2
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sessions not finished after 60s: %s %+v / %s %+v", s1, p1, s2, p2)
		}
	}
	next := func(ps []proc) map[string]any {
		for _, p := range ps {
			if p.ResumeStep == "P2" {
				var m map[string]any
				json.Unmarshal(p.ResumePlain, &m)
				return m
			}
		}
		t.Fatalf("no P2 process in %+v", ps)
		return nil
	}
	out := next(paid)
	x, _ := out["execution"].(map[string]any)
	if out["Settled"] == nil || x == nil || x["status"] != float64(1) || !strings.HasPrefix(fmt.Sprint(x["txHash"]), "0x") || x["block"] == nil || x["gasUsed"] == nil {
		t.Fatalf("the paid step's output: %v", out)
	}
	if n := target.Calls(t, anvil.Client, "pay-1"); n != 1 {
		t.Fatalf("settle(pay-1) landed %d times, want once", n)
	}
	out = next(refused)
	r, _ := out["revertedExecution"].(map[string]any)
	if out["Refund"] == nil || out["Settled"] != nil || r == nil || r["status"] != float64(0) || !strings.Contains(fmt.Sprint(r["revertReason"]), "amount is zero") {
		t.Fatalf("the reverted step's output: %v", out)
	}
	for _, p := range refused {
		if p.ResumeStep == "P1" && (p.LastEvalValid == nil || *p.LastEvalValid) {
			t.Fatalf("the reverted step is not invalid: %+v", p)
		}
	}
	if n := target.Calls(t, anvil.Client, "pay-0"); n != 0 {
		t.Fatalf("a reverted settle counted %d calls", n)
	}

	// /metrics shows the executor's transaction manager (issue 37): both
	// executions final by outcome, its attempts, its balance in ether.
	addr := regexp.MustCompile(`"msg":"serving /metrics, /healthz and /readyz","addr":"([^"]+)"`).FindStringSubmatch(logs.String())
	if addr == nil {
		t.Fatalf("no ops address in the log")
	}
	from := strings.ToLower(anvil.Address(1).Hex())
	series := func(name, label string) (float64, bool) {
		resp, err := http.Get("http://" + addr[1] + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		for _, line := range strings.Split(string(body), "\n") {
			i := strings.LastIndexByte(line, ' ')
			if i < 0 || !strings.HasPrefix(line, name+"{") || !strings.Contains(line[:i], `sender="`+from+`"`) || !strings.Contains(line[:i], label) {
				continue
			}
			v, err := strconv.ParseFloat(line[i+1:], 64)
			return v, err == nil
		}
		return 0, false
	}
	for _, want := range []struct {
		name, label string
		min, max    float64
	}{
		{"xgr_txm_final_total", `outcome="success"`, 1, 1},
		{"xgr_txm_final_total", `outcome="reverted"`, 1, 1},
		{"xgr_txm_final_total", `outcome="lost"`, 0, 0},
		{"xgr_txm_attempts_total", "", 2, 10},
		{"xgr_txm_time_until_final_seconds_count", "", 2, 2},
		{"xgr_txm_unmined_nonces", "", 0, 0},
		{"xgr_txm_executor_balance_ether", "", 9000, 10000},
	} {
		v, ok := series(want.name, want.label)
		if !ok || v < want.min || v > want.max {
			t.Errorf("%s{%s} = %v (exposed %v); want %v..%v", want.name, want.label, v, ok, want.min, want.max)
		}
	}
	// The reverted execution is an ERROR line naming the key, the target
	// and the reason, without the step's payload (its Ref, pay-0).
	var line string
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, `"msg":"execution reverted"`) {
			line = l
		}
	}
	if !strings.Contains(line, `"level":"ERROR"`) || !strings.Contains(line, `"to":"`+target.Address.Hex()+`"`) ||
		!strings.Contains(line, `"reason":"amount is zero"`) || !regexp.MustCompile(`"key":"0x[0-9a-f]{40}/`).MatchString(line) || strings.Contains(line, "pay-0") {
		t.Errorf("the revert's log line: %q; want ERROR with key, to and reason, no payload", line)
	}
}

// xgr scenario run performs the steps' executions on its private anvil,
// sent by the last development account: A1's settle() on the plan's setup
// contract lands, and B1's contract read (its rule wants exactly one call
// under the reference) sees it.
func TestScenarioPerformsExecutions(t *testing.T) {
	out, code, stderr := runScenario(t, "--timeout", "2m", "--exec-poll", "100ms", filepath.Join("testdata", "execution_plan.json"))
	if code != 0 || !out.Passed || out.Checks != 4 {
		t.Fatalf("exit %d, %d checks, %d failed:\n%s\nstderr:\n%s", code, out.Checks, out.Failed, failures(&out.Report), stderr)
	}
	keys, _ := testenv.DevKeys(10)
	if want := strings.ToLower(chain.Address(keys[9]).Hex()); out.Environment.Executor != want {
		t.Errorf("executor %q, want development account 9 %s", out.Environment.Executor, want)
	}
}
