package reactor

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
)

// The session machine is tested here without a store: inputs in, typed
// commands and timeline lines out, on a clock the test moves.

var machineT0 = time.UnixMilli(1_800_000_000_000)

func machineOrch(t *testing.T) *registry.Orchestration {
	t.Helper()
	o, err := registry.Parse([]byte(`{"id":"m","structure":{
		"A":{"rule":"0x0000000000000000000000000000000000000001","onValid":{"spawns":["B","C"],"join":{"joinid":"J","mode":{"k":1},"waitonjoin":"kill","from":[{"node":"B","when":"valid"},{"node":"C","when":"valid"}]}}},
		"B":{"rule":"0x0000000000000000000000000000000000000001"},
		"C":{"rule":"0x0000000000000000000000000000000000000001"},
		"J":{"rule":"0x0000000000000000000000000000000000000001"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	return o
}

var machineRoot = joinstore.Root{Owner: "0x00000000000000000000000000000000000000aa", RootPid: 7}

func noCheck(string, []byte) error { return nil }

func names(cmds []command) string {
	var out []string
	for _, c := range cmds {
		out = append(out, strings.TrimPrefix(fmt.Sprintf("%T", c), "reactor.cmd"))
	}
	return strings.Join(out, ",")
}

func claimOf(iter int64, step string, target int64) joinstore.Claim {
	return joinstore.Claim{Root: machineRoot, Iter: iter, Pid: machineRoot.Pid(iter), Token: iter, ResumeStep: step,
		ResumePlain: []byte(`{}`), JoinGroupID: "2", GroupTarget: target}
}

// A commit's own delivery and the decisions it causes run before anything
// else: its join step, then the reap its cancel asks for, then its
// wake-ups — and only then the next result's commit (seed 001 §4.1/§4.3).
func TestMachineOrdersACommitsFollowUps(t *testing.T) {
	o := machineOrch(t)
	m := newMachine(machineConfig{RootLease: 9 * time.Second, Poll: time.Second, ClaimLease: time.Minute, Worker: "w", Check: noCheck}, machineRoot, nil, machineT0)
	now := machineT0
	if rd := m.Step(inStart{}, now); names(rd.cmds) != "Open" {
		t.Fatalf("start: %s, want Open", names(rd.cmds))
	}
	b, c := claimOf(3, "B", 2), claimOf(4, "C", 2)
	rd := m.Step(inOpened{Orch: o, Claims: []joinstore.Claim{b, c}}, now)
	if names(rd.cmds) != "Execute,Execute,Sleep" {
		t.Fatalf("opened with two claims: %s, want both executed and a sleep until the renewal", names(rd.cmds))
	}
	// Both finish; B's result is committed first, C's waits.
	m.Step(inExecuted{R: result{claim: b, res: Result{Valid: true}, input: map[string]any{}, inputRaw: []byte(`{}`)}}, now)
	rd = m.Step(inExecuted{R: result{claim: c, res: Result{Valid: true}, input: map[string]any{}, inputRaw: []byte(`{}`)}}, now)
	if names(rd.cmds) != "" {
		t.Fatalf("a commit is outstanding, nothing else may start: %s", names(rd.cmds))
	}
	wake := joinstore.PendingWake{ID: "w1", Entry: []byte(`{}`)}
	rd = m.Step(inCommitted{Res: joinstore.CommitResult{Live: 3, DeliveredTo: 2, Cancelled: true, Killed: false, Wakes: []joinstore.PendingWake{wake}}}, now)
	var order []string
	for {
		if len(rd.cmds) != 1 {
			t.Fatalf("after the commit: %s, want one store command at a time", names(rd.cmds))
		}
		name := names(rd.cmds)
		order = append(order, name)
		if name == "Commit" {
			break
		}
		switch rd.cmds[0].(type) {
		case cmdJoinStep:
			rd = m.Step(inJoined{Target: 2, Res: joinstore.JoinResult{Verdicts: []string{joinstore.VerdictSatisfied}}}, now)
		case cmdReap:
			rd = m.Step(inReaped{Res: joinstore.KillResult{Results: map[int64]string{}, Live: 2}}, now)
		case cmdWakes:
			rd = m.Step(inWoke{}, now)
		default:
			t.Fatalf("unexpected %s after %v", name, order)
		}
	}
	if got := strings.Join(order, ">"); got != "JoinStep>Reap>Wakes>Commit" {
		t.Fatalf("follow-up order %s, want JoinStep>Reap>Wakes>Commit", got)
	}
	var types []string
	for _, e := range m.out.events {
		types = append(types, string(e.Type))
	}
	if got := strings.Join(types, " "); got != "executed" {
		t.Fatalf("last step's lines %q, want the next commit's executed", got)
	}
}

// Timeline lines carry strictly increasing sequence numbers, across steps.
func TestMachineNumbersTheTimeline(t *testing.T) {
	o := machineOrch(t)
	m := newMachine(machineConfig{Serial: true, Worker: "w", Check: noCheck}, machineRoot, o, machineT0)
	var last uint64
	check := func(rd ready) {
		for _, e := range rd.events {
			if e.Seq != last+1 {
				t.Fatalf("line %s has seq %d after %d", e.Type, e.Seq, last)
			}
			last = e.Seq
		}
	}
	check(m.Step(inStart{}, machineT0))
	a := claimOf(1, "A", 0)
	a.JoinGroupID, a.FirstChild = "0", 2
	check(m.Step(inClaimed{Claims: []joinstore.Claim{a}, Asked: 1}, machineT0))
	check(m.Step(inExecuted{R: result{claim: a, res: Result{Valid: true}, input: map[string]any{}, inputRaw: []byte(`{}`)}}, machineT0))
	check(m.Step(inCommitted{Res: joinstore.CommitResult{Live: 3}}, machineT0))
	if last < 4 {
		t.Fatalf("only %d lines for a claim, an execution and three spawns", last)
	}
}

// The serial driver's run ends when nothing is live, sleeps to the next
// due time, and is stuck when live processes never become due.
func TestMachineSerialEnds(t *testing.T) {
	o := machineOrch(t)
	for _, tc := range []struct {
		name string
		in   inInspected
		want string
	}{
		{"finished", inInspected{Live: 0}, "Done <nil>"},
		{"later", inInspected{Live: 1, Next: machineT0.Add(time.Hour), NextOK: true}, "Sleep"},
		{"stuck", inInspected{Live: 2}, "Done session is stuck: live processes but nothing due (2 live)"},
		{"store error", inInspected{Err: errors.New("boom")}, "Done boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newMachine(machineConfig{Serial: true, Worker: "w", Check: noCheck}, machineRoot, o, machineT0)
			if rd := m.Step(inStart{}, machineT0); names(rd.cmds) != "Claim" || !rd.cmds[0].(cmdClaim).Earliest {
				t.Fatalf("start: %s, want a claim of the earliest due process", names(rd.cmds))
			}
			if rd := m.Step(inClaimed{}, machineT0); names(rd.cmds) != "Inspect" {
				t.Fatalf("nothing due: %s, want Inspect", names(rd.cmds))
			}
			rd := m.Step(tc.in, machineT0)
			got := names(rd.cmds)
			if d, ok := rd.cmds[0].(cmdDone); ok {
				got += " " + fmt.Sprint(d.Err)
			}
			if got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// A step that could not be decided (a transient failure) gives its lease
// back, due again after a backoff that doubles up to a minute; it is never
// committed as aborted.
func TestMachineRetriesTransientFailures(t *testing.T) {
	o := machineOrch(t)
	m := newMachine(machineConfig{Serial: true, Worker: "w", Check: noCheck}, machineRoot, o, machineT0)
	m.Step(inStart{}, machineT0)
	b := claimOf(3, "B", 0)
	var waits []time.Duration
	for range 9 {
		m.Step(inClaimed{Claims: []joinstore.Claim{b}, Asked: 1}, machineT0)
		rd := m.Step(inExecuted{R: result{claim: b, err: transientErr{errors.New("node down")}}}, machineT0)
		rel, ok := rd.cmds[0].(cmdReleaseLease)
		if !ok {
			t.Fatalf("a transient failure: %s, want ReleaseLease", names(rd.cmds))
		}
		if len(rd.events) != 1 || rd.events[0].Type != EvRetry {
			t.Fatalf("lines %v, want one retry", rd.events)
		}
		waits = append(waits, rel.RetryAt.Sub(machineT0))
		m.Step(inLeaseReleased{}, machineT0)
	}
	want := []time.Duration{1, 2, 4, 8, 16, 32, 60, 60, 60}
	for i, w := range want {
		if waits[i] != w*time.Second {
			t.Fatalf("backoffs %v, want %v seconds", waits, want)
		}
	}
	// The eleventh transient failure in a row aborts the process.
	m.Step(inClaimed{Claims: []joinstore.Claim{b}, Asked: 1}, machineT0)
	rd := m.Step(inExecuted{R: result{claim: b, err: transientErr{errors.New("node down")}}}, machineT0)
	m.Step(inLeaseReleased{}, machineT0)
	if _, ok := rd.cmds[0].(cmdReleaseLease); !ok {
		t.Fatalf("the tenth transient failure: %s, want ReleaseLease", names(rd.cmds))
	}
	m.Step(inClaimed{Claims: []joinstore.Claim{b}, Asked: 1}, machineT0)
	rd = m.Step(inExecuted{R: result{claim: b, err: transientErr{errors.New("node down")}}}, machineT0)
	if cm, ok := rd.cmds[0].(cmdCommit); !ok || cm.Commit.Status != "aborted" || !strings.Contains(cm.Commit.AbortReason, "gave up after 11 attempts: node down") {
		t.Fatalf("the eleventh transient failure: %s %+v, want an aborted commit that says it gave up", names(rd.cmds), rd.cmds)
	}
	m.Step(inCommitted{Res: joinstore.CommitResult{Live: 1}}, machineT0)
	// A hard error commits the process as aborted.
	c := claimOf(4, "C", 0)
	b = c
	m.Step(inClaimed{Claims: []joinstore.Claim{b}, Asked: 1}, machineT0)
	rd = m.Step(inExecuted{R: result{claim: b, err: errors.New("bad input")}}, machineT0)
	if cm, ok := rd.cmds[0].(cmdCommit); !ok || cm.Commit.Status != "aborted" {
		t.Fatalf("a hard error: %s, want an aborted commit", names(rd.cmds))
	}
}

type transientErr struct{ error }

func (transientErr) Transient() bool { return true }

// A replica renews every third of the root lease, stops when another
// replica holds the root, and hands an idle session back.
func TestMachineRenewsAndHandsBack(t *testing.T) {
	o := machineOrch(t)
	cfg := machineConfig{RootLease: 9 * time.Second, Poll: time.Second, ClaimLease: time.Minute, Worker: "w", Check: noCheck}
	m := newMachine(cfg, machineRoot, nil, machineT0)
	m.Step(inStart{}, machineT0)
	rd := m.Step(inOpened{Orch: o, Opening: joinstore.Opening{Next: machineT0.Add(time.Second), NextOK: true}}, machineT0)
	if names(rd.cmds) != "Sleep" {
		t.Fatalf("idle with work due in 1s: %s, want Sleep", names(rd.cmds))
	}
	rd = m.Step(inTimer{}, machineT0.Add(4*time.Second))
	if names(rd.cmds) != "Renew,Claim" {
		t.Fatalf("after 4s of a 9s lease: %s, want Renew,Claim", names(rd.cmds))
	}
	rd = m.Step(inClaimed{ReadDue: true}, machineT0.Add(4*time.Second))
	if names(rd.cmds) != "Inspect" {
		t.Fatalf("nothing due at all: %s, want the hand-back's Inspect", names(rd.cmds))
	}
	rd = m.Step(inInspected{Live: 1, Next: machineT0.Add(time.Hour), NextOK: true}, machineT0.Add(4*time.Second))
	if mk, ok := rd.cmds[0].(cmdMarkRoot); !ok || !mk.At.Equal(machineT0.Add(time.Hour)) {
		t.Fatalf("hand-back: %s %+v, want MarkRoot at the next due time", names(rd.cmds), rd.cmds)
	}
	m.Step(inRenewed{Err: joinstore.ErrRootHeld}, machineT0.Add(5*time.Second))
	if !m.Done() {
		t.Fatal("a root held by another replica must end the machine without a release")
	}
}
