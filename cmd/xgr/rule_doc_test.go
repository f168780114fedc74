package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

const fixtures = "../../testdata/xgr-public"

// run executes the CLI and returns stdout and the exit code it would use.
func run(t *testing.T, args ...string) (string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := runApp(context.Background(), newApp(&out, &errOut), append([]string{"xgr"}, args...))
	code := 0
	if err != nil {
		// As main does: an ExitCoder chooses the status, anything else
		// (a usage error from flag parsing) is 2.
		code = 2
		var ec cli.ExitCoder
		if errors.As(err, &ec) {
			code = ec.ExitCode()
		}
		out.WriteString(err.Error())
	}
	return out.String(), code
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func repairedPiFile(t *testing.T) string {
	raw, err := os.ReadFile(filepath.Join(fixtures, "IterationOfPi/XRC137Json/Iterationstep.json"))
	if err != nil {
		t.Fatalf("fixture: %v", err)
	}
	return writeFile(t, "pi.json", string(raw)+"}")
}

func TestRuleValidate(t *testing.T) {
	truncated := filepath.Join(fixtures, "IterationOfPi/XRC137Json/Iterationstep.json")
	feed := filepath.Join(fixtures, "ApiPriceFeed/XRC137Json/ApiPriceFeedStep_CoinbaseSpot.json")
	out, code := run(t, "rule", "validate", feed, truncated)
	if code != 1 || !strings.Contains(out, truncated+":21:4: error: broken JSON") || !strings.Contains(out, feed+": ok: 8 inputs, 1 apiCalls") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	if out, code := run(t, "rule", "validate", feed); code != 0 || !strings.Contains(out, "ok:") {
		t.Errorf("valid file: exit %d\n%s", code, out)
	}
	bad := writeFile(t, "bad.json", "{\n  \"payload\": {\"A\": {\"type\": \"int65\"}},\n  \"rules\": [\"[A] >\"],\n  \"x\": 1\n}")
	out, code = run(t, "rule", "validate", bad, "--json")
	var reports []jsonReport
	if code != 1 || json.Unmarshal([]byte(strings.TrimSpace(out)), &reports) != nil || len(reports) != 1 {
		t.Fatalf("--json: exit %d\n%s", code, out)
	}
	r := reports[0]
	if r.OK || len(r.Errors) != 2 || r.Errors[0].Path != "payload.A.type" || r.Errors[0].Line != 2 || r.Errors[1].Path != "rules[0]" || len(r.Warnings) != 1 {
		t.Errorf("report: %+v", r)
	}
	warn := writeFile(t, "warn.json", `{"payload": {}, "rules": [], "extra": true}`)
	if _, code := run(t, "rule", "validate", warn); code != 0 {
		t.Errorf("warnings fail without --strict: exit %d", code)
	}
	if out, code := run(t, "rule", "validate", "--strict", warn); code != 1 || !strings.Contains(out, "INVALID under --strict") {
		t.Errorf("--strict: exit %d\n%s", code, out)
	}
	if _, code := run(t, "rule", "validate"); code != 2 {
		t.Errorf("no files: exit %d", code)
	}
}

func TestRuleEvalPi(t *testing.T) {
	pi := repairedPiFile(t)
	in := writeFile(t, "in.json", `{"Iter": 0, "S": 0, "Pi": 0}`)
	out, code := run(t, "rule", "eval", pi, "--payload", in)
	if code != 0 || !strings.Contains(out, "onValid (valid)") || !strings.Contains(out, `"Iter": 1`) || !strings.Contains(out, "waitSec: 3600") || !strings.Contains(out, "timings: total") {
		t.Errorf("exit %d\n%s", code, out)
	}
	out, code = run(t, "rule", "eval", "--json", pi, "-p", in)
	var res struct {
		File   string
		Result struct {
			Valid  bool
			Branch string
			Output map[string]any
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || !res.Result.Valid || res.Result.Output["S"] != 1.0 {
		t.Errorf("--json: exit %d\n%s", code, out)
	}
	// Without a payload the inputs are missing: invalid, reasons listed.
	out, code = run(t, "rule", "eval", pi)
	if code != 0 || !strings.Contains(out, "onInvalid (invalid)") || !strings.Contains(out, "missing-input") {
		t.Errorf("no payload: exit %d\n%s", code, out)
	}
	if _, code := run(t, "rule", "eval", pi, "--payload", writeFile(t, "list.json", `[1]`)); code != 2 {
		t.Errorf("payload not an object: exit %d", code)
	}
	if out, code := run(t, "rule", "eval", filepath.Join(fixtures, "IterationOfPi/XRC137Json/Iterationstep.json")); code != 2 || !strings.Contains(out, "21:4") {
		t.Errorf("truncated document: exit %d\n%s", code, out)
	}
}

func TestRuleEvalAPIAndHardError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"data": {"amount": "123.5"}}`)
	}))
	defer srv.Close()
	doc := writeFile(t, "feed.json", `{
  "payload": {"Pair": {"type": "string", "default": "BTC-USD"}},
  "apiCalls": [{"name": "spot", "method": "GET", "urlTemplate": "http://prices.test/v2/prices/[Pair]/spot", "contentType": "json",
    "extractMap": {"Price": {"type": "double", "value": "double(resp.data.amount)"}}}],
  "rules": ["[Price] > 0.0"],
  "onValid": {"payload": {"Price": "[Price]", "Memo": "[Pair] at [Price]"}, "grants": [{"address": "[Auditor]", "rights": 1}]}
}`)
	// Refused without the allow-host mapping: the alias has no default, soft-invalid.
	out, code := run(t, "rule", "eval", doc)
	if code != 0 || !strings.Contains(out, "onInvalid (invalid)") || !strings.Contains(out, "soft-invalid") {
		t.Errorf("refused: exit %d\n%s", code, out)
	}
	out, code = run(t, "rule", "eval", doc, "--allow-host", "prices.test="+srv.Listener.Addr().String())
	for _, want := range []string{"onValid (valid)", `"Memo": "BTC-USD at 123.5"`, "Price = 123.5", "spot GET http://prices.test/v2/prices/BTC-USD/spot -> 200", "not performed: 1 grants"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if code != 0 {
		t.Errorf("exit %d", code)
	}
	hard := writeFile(t, "hard.json", `{"payload": {"A": {"type": "int64"}}, "rules": ["[A] / 0 > 1"]}`)
	out, code = run(t, "rule", "eval", hard, "--payload", writeFile(t, "a.json", `{"A": 1}`))
	if code != 1 || !strings.Contains(out, "ABORTED (hard error)") || !strings.Contains(out, "division by zero") {
		t.Errorf("hard error: exit %d\n%s", code, out)
	}
	if _, code := run(t, "rule", "eval", hard, "--allow-host", "x=nowhere"); code != 2 {
		t.Errorf("bad --allow-host: exit %d", code)
	}
	if _, code := run(t, "rule", "eval", hard, "--bogus"); code != 2 {
		t.Errorf("unknown flag: exit %d", code)
	}
}

// docs/authoring.md: "1 ... (the step would abort)". A holding abortStep
// (or cancelSession) rule ends the step as aborted (rule spec §7.3, typed
// rule actions: "Abort the current step (terminal for this step)"), so
// rule eval exits 1 for it as for a hard error.
func TestRuleEvalAbortStepExits1(t *testing.T) {
	doc := writeFile(t, "gate.json", `{"payload": {"Fraud": {"type": "double"}},
  "rules": [{"type": "abortStep", "expression": "[Fraud] > 0.9"}, {"type": "cancelSession", "expression": "[Fraud] > 0.99"}]}`)
	out, code := run(t, "rule", "eval", doc, "--payload", writeFile(t, "f.json", `{"Fraud": 0.95}`))
	if code != 1 || !strings.Contains(out, "abortStep (rules[0] holds)") {
		t.Errorf("abortStep holds: exit %d\n%s", code, out)
	}
	out, code = run(t, "rule", "eval", doc, "--payload", writeFile(t, "c.json", `{"Fraud": 0.999}`))
	if code != 1 || !strings.Contains(out, "abortStep (rules[0] holds)") {
		t.Errorf("abortStep and cancelSession hold: exit %d\n%s", code, out)
	}
	if out, code := run(t, "rule", "eval", doc, "--payload", writeFile(t, "ok.json", `{"Fraud": 0.1}`)); code != 0 || !strings.Contains(out, "onValid (valid)") {
		t.Errorf("no typed rule holds: exit %d\n%s", code, out)
	}
}
