package replica

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/ruleexec"
	"github.com/xgr-sidecar/xgr/rulesource"
	"github.com/xgr-sidecar/xgr/session"
	"github.com/xgr-sidecar/xgr/testenv"
)

const owner = "0x00000000000000000000000000000000000000aa"

// An assembled replica runs a session of the nested-join example to the
// end, every step played by the scripted outcomes, and gives it back.
func TestReplicaRunsASession(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	o := nestedJoin(t)
	store, err := OpenStore(ctx, testenv.StartRedis(t).Client(), joinstore.Config{SessionTTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	scripted, err := reactor.ParseOutcomes([]byte(`{"default": {"result": "valid"}}`))
	if err != nil {
		t.Fatal(err)
	}
	exec, err := Steps{Scripted: scripted}.Executor()
	if err != nil {
		t.Fatal(err)
	}
	src := reactor.NewStaticSource(o)
	events := make(chan reactor.Event, 1024)
	m, err := NewManager(ManagerConfig{Store: store, Source: src, Exec: exec, Name: "test", Poll: 10 * time.Millisecond,
		OnEvent: func(_ joinstore.Root, e reactor.Event) {
			select {
			case events <- e:
			default:
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := session.Starter{Store: store, Source: src}.Start(ctx, session.Request{Owner: owner, Registry: "test", OstcID: o.ID, Step: o.Steps[0].ID})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- m.Run(runCtx) }()
	defer func() { stop(); <-done }()
	for {
		procs, err := store.Processes(ctx, res.Root)
		if err != nil {
			t.Fatal(err)
		}
		live := 0
		for _, p := range procs {
			if p.Status.Live() {
				live++
			}
		}
		if live == 0 && len(procs) > 1 {
			for _, p := range procs {
				if p.Status != joinstore.StatusDone {
					t.Errorf("process %s (%s): %s", p.Pid, p.ResumeStep, p.Status)
				}
			}
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the session did not finish: %+v", procs)
		case <-time.After(20 * time.Millisecond):
		}
	}
	if len(events) == 0 {
		t.Error("OnEvent saw no event")
	}
}

// NewManager refuses a ManagerConfig it cannot run with, naming what is missing.
func TestNewManagerRefusesAnIncompleteConfig(t *testing.T) {
	store := joinstore.New(nil, joinstore.Config{})
	src := reactor.NewStaticSource()
	scripted := &reactor.Scripted{}
	for _, tc := range []struct {
		cfg  ManagerConfig
		want string
	}{
		{ManagerConfig{Source: src, Exec: scripted, Name: "r"}, "replica: no store"},
		{ManagerConfig{Store: store, Exec: scripted, Name: "r"}, "replica: no orchestration source"},
		{ManagerConfig{Store: store, Source: src, Name: "r"}, "replica: no step executor"},
		{ManagerConfig{Store: store, Source: src, Exec: scripted}, "replica: no name (it names the replica in leases)"},
	} {
		if _, err := NewManager(tc.cfg); err == nil || err.Error() != tc.want {
			t.Errorf("%+v: %v, want %q", tc.cfg, err, tc.want)
		}
	}
	m, err := NewManager(ManagerConfig{Store: store, Source: src, Exec: scripted, Name: "r", Poll: time.Second, MaxRoots: 3})
	if err != nil || m.Replica != "r" || m.Poll != time.Second || m.MaxRoots != 3 || m.Log == nil {
		t.Errorf("%+v, %v", m, err)
	}
}

// Steps: rules with the scripted outcomes as fallback, scripted alone, or
// nothing to run a step with.
func TestStepsExecutor(t *testing.T) {
	scripted := &reactor.Scripted{}
	rules := &rulesource.Loader{}
	x, err := Steps{Rules: rules, Scripted: scripted}.Executor()
	if re, ok := x.(*ruleexec.Executor); err != nil || !ok || re.Rules != rulesource.Source(rules) || re.Fallback != reactor.Executor(scripted) {
		t.Errorf("rules and outcomes: %#v, %v", x, err)
	}
	x, err = Steps{Rules: rules}.Executor()
	if re, ok := x.(*ruleexec.Executor); err != nil || !ok || re.Fallback != nil {
		t.Errorf("rules alone: %#v, %v", x, err)
	}
	if x, err := (Steps{Scripted: scripted}).Executor(); err != nil || x != reactor.Executor(scripted) {
		t.Errorf("outcomes alone: %#v, %v", x, err)
	}
	if _, err := (Steps{}).Executor(); !errors.Is(err, ErrNoSteps) {
		t.Errorf("nothing: %v", err)
	}
}
