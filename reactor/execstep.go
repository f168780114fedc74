package reactor

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/joinstore"
)

// The execution lifecycle of a step (docs/runtime.md): a step whose
// selected branch has an execution does not commit its branch when it is
// evaluated. The session machine records the step's decision on the
// process (cmdBeginExec: status executing), sends the call under the
// process's idempotency key (cmdSend), polls its outcome (cmdPoll) until it
// is final, then commits the branch with the outcome in the step's output;
// a revert flips the step to its onInvalid branch (cmdFlip), whose own
// execution runs the same way, once. All of it is decided here, purely.

// Output keys the engine writes into the output of a step that executed.
// They overwrite a rule's output keys of the same names.
const (
	// OutputExecution is the outcome of the step's execution (the
	// onInvalid branch's own after a flip, else the reverted one): an
	// object with txHash, block, gasUsed, status (1 success, 0 reverted)
	// and revertReason when the node gave one.
	OutputExecution = "execution"
	// OutputRevertedExecution is, after a revert flip, the outcome of the
	// onValid execution that reverted (the same object).
	OutputRevertedExecution = "revertedExecution"
)

// FlipKeySuffix ends the idempotency key of the onInvalid branch's own
// execution after a revert flip.
const FlipKeySuffix = "/i"

// ExecKey is the idempotency key of a process's execution:
// "<owner>/<session>/<pid>". A process runs one step in its life (a
// transient retry evaluates again before anything is recorded; once the
// process executes it is never evaluated again), so the key names one
// execution, stable across crashes and retries; the onInvalid branch's
// execution after a revert adds FlipKeySuffix.
func ExecKey(root joinstore.Root, pid string) string {
	return fmt.Sprintf("%s/%d/%s", root.Owner, root.RootPid, pid)
}

// execRecord is the step's decision as it is kept on the executing process
// (joinstore's execRecord field): everything that finishes the step
// without evaluating its rule again.
type execRecord struct {
	Key          string             `json:"key"`
	Call         execution.Call     `json:"call"`
	Valid        bool               `json:"valid"`
	Output       map[string]any     `json:"output,omitempty"`
	WaitMs       int64              `json:"waitMs,omitempty"`
	Reasons      []string           `json:"reasons,omitempty"`
	NotPerformed []string           `json:"notPerformed,omitempty"`
	WakeUps      []WakeUp           `json:"wakeUps,omitempty"`
	Inputs       map[string]any     `json:"inputs,omitempty"`
	Extracted    map[string]any     `json:"extracted,omitempty"`
	RuleContract common.Address     `json:"ruleContract"`
	Flipped      bool               `json:"flipped,omitempty"`
	Reverted     *execution.Outcome `json:"reverted,omitempty"`
	// Evidence is the evaluation's part of the step's log bundle.
	Evidence *EvidenceInput `json:"evidence,omitempty"`
	// Sealed: the step seals its evidence (Result.sealed); its events and
	// logs quote no payload value.
	Sealed bool `json:"sealed,omitempty"`
	// ValidationGas is the evaluation's (Result.ValidationGas).
	ValidationGas uint64 `json:"validationGas,omitempty"`
}

// execPhase is what an executing process waits for next.
type execPhase int

const (
	// execBegin: the store transition (begin_exec) is next.
	execBegin execPhase = iota
	// execSend: Send is next (again after a transient failure, or after
	// a take-over: Send is idempotent per key).
	execSend
	// execWait: polling the outcome.
	execWait
	// execFlip: rendering the onInvalid branch after a revert.
	execFlip
	// execCommit: the step's commit is queued or outstanding.
	execCommit
)

// execState is one executing process of the machine.
type execState struct {
	claim joinstore.Claim
	rec   execRecord
	raw   json.RawMessage
	phase execPhase
	// at is when the phase's next command is due; busy: it is outstanding.
	at   time.Time
	busy bool
	// tries counts transient failures in a row (the backoff).
	tries int
	// flip: the pending begin is the revert flip.
	flip bool
	// again is the phase that decides the step anew when its commit
	// failed: a poll (the outcome is final and answers the same), or a
	// send (a refusal refuses again).
	again execPhase
}

// execDone marks a result that finishes an execution (or a step that must
// not execute): it commits as it is, with Outcome kept on the process.
type execDone struct {
	outcome json.RawMessage
	// receipt is the execution's final outcome, for the log bundle.
	receipt *execution.Outcome
	// gasUsed is the gas the step's transactions used.
	gasUsed uint64
}

// backoff is the transient retry schedule: 1 s doubling to a minute.
func backoff(n int) time.Duration { return min(time.Second<<min(n, 6), time.Minute) }

// newExecRecord builds the record of a result whose branch executes, and
// its encoding; the record is decoded back so that a step finishes from
// the same values whether or not its replica stopped meanwhile.
func newExecRecord(key string, res Result) (execRecord, json.RawMessage, error) {
	rec := execRecord{Key: key, Call: *res.Execution, Valid: res.Valid, Output: res.Output, WaitMs: res.Wait.Milliseconds(),
		Reasons: res.Reasons, WakeUps: res.WakeUps, Inputs: res.Inputs, Extracted: res.Extracted, RuleContract: res.RuleContract, Evidence: res.Evidence, Sealed: res.sealed(),
		ValidationGas: res.ValidationGas}
	for _, s := range res.NotPerformed {
		if !strings.HasPrefix(s, "execution") {
			rec.NotPerformed = append(rec.NotPerformed, s)
		}
	}
	return encodeRecord(rec)
}

func encodeRecord(rec execRecord) (execRecord, json.RawMessage, error) {
	raw, err := json.Marshal(rec)
	if err != nil {
		return execRecord{}, nil, fmt.Errorf("the execution record does not encode: %w", err)
	}
	back, err := decodeRecord(raw)
	return back, raw, err
}

func decodeRecord(raw []byte) (execRecord, error) {
	var rec execRecord
	if err := unmarshalExact(raw, &rec); err != nil {
		return execRecord{}, fmt.Errorf("the execution record does not decode: %w", err)
	}
	if rec.Key == "" {
		return execRecord{}, errors.New("the execution record has no key")
	}
	return rec, nil
}

// outcomeValue is an outcome as the step's output carries it.
func outcomeValue(o execution.Outcome) map[string]any {
	v := map[string]any{"txHash": o.TxHash.Hex(), "block": o.Block, "gasUsed": o.GasUsed, "status": o.Status}
	if o.RevertReason != "" {
		v["revertReason"] = o.RevertReason
	}
	return v
}

func describeOutcome(o execution.Outcome) string {
	s := fmt.Sprintf("tx %s in block %d, gas %d: ", o.TxHash.Hex(), o.Block, o.GasUsed)
	switch {
	case o.Lost:
		return "lost: " + o.Error
	case o.Status == 1:
		return s + "success"
	case o.RevertReason != "":
		return s + "reverted: " + o.RevertReason
	}
	return s + "reverted"
}

// beginExec starts the execution lifecycle of a result whose branch
// executes: its record goes on the process (cmdBeginExec) before anything
// is sent. A record the store would refuse aborts the step.
func (m *machine) beginExec(now time.Time, r result) bool {
	c := r.claim
	key := ExecKey(c.Root, c.Pid)
	rec, raw, err := newExecRecord(key, r.res)
	if err == nil {
		err = m.checkRecord(raw)
	}
	if err != nil {
		r.err = fmt.Errorf("step %s: %w", c.ResumeStep, err)
		r.done = &execDone{}
		m.results = append([]result{r}, m.results...)
		return false
	}
	m.inflight[c.Iter] = c
	st := &execState{claim: c, rec: rec, raw: raw, phase: execBegin}
	m.execs[c.Iter] = st
	m.emit(now, EvExecuting, c.Pid, c.ResumeStep, executingDetail(rec))
	m.issueBegin(st)
	return true
}

// executingDetail is the timeline's line of an execution that begins: a
// sealed step's without its target (which may come from its payload).
func executingDetail(rec execRecord) string {
	if rec.Sealed {
		return fmt.Sprintf("%s (key %s)", branchName(rec.Valid), rec.Key)
	}
	return fmt.Sprintf("%s to %s (key %s)", branchName(rec.Valid), rec.Call.To.Hex(), rec.Key)
}

func branchName(valid bool) string {
	if valid {
		return "onValid"
	}
	return "onInvalid"
}

func (m *machine) issueBegin(st *execState) {
	st.busy = true
	m.storeBusy = true
	m.do(cmdBeginExec{Claim: st.claim, Key: st.rec.Key, Record: st.raw, Flip: st.flip, Sealed: st.rec.Sealed})
}

// execBegun acts on begin_exec.
func (m *machine) execBegun(now time.Time, in inExecBegun) {
	st := m.execs[in.Iter]
	if st == nil {
		return
	}
	st.busy = false
	c := st.claim
	switch {
	case errors.Is(in.Err, joinstore.ErrLeaseLost):
		m.emit(now, EvIgnored, c.Pid, c.ResumeStep, "lease lost; execution not sent")
		m.dropExec(c.Iter)
	case in.Err != nil:
		st.tries++
		st.at = now.Add(backoff(st.tries - 1))
		m.emit(now, EvRetry, c.Pid, c.ResumeStep, fmt.Sprintf("in %s: %v", backoff(st.tries-1), in.Err))
	case in.Res == joinstore.BeginKilled:
		// Killed before anything was sent: the commit records the step
		// aborted and creates nothing.
		m.finishExec(now, st, nil, errors.New("killed before its execution was sent"), false)
	default:
		st.phase, st.at, st.tries, st.flip = execSend, now, 0, false
	}
}

// dropExec forgets an execution this machine no longer holds.
func (m *machine) dropExec(iter int64) {
	delete(m.execs, iter)
	delete(m.inflight, iter)
}

// execSent acts on Send.
func (m *machine) execSent(now time.Time, in inSent) {
	st := m.execs[in.Iter]
	if st == nil {
		return
	}
	st.busy = false
	c := st.claim
	var refusal *execution.Refusal
	switch {
	case errors.As(in.Err, &refusal):
		m.finishExec(now, st, nil, fmt.Errorf("execution refused (%s): %s", refusal.Limit, refusal.Reason), true)
		st.again = execSend
	case in.Err != nil:
		st.tries++
		st.at = now.Add(backoff(st.tries - 1))
		m.emit(now, EvRetry, c.Pid, c.ResumeStep, fmt.Sprintf("send in %s: %s", backoff(st.tries-1), publicErr(in.Err, st.rec.Sealed)))
	default:
		st.phase, st.at, st.tries = execWait, now.Add(m.cfg.ExecPoll), 0
	}
}

// execPolled acts on an outcome poll.
func (m *machine) execPolled(now time.Time, in inPolled) {
	st := m.execs[in.Iter]
	if st == nil {
		return
	}
	st.busy = false
	c := st.claim
	switch {
	case in.Err != nil:
		st.tries++
		st.at = now.Add(backoff(st.tries - 1))
		m.emit(now, EvRetry, c.Pid, c.ResumeStep, fmt.Sprintf("outcome in %s: %s", backoff(st.tries-1), publicErr(in.Err, st.rec.Sealed)))
		return
	case !in.OK:
		st.at, st.tries = now.Add(m.cfg.ExecPoll), 0
		return
	}
	o := in.Outcome
	detail := publicOutcome(o, st.rec.Sealed)
	switch {
	case o.Lost:
		m.emit(now, EvExecOutcome, c.Pid, c.ResumeStep, detail)
		m.finishExec(now, st, &o, fmt.Errorf("execution %s lost: %s", st.rec.Key, o.Error), true)
	case o.Status == 1 || !st.rec.Valid || st.rec.Flipped:
		// Success, or the revert of an invalid branch's execution (no
		// flip: the step is invalid already, and flips at most once).
		m.emit(now, EvExecOutcome, c.Pid, c.ResumeStep, detail)
		m.finishExec(now, st, &o, nil, true)
	default:
		m.emit(now, EvExecOutcome, c.Pid, c.ResumeStep, detail+"; the step flips to invalid")
		st.rec.Reverted = &o
		st.phase, st.at, st.tries = execFlip, now, 0
	}
}

// execFlipped acts on the onInvalid branch rendered after a revert: its
// own execution begins (once), or the step finishes invalid.
func (m *machine) execFlipped(now time.Time, in inFlipped) {
	st := m.execs[in.Iter]
	if st == nil {
		return
	}
	st.busy = false
	c := st.claim
	switch {
	case in.Err != nil && isTransient(in.Err):
		st.tries++
		st.at = now.Add(backoff(st.tries - 1))
		m.emit(now, EvRetry, c.Pid, c.ResumeStep, fmt.Sprintf("flip in %s: %s", backoff(st.tries-1), publicErr(in.Err, st.rec.Sealed)))
		return
	case in.Err != nil:
		m.finishExec(now, st, st.rec.Reverted, fmt.Errorf("step %s: rendering onInvalid after the revert: %w", c.ResumeStep, in.Err), true)
		return
	}
	res := in.R
	res.Valid = false
	// The onInvalid branch's evidence settings; a sealed step stays
	// sealed (flipEvidence).
	res.Evidence = flipEvidence(st.rec, res.Evidence)
	res.Sealed = res.Sealed || st.rec.Sealed || res.sealed()
	reverted := st.rec.Reverted
	if res.Execution == nil {
		// No execution of its own: the step finishes invalid with the
		// reverted outcome and the onInvalid branch's evidence.
		rec := execRecord{Key: st.rec.Key, Call: st.rec.Call, Valid: false, Output: res.Output, WaitMs: res.Wait.Milliseconds(),
			Reasons: res.Reasons, NotPerformed: res.NotPerformed, WakeUps: res.WakeUps, RuleContract: st.rec.RuleContract, Flipped: true, Reverted: reverted,
			Evidence: res.Evidence, Sealed: res.Sealed, ValidationGas: st.rec.ValidationGas}
		rec, _, err := encodeRecord(rec)
		if err != nil {
			m.finishExec(now, st, reverted, err, true)
			return
		}
		st.rec = rec
		m.finishExec(now, st, reverted, nil, true)
		return
	}
	rec, raw, err := newExecRecord(st.rec.Key+FlipKeySuffix, res)
	if err == nil {
		rec.Flipped, rec.Reverted = true, reverted
		if rec.ValidationGas == 0 {
			rec.ValidationGas = st.rec.ValidationGas
		}
		rec, raw, err = encodeRecord(rec)
	}
	if err == nil {
		err = m.checkRecord(raw)
	}
	if err != nil {
		m.finishExec(now, st, reverted, fmt.Errorf("step %s: %w", c.ResumeStep, err), true)
		return
	}
	st.rec, st.raw, st.phase, st.flip, st.at, st.tries = rec, raw, execBegin, true, now, 0
	m.emit(now, EvExecuting, c.Pid, c.ResumeStep, executingDetail(rec))
}

// finishExec queues the step's commit from its record: the branch with
// the outcome in its output, or (err) the step aborted. executing says the
// process is in status executing (its commit keeps the outcome).
func (m *machine) finishExec(now time.Time, st *execState, o *execution.Outcome, err error, executing bool) {
	c := st.claim
	st.phase, st.busy, st.again = execCommit, false, execWait
	r := result{claim: c, err: err, inputRaw: c.ResumePlain, done: &execDone{receipt: o}}
	input, derr := UnmarshalPayload(c.ResumePlain)
	if derr != nil && r.err == nil {
		r.err = fmt.Errorf("%s: resumePlain: %w", c.Pid, derr)
	}
	r.input = input
	rec := st.rec
	// An aborted step's bundle follows its evidence and sealing too.
	r.res.Evidence, r.res.Sealed = rec.Evidence, rec.Sealed
	// The step's gas: its validation gas and what its transactions used
	// (a reverted one's too, when the step flipped).
	r.res.ValidationGas = rec.ValidationGas
	if o != nil {
		r.done.gasUsed = o.GasUsed
	}
	if rec.Reverted != nil && (o == nil || rec.Reverted.TxHash != o.TxHash) {
		r.done.gasUsed += rec.Reverted.GasUsed
	}
	if o != nil || rec.Reverted != nil {
		// Kept on the process (execOutcome): a sealed step's without its
		// revert reason or loss error (they may quote the call's
		// arguments; its sealed bundle holds them).
		kept := map[string]any{"key": rec.Key}
		if o != nil {
			kept["outcome"] = keptOutcome(*o, rec.Sealed)
		}
		if rec.Reverted != nil {
			kept["reverted"] = keptOutcome(*rec.Reverted, rec.Sealed)
		}
		r.done.outcome, _ = json.Marshal(kept)
	}
	if executing && r.done.outcome == nil {
		r.done.outcome, _ = json.Marshal(map[string]any{"key": rec.Key})
	}
	if r.err == nil {
		out := make(map[string]any, len(rec.Output)+2)
		for k, v := range rec.Output {
			out[k] = v
		}
		if o != nil {
			out[OutputExecution] = outcomeValue(*o)
		}
		if rec.Reverted != nil {
			out[OutputRevertedExecution] = outcomeValue(*rec.Reverted)
		}
		r.res = Result{Valid: rec.Valid, Output: out, Wait: time.Duration(rec.WaitMs) * time.Millisecond,
			Reasons: rec.Reasons, NotPerformed: rec.NotPerformed, WakeUps: rec.WakeUps, Evidence: rec.Evidence, Sealed: rec.Sealed,
			ValidationGas: rec.ValidationGas}
	}
	m.results = append(m.results, r)
}

// execResumed takes over processes a recovery found executing: their
// execution is sent again (idempotent per key: the same key and call) and
// its outcome polled; their rule is never evaluated again.
func (m *machine) execResumed(now time.Time, claims []joinstore.Claim) {
	for _, c := range claims {
		m.inflight[c.Iter] = c
		var rec execRecord
		var err error
		if c.Exec == nil {
			err = errors.New("no execution record")
		} else {
			rec, err = decodeRecord(c.Exec.Record)
		}
		st := &execState{claim: c, rec: rec, phase: execSend, at: now}
		if c.Exec != nil {
			st.raw = c.Exec.Record
		}
		m.execs[c.Iter] = st
		if err != nil {
			m.finishExec(now, st, nil, fmt.Errorf("%s: taken over while executing: %w", c.Pid, err), false)
			continue
		}
		m.emit(now, EvRecovered, c.Pid, c.ResumeStep, "its replica stopped while it executed; polling "+rec.Key)
	}
}

// execCommitted acts on the commit of a result that finished an
// execution: a failed commit decides again after the backoff (a poll: the
// outcome is final; a send, after a refusal) and commits anew; any other
// outcome ends the execution here.
func (m *machine) execCommitted(now time.Time, pc *pendingCommit, in inCommitted) bool {
	st := m.execs[pc.r.claim.Iter]
	if st == nil {
		return false
	}
	if in.Err != nil && !errors.Is(in.Err, joinstore.ErrLeaseLost) && pc.r.done.outcome != nil {
		m.inflight[st.claim.Iter] = st.claim
		st.tries++
		st.phase, st.at = st.again, now.Add(backoff(st.tries-1))
		return true
	}
	delete(m.execs, pc.r.claim.Iter)
	return false
}

// driveExecs issues the executions' due commands that are not store
// transitions (Send, polls, flips); a draining machine forgets the idle
// ones instead (their leases expire and another replica takes them over).
func (m *machine) driveExecs(now time.Time) {
	if len(m.execs) == 0 {
		return
	}
	for _, it := range m.execOrder() {
		st := m.execs[it]
		if st.busy || st.phase == execCommit {
			continue
		}
		if m.mode == modeDraining {
			m.dropExec(it)
			continue
		}
		if st.phase == execBegin {
			continue // a store transition: beginDue
		}
		if st.at.After(now) {
			continue
		}
		st.busy = true
		switch st.phase {
		case execSend:
			m.do(cmdSend{Claim: st.claim, Key: st.rec.Key, Call: st.rec.Call, RuleContract: st.rec.RuleContract, Sealed: st.rec.Sealed})
		case execWait:
			m.do(cmdPoll{Claim: st.claim, Key: st.rec.Key, To: st.rec.Call.To, Sealed: st.rec.Sealed})
		case execFlip:
			reason := "the execution reverted"
			if r := st.rec.Reverted; r != nil {
				reason = describeOutcome(*r)
			}
			m.do(cmdFlip{Claim: st.claim, Flip: Flip{Inputs: st.rec.Inputs, Extracted: st.rec.Extracted, RuleContract: st.rec.RuleContract, Reason: reason}})
		}
	}
}

// beginDue returns an execution whose begin transition is due (nil: none).
func (m *machine) beginDue(now time.Time) *execState {
	for _, it := range m.execOrder() {
		st := m.execs[it]
		if st.phase == execBegin && !st.busy && !st.at.After(now) {
			return st
		}
	}
	return nil
}

// execWake is when the earliest idle execution's next command is due.
func (m *machine) execWake() (time.Time, bool) {
	var at time.Time
	ok := false
	for _, st := range m.execs {
		if st.busy || st.phase == execCommit {
			continue
		}
		if !ok || st.at.Before(at) {
			at, ok = st.at, true
		}
	}
	return at, ok
}

func (m *machine) execOrder() []int64 {
	its := make([]int64, 0, len(m.execs))
	for it := range m.execs {
		its = append(its, it)
	}
	slices.Sort(its)
	return its
}

// Executing is how many executions this machine holds.
func (m *machine) Executing() int { return len(m.execs) }

// execBusy reports whether a command of an execution is outstanding.
func (m *machine) execBusy() bool {
	for _, st := range m.execs {
		if st.busy {
			return true
		}
	}
	return false
}

// checkRecord refuses an execution record over the cap: the step aborts
// and nothing is sent.
func (m *machine) checkRecord(raw []byte) error {
	if c := m.cfg.RecordCap; c > 0 && len(raw) > c {
		return fmt.Errorf("the execution record (the step's output, inputs and extracted values) is %d bytes, at most %d are allowed (twice XGR_MAX_PAYLOAD)", len(raw), c)
	}
	return nil
}
