package reactor

import (
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
)

// The execution lifecycle of the session machine, without a store: every
// transition of execstep.go, on the serial machine (the replica's takes
// the same decisions; TestManagerExecutionCrash runs it for real).

func execOrch(t *testing.T) *registry.Orchestration {
	t.Helper()
	o, err := registry.Parse([]byte(`{"id":"x","structure":{
		"A":{"rule":"0x0000000000000000000000000000000000000001","onValid":{"spawns":["B"]},"onInvalid":{"spawns":["C"]}},
		"B":{"rule":"0x0000000000000000000000000000000000000001"},
		"C":{"rule":"0x0000000000000000000000000000000000000001"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	return o
}

var (
	callA = execution.Call{To: common.HexToAddress("0x00000000000000000000000000000000000000c1"), Function: "settle(uint256)",
		Data: []byte{1, 2, 3, 4}, Value: big.NewInt(5), GasLimit: 90000}
	callI = execution.Call{To: common.HexToAddress("0x00000000000000000000000000000000000000c2"), Data: []byte{9}}
	okTx  = execution.Outcome{TxHash: common.HexToHash("0x11"), Block: 12, GasUsed: 21000, Status: 1}
	badTx = execution.Outcome{TxHash: common.HexToHash("0x22"), Block: 13, GasUsed: 30000, Status: 0, RevertReason: "too late"}
)

// execMachine is a serial machine that has claimed A (iter 1) and executed
// it with res: the next command is returned.
func execMachine(t *testing.T, executions bool, res Result) (*machine, joinstore.Claim, ready) {
	t.Helper()
	m := newMachine(machineConfig{Serial: true, Worker: "w", Check: noCheck, Executions: executions, ExecPoll: time.Second}, machineRoot, execOrch(t), machineT0)
	if rd := m.Step(inStart{}, machineT0); names(rd.cmds) != "Claim" {
		t.Fatalf("start: %s", names(rd.cmds))
	}
	a := claimOf(1, "A", 0)
	a.JoinGroupID, a.FirstChild, a.ResumePlain = "0", 2, []byte(`{"n":1}`)
	if rd := m.Step(inClaimed{Claims: []joinstore.Claim{a}, Asked: 1}, machineT0); names(rd.cmds) != "Execute" {
		t.Fatalf("claimed: %s", names(rd.cmds))
	}
	rd := m.Step(inExecuted{R: result{claim: a, res: res, input: map[string]any{"n": json.Number("1")}, inputRaw: a.ResumePlain}}, machineT0)
	return m, a, rd
}

func validWithCall() Result {
	c := callA
	return Result{Valid: true, Output: map[string]any{"x": "y"}, Wait: 3 * time.Second, Execution: &c,
		NotPerformed: []string{`execution to "0xc1"`, "2 grants"}, RuleContract: common.HexToAddress("0x01"),
		Inputs: map[string]any{"n": json.Number("1")}, Extracted: map[string]any{"price": json.Number("7")}}
}

func only[T command](t *testing.T, rd ready, what string) T {
	t.Helper()
	if len(rd.cmds) != 1 {
		t.Fatalf("%s: %s, want one command", what, names(rd.cmds))
	}
	c, ok := rd.cmds[0].(T)
	if !ok {
		t.Fatalf("%s: %s", what, names(rd.cmds))
	}
	return c
}

func eventTypes(rd ready) string {
	var out []string
	for _, e := range rd.events {
		out = append(out, string(e.Type))
	}
	return strings.Join(out, " ")
}

// sendUntilPoll answers a begin and a send, sleeps until the poll and
// returns it.
func sendUntilPoll(t *testing.T, m *machine, c joinstore.Claim, now time.Time, res joinstore.BeginResult, wantKey string, wantCall execution.Call) (cmdPoll, time.Time) {
	t.Helper()
	send := only[cmdSend](t, m.Step(inExecBegun{Iter: c.Iter, Res: res}, now), "begun")
	if send.Key != wantKey || send.Call.To != wantCall.To || string(send.Call.Data) != string(wantCall.Data) {
		t.Fatalf("send %s %+v, want %s %+v", send.Key, send.Call, wantKey, wantCall)
	}
	sl := only[cmdSleep](t, m.Step(inSent{Iter: c.Iter}, now), "sent")
	if !sl.Until.Equal(now.Add(time.Second)) {
		t.Fatalf("sleeps until %v, want a poll interval", sl.Until)
	}
	now = sl.Until
	return only[cmdPoll](t, m.Step(inTimer{}, now), "timer"), now
}

func nextPayloadOf(t *testing.T, c cmdCommit) map[string]any {
	t.Helper()
	p, err := UnmarshalPayload(c.Commit.Payload)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Success: the step records its decision before it sends, polls until the
// outcome is final, then commits its branch with the outcome in its output
// and on the process.
func TestMachineExecutionSuccess(t *testing.T) {
	m, a, rd := execMachine(t, true, validWithCall())
	begin := only[cmdBeginExec](t, rd, "executed")
	key := "0x00000000000000000000000000000000000000aa/7/7:1"
	if begin.Key != key || begin.Flip || eventTypes(rd) != "executing" {
		t.Fatalf("begin %+v, lines %s", begin, eventTypes(rd))
	}
	rec, err := decodeRecord(begin.Record)
	if err != nil || rec.Key != key || !rec.Valid || rec.WaitMs != 3000 || rec.Call.Value.Int64() != 5 || rec.Call.GasLimit != 90000 ||
		rec.Extracted["price"] != json.Number("7") || len(rec.NotPerformed) != 1 || rec.NotPerformed[0] != "2 grants" {
		t.Fatalf("record %+v %v", rec, err)
	}
	poll, now := sendUntilPoll(t, m, a, machineT0, joinstore.Begun, key, callA)
	if poll.Key != key {
		t.Fatalf("poll %s", poll.Key)
	}
	// Not final yet: poll again after the interval.
	sl := only[cmdSleep](t, m.Step(inPolled{Iter: 1}, now), "pending")
	now = sl.Until
	only[cmdPoll](t, m.Step(inTimer{}, now), "timer")
	rd = m.Step(inPolled{Iter: 1, OK: true, Outcome: okTx}, now)
	commit := only[cmdCommit](t, rd, "final")
	if eventTypes(rd) != "exec_outcome executed" {
		t.Fatalf("lines %s", eventTypes(rd))
	}
	p := nextPayloadOf(t, commit)
	ex, _ := p[OutputExecution].(map[string]any)
	if p["x"] != "y" || p["n"] != json.Number("1") || ex["txHash"] != okTx.TxHash.Hex() || ex["status"] != json.Number("1") ||
		ex["block"] != json.Number("12") || ex["gasUsed"] != json.Number("21000") {
		t.Fatalf("next payload %v", p)
	}
	if commit.Commit.Status != "done" || !*commit.Commit.Valid || len(commit.Commit.Children) != 1 || commit.Commit.Children[0].ResumeStep != "B" ||
		!commit.Commit.Children[0].NextWakeAt.Equal(now.Add(3*time.Second)) || !strings.Contains(string(commit.Commit.ExecOutcome), okTx.TxHash.Hex()) {
		t.Fatalf("commit %+v", commit.Commit)
	}
	if m.Executing() != 1 {
		t.Fatal("the execution ended before its commit")
	}
	m.Step(inCommitted{Res: joinstore.CommitResult{Live: 1}}, now)
	if m.Executing() != 0 || len(m.inflight) != 0 {
		t.Fatalf("after the commit: %d executing, %d in flight", m.Executing(), len(m.inflight))
	}
}

// Executions off: the step commits at once and says the execution was not
// performed.
func TestMachineExecutionsOff(t *testing.T) {
	res := validWithCall()
	res.NotPerformed = nil
	_, _, rd := execMachine(t, false, res)
	only[cmdCommit](t, rd, "executed")
	if len(rd.events) != 1 || !strings.Contains(rd.events[0].Detail, "not performed: execution to 0x00000000000000000000000000000000000000C1") {
		t.Fatalf("lines %+v", rd.events)
	}
}

// A revert flips the step to invalid: the onInvalid branch is rendered from
// the record (never by evaluating again); its own execution runs under
// "/i", once; its revert does not flip again.
func TestMachineExecutionRevertFlips(t *testing.T) {
	m, a, rd := execMachine(t, true, validWithCall())
	key := only[cmdBeginExec](t, rd, "executed").Key
	_, now := sendUntilPoll(t, m, a, machineT0, joinstore.Begun, key, callA)
	rd = m.Step(inPolled{Iter: 1, OK: true, Outcome: badTx}, now)
	flip := only[cmdFlip](t, rd, "reverted")
	if flip.Flip.Extracted["price"] != json.Number("7") || flip.Flip.RuleContract != common.HexToAddress("0x01") || eventTypes(rd) != "exec_outcome" {
		t.Fatalf("flip %+v, lines %s", flip, eventTypes(rd))
	}
	ci := callI
	rd = m.Step(inFlipped{Iter: 1, R: Result{Valid: true, Output: map[string]any{"why": "late"}, Execution: &ci}}, now)
	begin := only[cmdBeginExec](t, rd, "flipped")
	if begin.Key != key+FlipKeySuffix || !begin.Flip || eventTypes(rd) != "executing" {
		t.Fatalf("flip begin %+v, lines %s", begin, eventTypes(rd))
	}
	_, now = sendUntilPoll(t, m, a, now, joinstore.Flipped, key+FlipKeySuffix, callI)
	rd = m.Step(inPolled{Iter: 1, OK: true, Outcome: badTx}, now)
	commit := only[cmdCommit](t, rd, "the flip's execution reverted")
	p := nextPayloadOf(t, commit)
	ex, _ := p[OutputExecution].(map[string]any)
	rv, _ := p[OutputRevertedExecution].(map[string]any)
	if *commit.Commit.Valid || commit.Commit.Children[0].ResumeStep != "C" || p["why"] != "late" || p["x"] != nil ||
		ex["status"] != json.Number("0") || ex["revertReason"] != "too late" || rv["txHash"] != badTx.TxHash.Hex() {
		t.Fatalf("commit %+v payload %v", commit.Commit, p)
	}
}

// A flip whose onInvalid branch executes nothing finishes invalid with the
// reverted outcome, under execution and (as every flip) revertedExecution.
func TestMachineExecutionRevertWithoutOwnExecution(t *testing.T) {
	m, a, rd := execMachine(t, true, validWithCall())
	key := only[cmdBeginExec](t, rd, "executed").Key
	_, now := sendUntilPoll(t, m, a, machineT0, joinstore.Begun, key, callA)
	only[cmdFlip](t, m.Step(inPolled{Iter: 1, OK: true, Outcome: badTx}, now), "reverted")
	commit := only[cmdCommit](t, m.Step(inFlipped{Iter: 1, R: Result{Output: map[string]any{"why": "late"}}}, now), "flipped")
	p := nextPayloadOf(t, commit)
	ex, _ := p[OutputExecution].(map[string]any)
	rv, _ := p[OutputRevertedExecution].(map[string]any)
	if *commit.Commit.Valid || p["why"] != "late" || ex["txHash"] != badTx.TxHash.Hex() || rv["txHash"] != badTx.TxHash.Hex() ||
		commit.Commit.Children[0].ResumeStep != "C" {
		t.Fatalf("commit %+v payload %v", commit.Commit, p)
	}
}

// The revert of an invalid branch's execution does not flip.
func TestMachineInvalidBranchRevertDoesNotFlip(t *testing.T) {
	res := validWithCall()
	res.Valid = false
	m, a, rd := execMachine(t, true, res)
	key := only[cmdBeginExec](t, rd, "executed").Key
	_, now := sendUntilPoll(t, m, a, machineT0, joinstore.Begun, key, callA)
	commit := only[cmdCommit](t, m.Step(inPolled{Iter: 1, OK: true, Outcome: badTx}, now), "reverted")
	if *commit.Commit.Valid || commit.Commit.Children[0].ResumeStep != "C" {
		t.Fatalf("commit %+v", commit.Commit)
	}
}

// A refusal is a hard error: the step aborts with the limit named and
// spawns nothing.
func TestMachineExecutionRefused(t *testing.T) {
	m, a, rd := execMachine(t, true, validWithCall())
	only[cmdBeginExec](t, rd, "executed")
	only[cmdSend](t, m.Step(inExecBegun{Iter: a.Iter, Res: joinstore.Begun}, machineT0), "begun")
	rd = m.Step(inSent{Iter: 1, Err: &execution.Refusal{Limit: "executions.maxGasLimit", Reason: "gas limit 90000 is over the cap 50000"}}, machineT0)
	commit := only[cmdCommit](t, rd, "refused")
	if commit.Commit.Status != "aborted" || len(commit.Commit.Children) != 0 ||
		!strings.Contains(commit.Commit.AbortReason, "executions.maxGasLimit") || !strings.Contains(commit.Commit.AbortReason, "over the cap") {
		t.Fatalf("commit %+v", commit.Commit)
	}
}

// Transient send and poll failures retry after the backoff with the
// same key and call; the step is never evaluated again.
func TestMachineExecutionTransientRetries(t *testing.T) {
	m, _, rd := execMachine(t, true, validWithCall())
	key := only[cmdBeginExec](t, rd, "executed").Key
	now := machineT0
	only[cmdSend](t, m.Step(inExecBegun{Iter: 1, Res: joinstore.AlreadyBegun}, now), "begun")
	var sl cmdSleep
	for i, wait := range []time.Duration{time.Second, 2 * time.Second} {
		rd = m.Step(inSent{Iter: 1, Err: errors.New("connection refused")}, now)
		sl = only[cmdSleep](t, rd, "send failed")
		if !sl.Until.Equal(now.Add(wait)) || eventTypes(rd) != "retry" {
			t.Fatalf("send failure %d: retry at %v (+%s), lines %s", i, sl.Until, sl.Until.Sub(now), eventTypes(rd))
		}
		now = sl.Until
		s := only[cmdSend](t, m.Step(inTimer{}, now), "send retry")
		if s.Key != key || s.Call.To != callA.To {
			t.Fatalf("send retry %+v", s)
		}
	}
	m.Step(inSent{Iter: 1}, now)
	now = now.Add(time.Second)
	only[cmdPoll](t, m.Step(inTimer{}, now), "poll")
	sl = only[cmdSleep](t, m.Step(inPolled{Iter: 1, Err: transientErr{errors.New("node down")}}, now), "poll failed")
	now = sl.Until
	only[cmdPoll](t, m.Step(inTimer{}, now), "poll retry")
	only[cmdCommit](t, m.Step(inPolled{Iter: 1, OK: true, Outcome: okTx}, now), "final")
}

// A step killed before it sent: the begin answers killed; the step commits
// aborted and nothing is sent.
func TestMachineExecutionKilledBeforeSend(t *testing.T) {
	m, _, rd := execMachine(t, true, validWithCall())
	only[cmdBeginExec](t, rd, "executed")
	commit := only[cmdCommit](t, m.Step(inExecBegun{Iter: 1, Res: joinstore.BeginKilled}, machineT0), "killed")
	if commit.Commit.Status != "aborted" || len(commit.Commit.Children) != 0 || commit.Commit.ExecOutcome != nil {
		t.Fatalf("commit %+v", commit.Commit)
	}
}

// A lease lost at the begin: the result is void, nothing is sent.
func TestMachineExecutionLeaseLost(t *testing.T) {
	m, _, rd := execMachine(t, true, validWithCall())
	only[cmdBeginExec](t, rd, "executed")
	rd = m.Step(inExecBegun{Iter: 1, Err: joinstore.ErrLeaseLost}, machineT0)
	for _, c := range rd.cmds {
		if _, ok := c.(cmdSend); ok {
			t.Fatal("sent after the lease was lost")
		}
	}
	if m.Executing() != 0 || eventTypes(rd) != "ignored" {
		t.Fatalf("%d executing, lines %s", m.Executing(), eventTypes(rd))
	}
}

// A process taken over while it executes (its replica stopped) is sent
// again under its stored key with its stored call (Send is idempotent per
// key) and polled; its step is never executed again.
func TestMachineExecutionResumed(t *testing.T) {
	m := newMachine(machineConfig{RootLease: 9 * time.Second, Poll: time.Second, ClaimLease: time.Minute, Worker: "w2", Check: noCheck, Executions: true, ExecPoll: time.Second},
		machineRoot, nil, machineT0)
	m.Step(inStart{}, machineT0)
	if rd := m.Step(inOpened{Orch: execOrch(t), Opening: joinstore.Opening{Expired: []int64{1}}}, machineT0); names(rd.cmds) != "Recover" {
		t.Fatalf("opened with an expired lease: %s", names(rd.cmds))
	}
	key := ExecKey(machineRoot, machineRoot.Pid(1))
	_, raw, err := newExecRecord(key, validWithCall())
	if err != nil {
		t.Fatal(err)
	}
	c := claimOf(1, "A", 0)
	c.JoinGroupID, c.FirstChild, c.ResumePlain, c.Token = "0", 2, []byte(`{"n":1}`), 9
	c.Exec = &joinstore.ProcExecution{Key: key, Record: raw}
	rd := m.Step(inRecovered{Results: map[int64]joinstore.ReleaseResult{1: joinstore.Executing}, Resumed: []joinstore.Claim{c}}, machineT0)
	var send *cmdSend
	for _, cmd := range rd.cmds {
		switch cmd := cmd.(type) {
		case cmdSend:
			send = &cmd
		case cmdExecute:
			t.Fatal("a taken-over executing process was executed again")
		}
	}
	if send == nil || send.Key != key || send.Call.To != callA.To || string(send.Call.Data) != string(callA.Data) || send.Claim.Token != 9 {
		t.Fatalf("after the take-over: %s (send %+v)", names(rd.cmds), send)
	}
	if !strings.Contains(eventTypes(rd), "recovered") {
		t.Fatalf("lines %s", eventTypes(rd))
	}
}

// replicaExecMachine is a replica's machine that has executed A with res.
func replicaExecMachine(t *testing.T, res Result) (*machine, ready) {
	t.Helper()
	m := newMachine(machineConfig{RootLease: 9 * time.Second, Poll: time.Second, ClaimLease: time.Minute, Worker: "w", Check: noCheck, Executions: true, ExecPoll: time.Second},
		machineRoot, nil, machineT0)
	m.Step(inStart{}, machineT0)
	a := claimOf(1, "A", 0)
	a.JoinGroupID, a.FirstChild, a.ResumePlain = "0", 2, []byte(`{}`)
	m.Step(inOpened{Orch: execOrch(t), Claims: []joinstore.Claim{a}}, machineT0)
	return m, m.Step(inExecuted{R: result{claim: a, res: res, input: map[string]any{}, inputRaw: a.ResumePlain}}, machineT0)
}

// On a replica, a failed begin is retried after the backoff under the same
// key; a draining replica forgets its idle executions (their leases expire
// and another replica takes them over) and hands the session back.
func TestMachineReplicaExecutionRetryAndDrain(t *testing.T) {
	m, rd := replicaExecMachine(t, validWithCall())
	key := only[cmdBeginExec](t, rd, "executed").Key
	rd = m.Step(inExecBegun{Iter: 1, Err: errors.New("i/o timeout")}, machineT0)
	if eventTypes(rd) != "retry" {
		t.Fatalf("begin failed: lines %s, cmds %s", eventTypes(rd), names(rd.cmds))
	}
	now := machineT0.Add(time.Second)
	rd = m.Step(inTimer{}, now)
	var again *cmdBeginExec
	for _, c := range rd.cmds {
		if b, ok := c.(cmdBeginExec); ok {
			again = &b
		}
	}
	if again == nil || again.Key != key {
		t.Fatalf("after the backoff: %s", names(rd.cmds))
	}
	rd = m.Step(inExecBegun{Iter: 1, Res: joinstore.Begun}, now)
	if !has[cmdSend](rd) {
		t.Fatalf("begun: %s", names(rd.cmds))
	}
	m.Step(inSent{Iter: 1}, now)
	if has[cmdClaim](rd) {
		m.Step(inClaimed{}, now)
	}
	rd = m.Step(inCancel{}, now)
	if m.Executing() != 0 || len(m.inflight) != 0 || names(rd.cmds) != "Inspect" {
		t.Fatalf("draining: %d executing, %d in flight, %s", m.Executing(), len(m.inflight), names(rd.cmds))
	}
}

// An execution that can no longer be included (lost) aborts the step.
func TestMachineExecutionLost(t *testing.T) {
	m, a, rd := execMachine(t, true, validWithCall())
	key := only[cmdBeginExec](t, rd, "executed").Key
	_, now := sendUntilPoll(t, m, a, machineT0, joinstore.Begun, key, callA)
	commit := only[cmdCommit](t, m.Step(inPolled{Iter: 1, OK: true, Outcome: execution.Outcome{Lost: true, Error: "nonce 4 used by another transaction"}}, now), "lost")
	if commit.Commit.Status != "aborted" || len(commit.Commit.Children) != 0 || !strings.Contains(commit.Commit.AbortReason, "nonce 4 used") || commit.Commit.ExecOutcome == nil {
		t.Fatalf("commit %+v", commit.Commit)
	}
}

// A failed commit of a finished execution polls again and commits anew;
// the step is not run again.
func TestMachineExecutionCommitRetried(t *testing.T) {
	m, a, rd := execMachine(t, true, validWithCall())
	key := only[cmdBeginExec](t, rd, "executed").Key
	_, now := sendUntilPoll(t, m, a, machineT0, joinstore.Begun, key, callA)
	only[cmdCommit](t, m.Step(inPolled{Iter: 1, OK: true, Outcome: okTx}, now), "final")
	// The serial driver stops at a store error; the replica's retries.
	rm, rrd := replicaExecMachine(t, validWithCall())
	only[cmdBeginExec](t, rrd, "executed")
	only[cmdSend](t, rm.Step(inExecBegun{Iter: 1, Res: joinstore.Begun}, machineT0), "begun")
	rm.Step(inSent{Iter: 1}, machineT0)
	now = machineT0.Add(time.Second)
	var polled bool
	for _, c := range rm.Step(inTimer{}, now).cmds {
		_, ok := c.(cmdPoll)
		polled = polled || ok
	}
	if !polled {
		t.Fatal("no poll after the interval")
	}
	rd = rm.Step(inPolled{Iter: 1, OK: true, Outcome: okTx}, now)
	if !has[cmdCommit](rd) {
		// A claim round the timer asked for is outstanding: the commit
		// follows its answer.
		rd = rm.Step(inClaimed{}, now)
	}
	if !has[cmdCommit](rd) {
		t.Fatalf("final: %s", names(rd.cmds))
	}
	rd = rm.Step(inCommitted{Err: errors.New("connection reset")}, now)
	for _, c := range rd.cmds {
		if _, ok := c.(cmdReleaseLease); ok {
			t.Fatal("an executing process's lease was given back after a failed commit")
		}
	}
	if rm.Executing() != 1 {
		t.Fatal("the execution was forgotten after a failed commit")
	}
	now = now.Add(time.Second)
	rd = rm.Step(inTimer{}, now)
	polled = false
	for _, c := range rd.cmds {
		_, ok := c.(cmdPoll)
		polled = polled || ok
	}
	if !polled {
		t.Fatalf("after the failed commit: %s, want a poll", names(rd.cmds))
	}
}

func has[T command](rd ready) bool {
	for _, c := range rd.cmds {
		if _, ok := c.(T); ok {
			return true
		}
	}
	return false
}

// A decision too large to record aborts the step: nothing is recorded or
// sent, nothing spawns.
func TestMachineExecutionRecordOverCap(t *testing.T) {
	m := newMachine(machineConfig{Serial: true, Worker: "w", Check: noCheck, Executions: true, ExecPoll: time.Second, RecordCap: 512}, machineRoot, execOrch(t), machineT0)
	m.Step(inStart{}, machineT0)
	a := claimOf(1, "A", 0)
	a.JoinGroupID, a.FirstChild = "0", 2
	m.Step(inClaimed{Claims: []joinstore.Claim{a}, Asked: 1}, machineT0)
	res := validWithCall()
	res.Extracted = map[string]any{"big": strings.Repeat("x", 600)}
	commit := only[cmdCommit](t, m.Step(inExecuted{R: result{claim: a, res: res, input: map[string]any{}, inputRaw: []byte(`{}`)}}, machineT0), "executed")
	if commit.Commit.Status != "aborted" || len(commit.Commit.Children) != 0 || !strings.Contains(commit.Commit.AbortReason, "at most 512") || m.Executing() != 0 {
		t.Fatalf("commit %+v", commit.Commit)
	}
}

// A failed commit of a refused step sends again (and is refused again),
// rather than poll a key that was never recorded.
func TestMachineRefusedCommitRetried(t *testing.T) {
	m, rd := replicaExecMachine(t, validWithCall())
	only[cmdBeginExec](t, rd, "executed")
	m.Step(inExecBegun{Iter: 1, Res: joinstore.Begun}, machineT0)
	rd = m.Step(inSent{Iter: 1, Err: &execution.Refusal{Limit: "authority", Reason: "not an executor"}}, machineT0)
	if !has[cmdCommit](rd) {
		t.Fatalf("refused: %s", names(rd.cmds))
	}
	m.Step(inCommitted{Err: errors.New("connection reset")}, machineT0)
	now := machineT0.Add(time.Second)
	rd = m.Step(inTimer{}, now)
	if !has[cmdSend](rd) || has[cmdPoll](rd) {
		t.Fatalf("after the failed commit: %s, want a send", names(rd.cmds))
	}
}
