package simulation

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
)

// Without outcomes or a rule source nothing can run a step; a wait
// override must be seconds, 0 or more; with outcomes alone every step plays
// scripted, its waits replaced when asked.
func TestSteps(t *testing.T) {
	o, err := registry.Parse([]byte(`{"id": "f", "structure": {"A1": {"rule": "<r>"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	var ue *UsageError
	if _, _, err := Steps(context.Background(), o, StepsConfig{}); !errors.As(err, &ue) || !strings.Contains(err.Error(), "give --outcomes FILE") {
		t.Fatalf("no source: %v", err)
	}
	scripted, err := reactor.ParseOutcomes([]byte(`{"default": {"result": "valid"}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []float64{-1, math.NaN(), math.Inf(1)} {
		if _, _, err := Steps(context.Background(), o, StepsConfig{Scripted: scripted, WaitOverride: &bad}); !errors.As(err, &ue) {
			t.Errorf("--wait-override %v: %v", bad, err)
		}
	}
	zero := 0.5
	exec, rules, err := Steps(context.Background(), o, StepsConfig{Scripted: scripted, WaitOverride: &zero})
	if err != nil || rules == nil {
		t.Fatal(err)
	}
	if fw, ok := exec.(reactor.FixedWait); !ok || fw.Wait != 500*time.Millisecond || fw.Exec != reactor.Executor(scripted) {
		t.Fatalf("executor %#v", exec)
	}
}
