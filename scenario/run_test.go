package scenario

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// fakeEngine deploys nothing and shows each session as script says for
// the n-th look at it.
type fakeEngine struct {
	starts    []StartRequest
	script    func(s SessionRef, n int) *Observed
	looks     map[SessionRef]int
	deployErr error
}

func (f *fakeEngine) Deploy(_ context.Context, p *Plan) (*Deployment, error) {
	if f.deployErr != nil {
		return nil, f.deployErr
	}
	d := &Deployment{Plan: p.Key, Registry: "0xregistry", OstcID: p.OstcID, Hash: "0xhash", Rules: map[string]string{}}
	for i, r := range p.Rules {
		d.Rules[r.Alias] = fmt.Sprintf("0x%040d", i+1)
	}
	return d, nil
}

func (f *fakeEngine) Start(_ context.Context, req StartRequest) (SessionRef, error) {
	f.starts = append(f.starts, req)
	return SessionRef{Owner: req.Owner, ID: int64(len(f.starts))}, nil
}

func (f *fakeEngine) Observe(_ context.Context, s SessionRef) (*Observed, error) {
	if f.looks == nil {
		f.looks = map[SessionRef]int{}
	}
	f.looks[s]++
	return f.script(s, f.looks[s]), nil
}

// fakeClock advances only when the runner sleeps.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }
func (c *fakeClock) sleep(ctx context.Context, d time.Duration) error {
	c.t = c.t.Add(d)
	return ctx.Err()
}

func proc(iter int64, step, status string, valid *bool) Proc {
	return Proc{Pid: fmt.Sprintf("1:%d", iter), Iter: iter, Step: step, Status: status, Valid: valid, Executed: valid != nil, Updated: iter, Commit: -1}
}

func runner(e Engine) (*Runner, *fakeClock) {
	c := &fakeClock{t: time.Unix(1_800_000_000, 0)}
	return &Runner{Engine: e, Actors: map[string]string{"alice": "0xAAaa000000000000000000000000000000000001"}, Now: c.now, Sleep: c.sleep}, c
}

func TestRunScenarioPasses(t *testing.T) {
	f, err := Parse(smallFile(nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	e := &fakeEngine{script: func(_ SessionRef, n int) *Observed {
		if n < 3 {
			return &Observed{Procs: []Proc{proc(1, "A1", "running", nil)}}
		}
		return &Observed{Finished: true, Procs: []Proc{proc(1, "A1", "done", ptr(true)), proc(2, "B1", "done", ptr(true))}}
	}}
	r, clock := runner(e)
	t0 := clock.t
	rep := r.Run(context.Background(), f)
	var text bytes.Buffer
	rep.WriteText(&text)
	if !rep.Passed || rep.Checks != 4 || rep.Failed != 0 {
		t.Fatalf("report: %+v\n%s", rep, text.String())
	}
	if len(e.starts) != 1 {
		t.Fatalf("starts: %+v", e.starts)
	}
	st := e.starts[0]
	if st.Owner != "0xaaaa000000000000000000000000000000000001" || st.Step != "A1" || st.Payload["Who"] != "0xAAaa000000000000000000000000000000000001" ||
		st.Payload["Rule"] != "0x0000000000000000000000000000000000000001" || fmt.Sprint(st.Payload["N"]) != "1" {
		t.Errorf("start request: %+v", st)
	}
	// The wait looked three times, 100ms apart at most (pollMs is 1000 in the file).
	if d := clock.t.Sub(t0); d != 200*time.Millisecond {
		t.Errorf("waited %s", d)
	}
	for _, want := range []string{`scenario "small"`, "ok   deploy flow (deploy)", "ok   go (startSession): session 1 of 0xaaaa", "pass waitForStep B1 done: reached after 200ms (1:2 done valid)",
		"pass timeline A1 #1", "pass final step: B1 (1:2 done)", "PASSED: 4 checks, 4 passed, 0 failed"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, text.String())
		}
	}
}

func TestRunScenarioFailures(t *testing.T) {
	f, err := Parse(smallFile(nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	// The session ends at A1, invalid: the wait fails at once (it cannot
	// be reached any more), and so do the expectations.
	e := &fakeEngine{script: func(_ SessionRef, n int) *Observed {
		return &Observed{Finished: true, Procs: []Proc{proc(1, "A1", "done", ptr(false))}}
	}}
	r, clock := runner(e)
	t0 := clock.t
	rep := r.Run(context.Background(), f)
	var text bytes.Buffer
	rep.WriteText(&text)
	if rep.Passed || rep.Failed != 3 || clock.t != t0 {
		t.Fatalf("report: %+v\n%s", rep, text.String())
	}
	for _, want := range []string{
		"FAIL waitForStep B1 done: expected B1 reaches done within 1m0s; actual the session finished without it after 0s; processes: 1:1 A1 done invalid  [steps[1]]",
		"FAIL timeline A1 #1: expected A1 #1 exists, valid true; actual 1:1 done invalid  [steps[2].expect.timeline[0]]",
		"valid: expected true, actual invalid",
		"FAIL final step: expected B1; actual A1 (1:1 done)  [steps[2].expect.finalStep]",
		"FAILED: 4 checks, 1 passed, 3 failed",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, text.String())
		}
	}

	// A session that never gets there: the wait times out after timeoutMs.
	e = &fakeEngine{script: func(_ SessionRef, n int) *Observed {
		return &Observed{Procs: []Proc{proc(1, "A1", "done", ptr(true)), proc(2, "B1", "waiting", nil)}}
	}}
	r, clock = runner(e)
	r.Settle = time.Second
	t0 = clock.t
	rep = r.Run(context.Background(), f)
	w := rep.Runs[0].Steps[2]
	if w.Checks[0].Passed || !strings.HasPrefix(w.Checks[0].Actual, "not reached within 1m0s; processes: 1:1 A1 done valid, 1:2 B1 waiting") {
		t.Errorf("timed out wait: %+v", w.Checks[0])
	}
	if d := clock.t.Sub(t0); d < time.Minute || d > time.Minute+2*time.Second {
		t.Errorf("the run took %s on the clock", d)
	}
	if a := rep.Runs[0].Steps[3]; a.Detail != "the session was still live when checked" {
		t.Errorf("assert of a live session: %+v", a)
	}

	// A failed deployment ends the scenario.
	rep = (&Runner{Engine: &fakeEngine{deployErr: errors.New("setOSTC reverted")}, Actors: map[string]string{}}).Run(context.Background(), f)
	if rep.Passed || rep.Failed != 1 || len(rep.Runs[0].Steps) != 1 || rep.Runs[0].Steps[0].Error != "setOSTC reverted" {
		t.Errorf("deploy failure: %+v", rep.Runs[0].Steps)
	}

	// A stopped run reports the steps it did not run.
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("interrupted"))
	rep = (&Runner{Engine: &fakeEngine{}, Actors: map[string]string{"alice": "0x1"}}).Run(ctx, f)
	if rep.Failed != 3 || rep.Runs[0].Steps[1].Error != "not run: interrupted" {
		t.Errorf("stopped run: %+v", rep.Runs[0].Steps[1])
	}
}

func TestRunPlan(t *testing.T) {
	f, err := Parse(readExample(t, "xrc137_contractread_value_eq__valid_multi_plan.json"))
	if err != nil {
		t.Fatal(err)
	}
	e := &fakeEngine{script: func(_ SessionRef, n int) *Observed {
		p := proc(1, "A1", "done", ptr(true))
		p.Recorded, p.Input, p.Reads = true, map[string]any{"AmountA": float64(50), "AmountB": float64(5)}, map[string]any{"readValue": "42"}
		return &Observed{Finished: true, Procs: []Proc{p}}
	}}
	r, _ := runner(e)
	r.Actors = map[string]string{"owner": "0xF39Fd6e51aad88F6F4ce6aB8827279cffFb92266"}
	rep := r.Run(context.Background(), f)
	var text bytes.Buffer
	rep.WriteText(&text)
	if !rep.Passed || rep.Checks != 3 {
		t.Fatalf("report:\n%s", text.String())
	}
	if st := e.starts[0]; st.Owner != "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266" || st.Step != "A1" || fmt.Sprint(st.Payload["AmountA"]) != "50" {
		t.Errorf("start: %+v", st)
	}
}
