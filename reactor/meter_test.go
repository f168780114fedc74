package reactor

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/execution/scripted"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/testenv"
)

// pricedActuator answers the scripted outcomes with a value and a fee.
type pricedActuator struct{ *scripted.Actuator }

func (p pricedActuator) Outcome(ctx context.Context, key string) (execution.Outcome, bool, error) {
	o, ok, err := p.Actuator.Outcome(ctx, key)
	if ok {
		o.ValueWei, o.FeeWei = "1000000000000000000", "42"
	}
	return o, ok, err
}

// A session's execution is metered when its outcome is final (gas, value,
// fee), once although the outcome is polled again, and the session's
// metering counts only its steps' other gas as validation gas.
func TestRunnerMetersExecutions(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		act := &scripted.Actuator{Decide: func(execution.Scope, string, execution.Call) scripted.Plan { return scripted.Plan{Pending: 2} }}
		s, procs := runExecSimOn(t, rdb, pricedActuator{act}, nil)
		ctx := context.Background()
		key := ExecKey(s.root, procs["A"].Pid)
		o, _, _ := act.Outcome(ctx, key)
		// Polled again (a replica that adopted the session before the commit).
		sio := &sessionIO{store: s.store, root: s.root, clock: func() time.Time { return s.clock }}
		if err := sio.meterExecution(ctx, key, execution.Outcome{GasUsed: o.GasUsed, Status: 1, ValueWei: "1000000000000000000", FeeWei: "42"}); err != nil {
			t.Fatal(err)
		}
		meta, err := s.store.SessionMeta(ctx, s.root)
		if err != nil || meta.Status != joinstore.SessionFinished {
			t.Fatalf("session: %+v %v", meta, err)
		}
		got, err := s.store.Meter(ctx, owner, s.clock, s.clock)
		if err != nil || len(got) != 1 {
			t.Fatalf("meter: %+v %v\n%s", got, err, s.timeline())
		}
		u := got[0]
		if u.Executions != 1 || u.ExecGas != int64(o.GasUsed) || u.ValueWei != "1000000000000000000" || u.FeeWei != "42" ||
			u.Sessions != 1 || u.ValidationGas != meta.GasUsed-int64(o.GasUsed) {
			t.Errorf("meter: %+v; want 1 execution of gas %d, value 1 ETH, fee 42, 1 session of validation gas %d",
				u, o.GasUsed, meta.GasUsed-int64(o.GasUsed))
		}
	})
}
