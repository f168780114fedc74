package reactor

import (
	"errors"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
)

// handingBack returns a replica's machine that found nothing to do and
// began to hand its session back (cmdInspect).
func handingBack(t *testing.T) *machine {
	t.Helper()
	m := newMachine(machineConfig{RootLease: 9 * time.Second, Poll: time.Second, ClaimLease: time.Minute, Worker: "w", Check: noCheck}, machineRoot, nil, machineT0)
	m.Step(inStart{}, machineT0)
	if rd := m.Step(inOpened{Orch: machineOrch(t)}, machineT0); names(rd.cmds) != "Inspect" || !m.Releasing() {
		t.Fatalf("opened with nothing due: %s (releasing %v), want the hand-back's Inspect", names(rd.cmds), m.Releasing())
	}
	return m
}

// The hand-back's decisions, one input at a time: where the root index
// marks the session, the second read of the due set after a mark and the
// mark again when a wake made work due sooner, the read of a session taken
// out of the index and its report when it is finished, and the release of
// the root lease at the end (and after any failed read).
func TestMachineHandBack(t *testing.T) {
	soon, later := machineT0.Add(time.Minute), machineT0.Add(time.Hour)
	finished := joinstore.SessionMeta{Owner: machineRoot.Owner, RootPid: machineRoot.RootPid, Status: joinstore.SessionFinished, Steps: 3}
	boom := errors.New("boom")
	type step struct {
		in   input
		want command
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"marked at the next due time; nothing sooner", []step{
			{inInspected{Live: 1, Next: later, NextOK: true}, cmdMarkRoot{At: later}},
			{inMarked{}, cmdReadDue{}},
			{inDueRead{Next: later, NextOK: true}, cmdReleaseRoot{}},
		}},
		{"a wake made work due sooner: marked again at it", []step{
			{inInspected{Live: 1, Next: later, NextOK: true}, cmdMarkRoot{At: later}},
			{inMarked{}, cmdReadDue{}},
			{inDueRead{Next: soon, NextOK: true}, cmdMarkRoot{At: soon}},
			{inMarked{}, cmdReleaseRoot{}},
		}},
		{"a failed mark is read again all the same", []step{
			{inInspected{Live: 1, Next: later, NextOK: true}, cmdMarkRoot{At: later}},
			{inMarked{Err: boom}, cmdReadDue{}},
			{inDueRead{Next: soon, NextOK: true}, cmdMarkRoot{At: soon}},
			{inMarked{Err: boom}, cmdReleaseRoot{}},
		}},
		{"the second read failed", []step{
			{inInspected{Live: 1, Next: later, NextOK: true}, cmdMarkRoot{At: later}},
			{inMarked{}, cmdReadDue{}},
			{inDueRead{Next: soon, NextOK: true, Err: boom}, cmdReleaseRoot{}},
		}},
		{"live, nothing due: a lease period later", []step{
			{inInspected{Live: 1}, cmdMarkRoot{At: machineT0.Add(9 * time.Second)}},
			{inMarked{}, cmdReadDue{}},
			{inDueRead{}, cmdReleaseRoot{}},
		}},
		{"wake-ups still queued: a lease period later", []step{
			{inInspected{Live: 0, PendingWake: true}, cmdMarkRoot{At: machineT0.Add(9 * time.Second)}},
		}},
		{"finished elsewhere: unmarked, read, reported", []step{
			{inInspected{Live: 0, Finished: true}, cmdUnmarkRoot{}},
			{inUnmarked{}, cmdReadMeta{}},
			{inMetaRead{Meta: finished}, cmdReleaseRoot{Finished: &finished}},
		}},
		{"unmarked, but not finished: not reported", []step{
			{inInspected{Live: 0}, cmdUnmarkRoot{}},
			{inUnmarked{}, cmdReadMeta{}},
			{inMetaRead{Meta: joinstore.SessionMeta{Status: joinstore.SessionLive}}, cmdReleaseRoot{}},
		}},
		{"unmarked, the read failed: not reported", []step{
			{inInspected{Live: 0}, cmdUnmarkRoot{}},
			{inUnmarked{}, cmdReadMeta{}},
			{inMetaRead{Meta: finished, Err: boom}, cmdReleaseRoot{}},
		}},
		{"the unmark failed", []step{
			{inInspected{Live: 0}, cmdUnmarkRoot{}},
			{inUnmarked{Err: boom}, cmdReleaseRoot{}},
		}},
		{"the reads before failed: the index keeps its mark", []step{
			{inInspected{Err: boom}, cmdReleaseRoot{}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := handingBack(t)
			for i, st := range tc.steps {
				rd := m.Step(st.in, machineT0)
				if len(rd.cmds) != 1 || !sameCommand(rd.cmds[0], st.want) {
					t.Fatalf("step %d (%T): %s %+v, want %T %+v", i, st.in, names(rd.cmds), rd.cmds, st.want, st.want)
				}
				if m.Done() || !m.Releasing() {
					t.Fatalf("step %d: the machine left the hand-back early", i)
				}
			}
			if _, ok := tc.steps[len(tc.steps)-1].want.(cmdReleaseRoot); !ok {
				return
			}
			if rd := m.Step(inReleased{}, machineT0); len(rd.cmds) != 0 || !m.Done() {
				t.Fatalf("released: %s, done %v; want the machine ended", names(rd.cmds), m.Done())
			}
		})
	}
}

// sameCommand compares hand-back commands (a report by its meta).
func sameCommand(got, want command) bool {
	switch w := want.(type) {
	case cmdMarkRoot:
		g, ok := got.(cmdMarkRoot)
		return ok && g.At.Equal(w.At)
	case cmdReleaseRoot:
		g, ok := got.(cmdReleaseRoot)
		return ok && (g.Finished == nil) == (w.Finished == nil) && (w.Finished == nil || *g.Finished == *w.Finished)
	}
	return got == want
}

// A session that ended with this machine's last commit is handed back at
// once, with its deferred index updates (cmdReleaseFinished), not read
// again.
func TestMachineHandsBackItsOwnFinish(t *testing.T) {
	m := newMachine(machineConfig{RootLease: 9 * time.Second, Poll: time.Second, ClaimLease: time.Minute, Worker: "w", Check: noCheck}, machineRoot, nil, machineT0)
	m.Step(inStart{}, machineT0)
	b := claimOf(3, "B", 0)
	m.Step(inOpened{Orch: machineOrch(t), Claims: []joinstore.Claim{b}}, machineT0)
	if rd := m.Step(inExecuted{R: result{claim: b, res: Result{Valid: true}, input: map[string]any{}, inputRaw: []byte(`{}`)}}, machineT0); names(rd.cmds) != "Commit" {
		t.Fatalf("executed: %s, want Commit", names(rd.cmds))
	}
	if rd := m.Step(inCommitted{Res: joinstore.CommitResult{Live: 0}}, machineT0); names(rd.cmds) != "ReleaseFinished" || !m.Releasing() {
		t.Fatalf("the last commit ended the session: %s, want ReleaseFinished", names(rd.cmds))
	}
	if m.Step(inReleased{}, machineT0); !m.Done() {
		t.Fatal("released: the machine did not end")
	}
}

// A join step that had nothing to do — its target was never created (the
// spawn gate dropped it) or another holder has its lock — is no failure:
// the serial driver goes on; another error ends its run.
func TestMachineJoinStepWithNothingToDo(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{joinstore.ErrNotFound, "Claim"},
		{joinstore.ErrJoinBusy, "Claim"},
		{errors.New("boom"), "Done"},
	} {
		o := machineOrch(t)
		m := newMachine(machineConfig{Serial: true, Worker: "w", Check: noCheck}, machineRoot, o, machineT0)
		m.Step(inStart{}, machineT0)
		b := claimOf(3, "B", 2)
		m.Step(inClaimed{Claims: []joinstore.Claim{b}, Asked: 1}, machineT0)
		m.Step(inExecuted{R: result{claim: b, res: Result{Valid: true}, input: map[string]any{}, inputRaw: []byte(`{}`)}}, machineT0)
		if rd := m.Step(inCommitted{Res: joinstore.CommitResult{Live: 2, DeliveredTo: 2}}, machineT0); names(rd.cmds) != "JoinStep" {
			t.Fatalf("a delivery: %s, want JoinStep", names(rd.cmds))
		}
		rd := m.Step(inJoined{Target: 2, Err: tc.err}, machineT0)
		if names(rd.cmds) != tc.want {
			t.Errorf("join step answered %v: %s, want %s", tc.err, names(rd.cmds), tc.want)
		}
	}
}

// A claim in a killed session (joinstore.ErrSessionKilled) reaps instead,
// on both drivers; it is no failure.
func TestMachineClaimInAKilledSessionReaps(t *testing.T) {
	o := machineOrch(t)
	serial := newMachine(machineConfig{Serial: true, Worker: "w", Check: noCheck}, machineRoot, o, machineT0)
	serial.Step(inStart{}, machineT0)
	if rd := serial.Step(inClaimed{Err: joinstore.ErrSessionKilled}, machineT0); names(rd.cmds) != "Reap" || serial.Done() {
		t.Errorf("serial: %s, want Reap", names(rd.cmds))
	}
	replica := newMachine(machineConfig{RootLease: 9 * time.Second, Poll: time.Second, Worker: "w", Check: noCheck}, machineRoot, nil, machineT0)
	replica.Step(inStart{}, machineT0)
	if rd := replica.Step(inOpened{Orch: o, Opening: joinstore.Opening{Due: []int64{3}}}, machineT0); names(rd.cmds) != "Claim" {
		t.Fatalf("opened with work due: %s, want Claim", names(rd.cmds))
	}
	if rd := replica.Step(inClaimed{Err: joinstore.ErrSessionKilled}, machineT0); names(rd.cmds) != "Reap" {
		t.Errorf("replica: %s, want Reap", names(rd.cmds))
	}
	if err := failure(inClaimed{Err: joinstore.ErrSessionKilled}); err != nil {
		t.Errorf("a killed session's claim is reported as a failure: %v", err)
	}
}
