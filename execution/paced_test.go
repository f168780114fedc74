package execution_test

import (
	"context"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/execution"
)

// pending answers "not final" n times, then final.
type pending struct{ n int }

func (p *pending) Send(context.Context, execution.Scope, string, execution.Call) error { return nil }
func (p *pending) Outcome(context.Context, string) (execution.Outcome, bool, error) {
	if p.n > 0 {
		p.n--
		return execution.Outcome{}, false, nil
	}
	return execution.Outcome{Status: 1}, true, nil
}

// Paced waits its interval before "not final", never before a final
// outcome, and stops waiting when the context ends.
func TestPacedWaitsOnlyWhilePending(t *testing.T) {
	p := execution.Paced{Actuator: &pending{n: 1}, Every: 100 * time.Millisecond}
	t0 := time.Now()
	if _, ok, err := p.Outcome(t.Context(), "k"); ok || err != nil {
		t.Fatalf("first poll: ok %v err %v", ok, err)
	}
	if d := time.Since(t0); d < 100*time.Millisecond {
		t.Errorf("a pending outcome came back after %s, want the pause of 100ms", d)
	}
	t0 = time.Now()
	if o, ok, err := p.Outcome(t.Context(), "k"); !ok || err != nil || o.Status != 1 {
		t.Fatalf("second poll: %+v ok %v err %v", o, ok, err)
	}
	if d := time.Since(t0); d > 50*time.Millisecond {
		t.Errorf("a final outcome waited %s", d)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	slow := execution.Paced{Actuator: &pending{n: 1}, Every: time.Hour}
	if _, ok, err := slow.Outcome(ctx, "k"); ok || err == nil {
		t.Errorf("a cancelled wait: ok %v err %v", ok, err)
	}
}
