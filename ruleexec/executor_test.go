package ruleexec_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/rule"
	"github.com/xgr-sidecar/xgr/ruleexec"
	"github.com/xgr-sidecar/xgr/rulesource"
	"github.com/xgr-sidecar/xgr/testenv"
)

// files writes rule files into a directory and opens it as a rule source.
func files(t testing.TB, docs map[string]string) *rulesource.Dir {
	t.Helper()
	dir := t.TempDir()
	for name, text := range docs {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d, err := rulesource.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func step(ref string, payload map[string]any) reactor.Execution {
	return reactor.Execution{Owner: "0x01", Pid: "1:1", Step: &registry.Step{ID: "S1", Rule: ref}, Payload: payload}
}

// logTo returns a logger writing text records into buf.
func logTo(buf *bytes.Buffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

const gate = `{
  "payload": {"A": {"type": "int64"}, "Fraud": {"type": "double", "default": 0}},
  "rules": [
    "[A] > 0",
    {"type": "abortStep", "expression": "[Fraud] > 0.9"},
    {"type": "cancelSession", "expression": "[A] == 666"}
  ],
  "onValid": {"payload": {"Next": "[A] + 1"}, "waitSec": 5},
  "onInvalid": {"payload": {"Next": 0}, "waitSec": 60, "grants": [{"address": "[Auditor]", "rights": 1}], "encryptLogs": true}
}`

func TestExecuteMapsOutcomes(t *testing.T) {
	var logs bytes.Buffer
	x := &ruleexec.Executor{Rules: files(t, map[string]string{"Gate.json": gate}), Log: logTo(&logs)}
	ctx := context.Background()

	r, err := x.Execute(ctx, step("<Gate>", map[string]any{"A": 41}))
	if err != nil || !r.Valid || r.Output["Next"] != int64(42) || r.Wait != 5*time.Second || r.Reasons != nil || r.NotPerformed != nil {
		t.Fatalf("valid: %+v, %v", r, err)
	}
	if logs.Len() != 0 {
		t.Errorf("nothing to report, yet: %s", logs.String())
	}

	r, err = x.Execute(ctx, step("${addr:Gate}", map[string]any{"A": -1}))
	if err != nil || r.Valid || fmt.Sprint(r.Output["Next"]) != "0" || r.Wait != time.Minute ||
		!reflect.DeepEqual(r.Reasons, []string{`rules[0]: rule "[A] > 0" is false`}) ||
		!reflect.DeepEqual(r.NotPerformed, []string{"1 grants", "encryptLogs=true"}) {
		t.Fatalf("invalid: %+v, %v", r, err)
	}
	if !strings.Contains(logs.String(), `level=INFO msg="XRC-137 branch sections not performed" pid=1:1 step=S1`) || !strings.Contains(logs.String(), `branch=onInvalid sections="[1 grants encryptLogs=true]"`) {
		t.Errorf("not-performed log: %s", logs.String())
	}

	// Hard errors abort: they name the step, the rule file and the path.
	_, err = x.Execute(ctx, step("<Gate>", map[string]any{"A": "many"}))
	var he *rule.HardError
	if !errors.As(err, &he) || !strings.Contains(err.Error(), "step S1: ") || !strings.Contains(err.Error(), "Gate.json: inputs: payload.A: cannot cast") {
		t.Errorf("hard error: %v", err)
	}
	_, err = x.Execute(ctx, step("<Gate>", map[string]any{"A": 1, "Fraud": 0.95}))
	var ae *ruleexec.ActionError
	if !errors.As(err, &ae) || ae.Action.Type != rule.RuleAbortStep || !strings.Contains(err.Error(), "rules[1] (abortStep) holds: the step aborts") {
		t.Errorf("abortStep: %v", err)
	}
	logs.Reset()
	_, err = x.Execute(ctx, step("<Gate>", map[string]any{"A": 666}))
	if !errors.As(err, &ae) || !errors.Is(err, reactor.ErrCancelSession) || !strings.Contains(err.Error(), "rules[2] (cancelSession) holds: the session is cancelled") || !strings.Contains(logs.String(), "level=WARN") {
		t.Errorf("cancelSession: %v\n%s", err, logs.String())
	}
	_, err = x.Execute(ctx, step("<Gate>", map[string]any{"A": 1, "Fraud": 0.95}))
	if errors.Is(err, reactor.ErrCancelSession) {
		t.Errorf("abortStep cancels the session: %v", err)
	}
}

// Observe sees each completed evaluation with its rule and full result,
// including the one an abortStep rule ended; a load failure is not seen.
func TestExecuteObserve(t *testing.T) {
	type seen struct {
		pid, origin string
		inputs      map[string]any
		action      bool
	}
	var got []seen
	x := &ruleexec.Executor{Rules: files(t, map[string]string{"Gate.json": gate}), Log: logTo(&bytes.Buffer{}),
		Observe: func(e reactor.Execution, l *rulesource.Loaded, res *rule.Result) {
			got = append(got, seen{e.Pid, l.Origin, res.Inputs, res.Action != nil})
		}}
	ctx := context.Background()
	if _, err := x.Execute(ctx, step("<Gate>", map[string]any{"A": 41})); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Execute(ctx, step("<Gate>", map[string]any{"A": 1, "Fraud": 0.95})); err == nil {
		t.Fatal("abortStep should end the step with an error")
	}
	if _, err := x.Execute(ctx, step("<Elsewhere>", nil)); err == nil {
		t.Fatal("an uncovered rule should fail")
	}
	if len(got) != 2 || got[0].pid != "1:1" || !strings.HasSuffix(got[0].origin, "Gate.json") || got[0].inputs["A"] != int64(41) || got[0].action || !got[1].action {
		t.Fatalf("observed: %+v", got)
	}
}

func TestExecuteUnresolvedRules(t *testing.T) {
	src := files(t, map[string]string{"Broken.json": `{"payload": {`})
	x := &ruleexec.Executor{Rules: src}
	ctx := context.Background()
	_, err := x.Execute(ctx, step("<Elsewhere>", nil))
	if !errors.Is(err, rulesource.ErrNotCovered) || !strings.HasPrefix(err.Error(), `step S1: rule "<Elsewhere>": no rule source covers`) {
		t.Errorf("not covered, no fallback: %v", err)
	}
	_, err = x.Execute(ctx, step("<Broken>", nil))
	var ve *rule.ValidationError
	if !errors.As(err, &ve) || !strings.Contains(err.Error(), "Broken.json") {
		t.Errorf("broken rule: %v", err)
	}
	// A fallback runs the steps no source covers, and only those.
	scripted, err := reactor.ParseOutcomes([]byte(`{"default": {"result": "valid", "payload": {"scripted": true}}}`))
	if err != nil {
		t.Fatal(err)
	}
	x.Fallback = scripted
	if r, err := x.Execute(ctx, step("<Elsewhere>", nil)); err != nil || r.Output["scripted"] != true {
		t.Errorf("fallback: %+v, %v", r, err)
	}
	if _, err := x.Execute(ctx, step("<Broken>", nil)); !errors.As(err, &ve) {
		t.Errorf("a broken rule must not fall back: %v", err)
	}
}

// API calls go through the HTTP caller with its host policy: a loopback
// server is reached only when allowed.
func TestExecuteAPICallsRespectAllowedHosts(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"price": "101.5"}`)
	}))
	defer srv.Close()
	doc := `{"payload": {}, "apiCalls": [{"name": "p", "method": "GET", "urlTemplate": "` + srv.URL + `/price", "contentType": "json",
  "extractMap": {"Price": {"type": "double", "expr": "double(resp.price)", "default": -1}}}],
  "rules": ["[Price] > 0.0"], "onValid": {"payload": {"Price": "[Price]"}}, "onInvalid": {"payload": {"Price": "[Price]"}}}`
	src := files(t, map[string]string{"Feed.json": doc})
	host := strings.TrimPrefix(srv.URL, "http://")

	allowed := &ruleexec.Executor{Rules: src, API: &rule.HTTPCaller{AllowHosts: []string{host}}}
	if r, err := allowed.Execute(context.Background(), step("<Feed>", nil)); err != nil || !r.Valid || r.Output["Price"] != 101.5 {
		t.Errorf("allowed host: %+v, %v", r, err)
	}
	refused := &ruleexec.Executor{Rules: src, API: &rule.HTTPCaller{}}
	if r, err := refused.Execute(context.Background(), step("<Feed>", nil)); err != nil || r.Valid || r.Output["Price"] != float64(-1) {
		t.Errorf("refused host: %+v, %v", r, err)
	}
}

// A rule stored in an XRC-137 contract, reading an ERC-20-like balance:
// both through the chain (the in-process simulated one here; the CLI test
// runs the same on anvil).
func TestExecuteRuleFromChainWithReads(t *testing.T) {
	sim := testenv.StartSim(t)
	tok := testenv.DeployTestToken(t, sim, "Sim Token", big.NewInt(5000))
	doc := `{"payload": {"Holder": {"type": "address"}},
  "contractReads": [{"to": "` + tok.Address.Hex() + `", "function": "balanceOf(address)", "args": [{"type": "address", "value": "[Holder]"}],
    "saveAs": {"0": {"key": "Balance", "type": "uint256", "default": "0"}}}],
  "rules": ["u256([Balance]) > u256(0)"],
  "onValid": {"payload": {"Balance": "[Balance]"}, "execution": {"to": "[Holder]", "function": "ping()"}, "grants": [{"address": "[Holder]", "rights": 1}]},
  "onInvalid": {"payload": {"Balance": "[Balance]"}}}`
	r137, _ := testenv.DeployXRC137(t, sim, doc)
	var logs bytes.Buffer
	x := &ruleexec.Executor{Rules: &rulesource.Loader{Chain: rulesource.NewChain(sim.Backend())}, Reads: &chain.Reads{Default: sim.Backend()}, Log: logTo(&logs), Timeout: time.Minute}
	// The branch's execution is resolved into rule.Result.Execution, not
	// listed as a section left undone (the engine performs it or reports
	// it not performed); its grant is.
	res, err := x.Execute(context.Background(), step(r137.Address.Hex(), map[string]any{"Holder": sim.Address(0).Hex()}))
	if err != nil || !res.Valid || res.Output["Balance"] != "5000" || !reflect.DeepEqual(res.NotPerformed, []string{"1 grants"}) {
		t.Fatalf("holder: %+v, %v", res, err)
	}
	if !strings.Contains(logs.String(), "rule=\"XRC-137 "+r137.Address.Hex()+"\"") {
		t.Errorf("log names the rule contract: %s", logs.String())
	}
	res, err = x.Execute(context.Background(), step(r137.Address.Hex(), map[string]any{"Holder": sim.Address(1).Hex()}))
	if err != nil || res.Valid || res.Output["Balance"] != "0" {
		t.Fatalf("non-holder: %+v, %v", res, err)
	}
}

// The selected branch's wake-ups reach the reactor resolved, the engine
// meta keys reach the rule, and numbers stay exact on the way.
const requestKyc = `{
  "payload": {"orderId": {"type": "string"}, "totalAmount": {"type": "uint256"},
              "KycRunner": {"type": "string"}, "KycSessionId": {"type": "uint64"}},
  "rules": ["[orderId] != ''", "[totalAmount] > 0", "0 < [totalAmount]", "[KycSessionId] > 0"],
  "onValid": {
    "wakeUps": [{"runner": "[KycRunner]", "sessionId": "[KycSessionId]", "stepId": "wait_for_kyc_request",
                 "payload": {"orderId": "[orderId]", "amount": "[totalAmount]", "from": "[__stepId]"}}],
    "payload": {"OrderSessionId": "[__sessionId]", "owner": "[__owner]", "pid": "[__pid]", "ostc": "[__ostcId]",
                "totalAmount": "[totalAmount]", "n": "[n]", "u": "[u]"},
    "waitSec": 60
  },
  "onInvalid": {"payload": {"kycRequestSent": false}}
}`

func kycExecution(t *testing.T, session int64, kycSession string) reactor.Execution {
	t.Helper()
	payload, err := reactor.UnmarshalPayload([]byte(`{"orderId": "O-1", "totalAmount": 19900,
	  "KycRunner": "0x00000000000000000000000000000000000000aa", "KycSessionId": ` + kycSession + `,
	  "__sessionId": 1, "n": 9007199254740993, "u": 123456789012345678901234567890}`))
	if err != nil {
		t.Fatal(err)
	}
	return reactor.Execution{Owner: "0x00000000000000000000000000000000000000bb", Session: session, Pid: fmt.Sprintf("%d:3", session),
		Step: &registry.Step{ID: "request_kyc", Rule: "<RequestKyc>"}, Orchestration: &registry.Orchestration{ID: "order_process"}, Payload: payload}
}

func TestExecuteWakeUpsAndMeta(t *testing.T) {
	x := &ruleexec.Executor{Rules: files(t, map[string]string{"RequestKyc.json": requestKyc})}
	r, err := x.Execute(context.Background(), kycExecution(t, 9007199254740993, "18"))
	if err != nil || !r.Valid || r.Wait != time.Minute || r.NotPerformed != nil {
		t.Fatalf("%+v, %v", r, err)
	}
	want := []reactor.WakeUp{{Runner: "0x00000000000000000000000000000000000000aa", Session: 18, Step: "wait_for_kyc_request",
		Payload: map[string]any{"orderId": "O-1", "amount": "19900", "from": "request_kyc"}, Rule: ""}}
	if !reflect.DeepEqual(r.WakeUps, want) {
		t.Errorf("wake-ups\n got %#v\nwant %#v", r.WakeUps, want)
	}
	out, _ := json.Marshal(r.Output)
	if string(out) != `{"OrderSessionId":9007199254740993,"n":9007199254740993,"ostc":"order_process","owner":"0x00000000000000000000000000000000000000bb",`+
		`"pid":"9007199254740993:3","totalAmount":"19900","u":123456789012345678901234567890}` {
		t.Errorf("output %s", out)
	}
	// A session id the engine cannot hold is a hard error.
	if _, err := x.Execute(context.Background(), kycExecution(t, 1, "9223372036854775808")); err == nil ||
		!strings.Contains(err.Error(), "onValid.wakeUps[0].sessionId: 9223372036854775808 is beyond the engine's session ids") {
		t.Errorf("session id beyond int64: %v", err)
	}
}

// A rule read from an XRC-137 contract names it in its wake-ups (what a
// "fromXRC137" allow list binds to).
func TestExecuteWakeUpsFromChainNameTheContract(t *testing.T) {
	sim := testenv.StartSim(t)
	r137, _ := testenv.DeployXRC137(t, sim, requestKyc)
	x := &ruleexec.Executor{Rules: &rulesource.Loader{Chain: rulesource.NewChain(sim.Backend())}, Timeout: time.Minute}
	e := kycExecution(t, 5, "18")
	e.Step.Rule = r137.Address.Hex()
	r, err := x.Execute(context.Background(), e)
	if err != nil || len(r.WakeUps) != 1 || r.WakeUps[0].Rule != r137.Address.Hex() || r.WakeUps[0].Session != 18 {
		t.Fatalf("%+v, %v", r, err)
	}
}
