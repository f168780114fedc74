package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xgr-sidecar/xgr/internal/toolbin"
)

const kycExample = "../../examples/scenario/Order_process_waits_for_KYC_and_continues_when_KYC_is_valid_scenario.json"

func TestScenarioValidate(t *testing.T) {
	out, code := run(t, "scenario", "validate", kycExample)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, want := range []string{
		"plan order_process: orchestration \"order_kyc_bestellprozess\" (5 steps), 5 XRC-137 rules, 0 setup contracts, owner owner, starter owner",
		"plan kyc_worker: orchestration \"kyc_order_wakeup_process\" (12 steps), 12 XRC-137 rules",
		"step assert_kyc_worker_session: assertSession",
		"actors in order of first use: owner, owner1",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out, code = run(t, "scenario", "validate", "--json", kycExample)
	if code != 0 || !strings.Contains(out, `{"key":"order_process","orchestration":"order_kyc_bestellprozess","steps":5,"rules":5,"setupContracts":0,"owner":"owner","starter":"owner"}`) ||
		!strings.Contains(out, `{"id":"assert_kyc_worker_session","type":"assertSession"}`) || !strings.Contains(out, `"actors":["owner","owner1"]`) {
		t.Errorf("--json: exit %d:\n%s", code, out)
	}
}

// A bad file is a usage error (exit 2) before anything starts: every
// problem with file:line:col, its JSON path and what is allowed.
func TestScenarioRunBadFile(t *testing.T) {
	raw, err := os.ReadFile(kycExample)
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(raw), `"type": "waitForStep"`, `"type": "waitFor"`, 1)
	bad = strings.Replace(bad, `"$actor.address:owner1"`, `"$actor.address:owner2"`, 1)
	file := writeFile(t, "bad.json", bad)
	t.Setenv(toolbin.EnvName("anvil"), "/nonexistent/anvil") // nothing may start
	out, code := run(t, "scenario", "run", file)
	if code != 2 {
		t.Fatalf("exit %d, want 2:\n%s", code, out)
	}
	for _, want := range []string{
		file + " is not a test-suite file this runner can run:",
		file + `:1912:19: error: scenarios[0].steps[1].type: step type "waitFor": want "startSession", "waitForStep", "assertSession"`,
		`:1955:23: error: scenarios[0].steps[2].payload.__wakeUp.steps.wait_for_kyc_result.internal.allow[0]: actor "owner2" is not declared in actors (declared: "owner", "owner1")`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "anvil") {
		t.Errorf("a bad file must stop the run before anything starts:\n%s", out)
	}
	out, code = run(t, "scenario", "run", filepath.Join(t.TempDir(), "missing.json"))
	if code != 2 || !strings.Contains(out, "no such file") {
		t.Errorf("missing file: exit %d:\n%s", code, out)
	}
}

func TestScenarioRunEnvironmentErrors(t *testing.T) {
	// A missing anvil says how to install it.
	t.Setenv(toolbin.EnvName("anvil"), "/nonexistent/anvil")
	out, code := run(t, "scenario", "run", kycExample)
	if code != 2 || !strings.Contains(out, "cannot start a private anvil") || !strings.Contains(out, "XGR_ANVIL_BIN") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	// A malformed --actor is a usage error that does not echo the key.
	out, code = run(t, "scenario", "run", "--actor", "owner=0x1234secret", kycExample)
	if code != 2 || !strings.Contains(out, `--actor: actor "owner": not a private key`) || strings.Contains(out, "secret") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	out, code = run(t, "scenario", "run", "--actor", "0xabc", kycExample)
	if code != 2 || !strings.Contains(out, "want ALIAS=0xPRIVATEKEY") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}
