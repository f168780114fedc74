package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/scenario"
	"github.com/xgr-sidecar/xgr/testenv"
)

// scenarioOut is the --json output of "xgr scenario run".
type scenarioOut struct {
	Environment struct {
		RPC          string `json:"rpc"`
		PrivateAnvil bool   `json:"privateAnvil"`
		Redis        string `json:"redis"`
		PrivateRedis bool   `json:"privateRedis"`
		Executor     string `json:"executor"`
	} `json:"environment"`
	Actors []struct {
		Alias   string `json:"alias"`
		Address string `json:"address"`
	} `json:"actors"`
	scenario.Report
}

// runScenario runs "xgr scenario run --json ARGS…" and decodes its report.
func runScenario(t *testing.T, args ...string) (*scenarioOut, int, string) {
	t.Helper()
	cmd := exec.Command(xgrBin, append([]string{"--log-level", "warn", "scenario", "run", "--json"}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	var out scenarioOut
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("exit %d; no JSON report (%v):\n%s\n%s", code, err, stdout.String(), stderr.String())
	}
	return &out, code, stderr.String()
}

// failures lists the failed checks and step errors of a report.
func failures(r *scenario.Report) string {
	var b strings.Builder
	for _, run := range r.Runs {
		for _, s := range run.Steps {
			if s.Error != "" {
				fmt.Fprintf(&b, "%s: error: %s\n", s.ID, s.Error)
			}
			for _, c := range s.Checks {
				if !c.Passed {
					fmt.Fprintf(&b, "%s: %s: expected %s; actual %s\n", s.ID, c.Name, c.Expected, c.Actual)
					for _, d := range c.Details {
						if !d.Passed {
							fmt.Fprintf(&b, "    %s: expected %s, actual %s\n", d.Name, d.Expected, d.Actual)
						}
					}
				}
			}
		}
	}
	return b.String()
}

// The XGR test-suite's KYC scenario, verbatim, on a real anvil and a real
// redis-server: a KYC worker session waits; the order session's
// RequestKyc rule wakes it (XRC-137 wakeUps, authorized by the worker's
// __wakeUp allow list) and passes the order session's id from the engine
// meta key [__sessionId]; the worker's NotifyOrderKycValid wakes the
// order's wait_for_kyc_result, and the order is fulfilled. Every one of
// the file's 22 checks must pass.
// It needs the rule evaluator to compare uint256 inputs ([totalAmount] > 0)
// and read [__sessionId], and the engine to perform the wake-ups: without
// them it fails at receive_order, and the worker's wait runs unwoken after
// its 60 s.
func TestScenarioKYC(t *testing.T) {
	anvil := testenv.StartAnvil(t)
	redis := testenv.StartRedis(t)
	file := filepath.Join("..", "examples", "scenario", "Order_process_waits_for_KYC_and_continues_when_KYC_is_valid_scenario.json")
	out, code, stderr := runScenario(t, "--rpc", anvil.URL, "--redis", "redis://"+redis.Addr+"/0", "--timeout", "4m", file)
	if code != 0 || !out.Passed || out.Failed != 0 || out.Checks != 22 {
		t.Fatalf("exit %d, %d checks, %d failed:\n%s\nstderr:\n%s", code, out.Checks, out.Failed, failures(&out.Report), stderr)
	}
	if out.Environment.PrivateAnvil || out.Environment.PrivateRedis || out.Environment.RPC != anvil.URL {
		t.Errorf("the run did not use the given node and Redis: %+v", out.Environment)
	}
	// The sessions are in the given Redis, owned by the lower-case
	// addresses of the actors' keys (owner = dev key 0, owner1 = dev key 1).
	ctx := context.Background()
	store := joinstore.New(redis.Client(), joinstore.Config{})
	for _, tc := range []struct {
		key        int
		last, want string
	}{
		{0, "fulfill_order", `"orderStatus":"fulfilled"`},
		{1, "notify_order_kyc_valid", `"notificationStatus":"kyc_valid_sent"`},
	} {
		owner := strings.ToLower(anvil.Address(tc.key).Hex())
		list, err := store.Sessions(ctx, owner, 0, 10, true)
		if err != nil || len(list) != 1 {
			t.Fatalf("sessions of %s: %v %v", owner, list, err)
		}
		procs, _ := store.Processes(ctx, list[0].Root)
		found := false
		for _, p := range procs {
			if p.ResumeStep == tc.last {
				found = p.Status == joinstore.StatusDone && p.Valid != nil && *p.Valid && strings.Contains(string(p.ResumePlain), tc.want)
			}
		}
		if !found {
			t.Errorf("session of %s: no valid %s with %s: %v", owner, tc.last, tc.want, procs)
		}
	}
}

// The runner's mechanics on a scenario of its own that needs no wake-ups:
// two sessions of a three-step bundle by two actors, placeholders
// ($actor.address, $contract.address, $session.id and $session.owner of an
// earlier session), waits, asserts with allOf/anyOf groups, negative
// checks and input checks. By default the runner starts its own anvil and
// redis-server and removes them afterwards.
func TestScenarioMechanics(t *testing.T) {
	file := filepath.Join("testdata", "mechanics_scenario.json")
	out, code, stderr := runScenario(t, "--timeout", "2m", file)
	if code != 0 || !out.Passed || out.Checks != 13 {
		t.Fatalf("exit %d, %d checks, %d failed:\n%s\nstderr:\n%s", code, out.Checks, out.Failed, failures(&out.Report), stderr)
	}
	env := out.Environment
	if !env.PrivateAnvil || !env.PrivateRedis || len(out.Actors) != 2 || out.Actors[0].Alias != "alice" || out.Actors[1].Alias != "bob" {
		t.Fatalf("environment %+v, actors %+v", env, out.Actors)
	}
	keys, _ := testenv.DevKeys(2)
	if out.Actors[1].Address != strings.ToLower(chain.Address(keys[1]).Hex()) {
		t.Errorf("bob is not development account 1: %+v", out.Actors[1])
	}
	start := out.Runs[0].Steps[3]
	if start.ID != "start_bad" || start.Session == nil || start.Session.Owner != out.Actors[1].Address || start.Session.ID != 1 {
		t.Errorf("the second session: %+v", start)
	}
	// Nothing is left behind: the private anvil and redis-server are gone.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, _, err := chain.Dial(ctx, env.RPC); err == nil {
		t.Errorf("the private anvil at %s still answers", env.RPC)
	}
	if sock := strings.TrimPrefix(env.Redis, "unix:"); sock != env.Redis {
		if _, err := os.Stat(filepath.Dir(sock)); !os.IsNotExist(err) {
			t.Errorf("the private redis-server's directory %s is still there (%v)", filepath.Dir(sock), err)
		}
	}

	// The same file with wrong expectations, on a given node and Redis,
	// in text mode: exit 1, each failed check with expected and actual and
	// where it is in the file.
	anvil := testenv.StartAnvil(t)
	redis := testenv.StartRedis(t)
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(raw), `"finalStep": "C1"`, `"finalStep": "B1"`, 1)
	bad = strings.Replace(bad, `"value": 5`, `"value": 6`, 1) // the Amount input check
	if strings.Count(string(raw), `"value": 5`) != 1 || strings.Count(string(raw), `"finalStep": "C1"`) != 1 {
		t.Fatal("the test's edits do not apply to the file")
	}
	badFile := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(badFile, []byte(bad), 0o644)
	cmd := exec.Command(xgrBin, "--log-level", "warn", "scenario", "run", "--rpc", anvil.URL, "--redis", "redis://"+redis.Addr+"/0", badFile)
	text, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("want exit 1, got %v:\n%s", err, text)
	}
	for _, want := range []string{
		"FAIL timeline A1 #1 with its input: expected A1 #1 exists, valid true, status done, 4 value checks; actual 1:1 done valid  [scenarios[0].steps[4].expect.timeline[0]]",
		"input Amount: expected eq 6, actual 5",
		"FAIL final step: expected B1; actual C1 (1:2 done)  [scenarios[0].steps[5].expect.finalStep]",
		"FAILED: 13 checks, 11 passed, 2 failed",
	} {
		if !strings.Contains(string(text), want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
}

// A plan file on its own: a setup contract compiled from its Solidity
// source (with a constructor argument) and deployed, its address filled
// into the rule's ${addr:feed}; an API call to a local stand-in; input,
// API-save and contract-read checks.
func TestScenarioPlanSetupAndAPI(t *testing.T) {
	var ok atomic.Bool
	ok.Store(true)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"ok": %v}`, ok.Load())
	}))
	defer srv.Close()
	anvil := testenv.StartAnvil(t)
	redis := testenv.StartRedis(t)
	args := []string{"--rpc", anvil.URL, "--redis", "redis://" + redis.Addr + "/0", "--allow-host", "api.test.local=" + strings.TrimPrefix(srv.URL, "http://"),
		filepath.Join("testdata", "setup_api_plan.json")}
	out, code, stderr := runScenario(t, args...)
	if code != 0 || !out.Passed || out.Checks != 3 {
		t.Fatalf("exit %d:\n%s\nstderr:\n%s", code, failures(&out.Report), stderr)
	}
	dep := out.Runs[0].Deployments[0]
	if len(dep.Setup) != 1 || dep.Setup["feed"] == "" || dep.Hash == "" || dep.Rules["XRC137_A"] == "" {
		t.Errorf("deployment: %+v", dep)
	}
	// The API now says no: the step is invalid and the API check fails.
	ok.Store(false)
	out, code, _ = runScenario(t, args...)
	f := failures(&out.Report)
	if code != 1 || !strings.Contains(f, "api Ok: expected eq true, actual false") || !strings.Contains(f, `valid: expected true, actual invalid (rules[0]: rule "[Ok] == true" is false)`) {
		t.Fatalf("exit %d:\n%s", code, f)
	}
}
