package ruleexec_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/rule"
	"github.com/xgr-sidecar/xgr/ruleexec"
)

// amplifier is the security review's rule: each level joins 16 copies of
// the previous one (16^9 bytes at the end), from a 100 KB payload string
// as well.
func amplifier() string {
	level := ".map(a, join([a,a,a,a,a,a,a,a,a,a,a,a,a,a,a,a], ''))"
	return `{
  "payload": {"P": {"type": "string"}},
  "rules": ["[\"x\"]` + strings.Repeat(level, 9) + `[0].size() > 0"],
  "onValid": {"payload": {"Out": "[P, ''].map(a, join([a,a,a,a,a,a,a,a,a,a,a,a,a,a,a,a], ''))` + strings.Repeat(level, 2) + `[0]"}}
}`
}

// An amplifying expression ends the step with a hard error that names the
// cap: the process aborts with the reason, once; nothing is retried.
func TestAmplifyingRuleAbortsTheStep(t *testing.T) {
	x := &ruleexec.Executor{Rules: files(t, map[string]string{"Amp.json": amplifier()})}
	_, err := x.Execute(context.Background(), step("<Amp>", map[string]any{"P": strings.Repeat("p", 100_000)}))
	if !errors.Is(err, rule.ErrValueTooLarge) {
		t.Fatalf("got %v, want rule.ErrValueTooLarge", err)
	}
	if !strings.Contains(err.Error(), "MaxValueBytes") || !strings.Contains(err.Error(), "step S1") {
		t.Fatalf("the reason must name the step and the cap: %v", err)
	}
}

// A step that runs past the executor's timeout (here an API call that
// never answers, then the rules) aborts with a reason naming the timeout.
func TestStepTimeoutAbortsTheStep(t *testing.T) {
	hang := rule.APICallerFunc(func(ctx context.Context, _ rule.APIRequest) (rule.APIResponse, error) {
		<-ctx.Done()
		return rule.APIResponse{}, ctx.Err()
	})
	doc := `{
  "payload": {},
  "apiCalls": [{"name": "slow", "method": "GET", "urlTemplate": "https://slow.example/x", "contentType": "json",
    "extractMap": {"v": "resp.v"}, "defaults": {"v": 1}}],
  "rules": ["[v] > 0"],
  "onValid": {"payload": {}}
}`
	x := &ruleexec.Executor{Rules: files(t, map[string]string{"Slow.json": doc}), API: hang, Timeout: 200 * time.Millisecond}
	_, err := x.Execute(context.Background(), step("<Slow>", map[string]any{}))
	if !errors.Is(err, ruleexec.ErrStepTimeout) {
		t.Fatalf("got %v, want ruleexec.ErrStepTimeout", err)
	}
}
