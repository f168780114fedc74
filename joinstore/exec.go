package joinstore

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// BeginResult says what BeginExec did.
type BeginResult string

// BeginExec results.
const (
	// Begun: the process now executes under the key.
	Begun BeginResult = "begun"
	// Flipped: the process's execution reverted; its onInvalid branch's
	// own execution replaced it (once).
	Flipped BeginResult = "flipped"
	// AlreadyBegun: the process already executes under the key (a retry).
	AlreadyBegun BeginResult = "already"
	// BeginKilled: the process or its session was killed before anything
	// was sent; nothing changed. Commit the step (it is recorded aborted)
	// and send nothing.
	BeginKilled BeginResult = "killed"
)

// MaxRecord is the cap of an execution record (BeginExec): twice the
// payload cap, room for a step's output beside its inputs and extracted
// values.
func (s *Store) MaxRecord() int { return 2 * s.cfg.MaxPayloadBytes }

// BeginExec puts the claimed process c in status executing under the
// execution's idempotency key, with record (the step's decision, opaque
// JSON) kept on it, before the execution is sent (begin_exec.lua). flip
// replaces the key and record of a process whose execution reverted by its
// onInvalid branch's own execution, once. ErrLeaseLost when c's lease is
// not current; ErrBadExec when the process executes under another key and
// this is not its flip. The record is bounded by the store's payload cap.
// sealed marks the process sealed (Process.Sealed: its step's rule asks for
// sealed logs) with the record; a flip never unmarks it.
func (s *Store) BeginExec(ctx context.Context, c Claim, now time.Time, key string, record json.RawMessage, flip, sealed bool) (BeginResult, error) {
	if key == "" {
		return "", fmt.Errorf("begin execution of %s: no idempotency key", c.Pid)
	}
	if max := s.MaxRecord(); max > 0 && len(record) > max {
		return "", fmt.Errorf("begin execution of %s: the execution record is %d bytes, at most %d are allowed (twice XGR_MAX_PAYLOAD): %w", c.Pid, len(record), max, ErrPayloadTooLarge)
	}
	if !json.Valid(record) {
		return "", fmt.Errorf("begin execution of %s: the execution record is not JSON", c.Pid)
	}
	f, sl := "", ""
	if flip {
		f = "1"
	}
	if sealed {
		sl = "1"
	}
	k := keysOf(c.Root)
	res, err := s.eval(ctx, scriptBeginExec, []string{k.proc(c.Iter), k.meta()}, c.Token, s.clock(now), key, string(record), f, sl).Text()
	if err != nil {
		return "", fmt.Errorf("begin execution of %s: %w", c.Pid, scriptError(err))
	}
	return BeginResult(res), nil
}

// ResumeExec takes over an executing process whose lease (c.Token) expired
// (Recover reported it Executing): it is held by worker under a fresh
// lease, and the returned claim carries its execution (Claim.Exec) and the
// reservation its first claim made. ok is false when the process is not
// executing under c's token or its lease has not expired.
func (s *Store) ResumeExec(ctx context.Context, c Claim, now time.Time, lease time.Duration, worker string, steps StepTable) (Claim, bool, error) {
	k := keysOf(c.Root)
	vals, err := s.eval(ctx, scriptResumeExec, []string{k.proc(c.Iter), k.run(), k.meta()},
		c.Iter, c.Token, s.clock(now), lease.Milliseconds(), worker).StringSlice()
	if err != nil {
		return Claim{}, false, fmt.Errorf("resume execution of %s: %w", c.Root.Pid(c.Iter), scriptError(err))
	}
	if len(vals) < 10 {
		return Claim{}, false, nil
	}
	token, err1 := strconv.ParseInt(vals[0], 10, 64)
	until, err2 := strconv.ParseInt(vals[1], 10, 64)
	first, err3 := strconv.ParseInt(vals[2], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return Claim{}, false, fmt.Errorf("resume execution of %s: bad reply %q: %w", c.Root.Pid(c.Iter), vals[:3], ErrBadRecord)
	}
	out := Claim{Root: c.Root, Iter: c.Iter, Pid: c.Root.Pid(c.Iter), Token: token, FirstChild: first,
		Reserve: steps[vals[3]].Reserve, ResumeStep: vals[3], ResumePlain: json.RawMessage(vals[4]), ParentPid: vals[5],
		JoinGroupID: vals[6], ThreadHeadPid: vals[7], GroupTarget: c.GroupTarget, LeaseUntil: time.UnixMilli(until),
		Exec: &ProcExecution{Key: vals[8], Record: json.RawMessage(vals[9])}}
	return out, true, nil
}
