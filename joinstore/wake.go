package joinstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// WaitingProc is a process as a wake reads it.
type WaitingProc struct {
	Iter int64
	Pid  string
	// Step is the step the process waits to run (resumeStep).
	Step   string
	Status ProcStatus
	// UpdatedAt is the compare-and-set version of the read.
	UpdatedAt time.Time
	Plain     json.RawMessage
	Paused    bool
	// JoinOpen: a join target whose join has not closed (never woken).
	JoinOpen bool
	Killed   bool
}

// Waking is what a wake writes to one process.
type Waking struct {
	Iter int64
	// UpdatedAt is the version the decision read.
	UpdatedAt time.Time
	// Plain is the merged payload; nil keeps the stored one.
	Plain json.RawMessage
}

// WakeDecider picks, from the processes a wake read, the ones to wake and
// their payloads. It is pure: the semantics (who may wake, how payloads
// merge) live with the caller.
type WakeDecider func(procs []WaitingProc) ([]Waking, error)

// WakeResult reports a wake.
type WakeResult struct {
	// Read is what the deciding read found (the candidates).
	Read []WaitingProc
	// Woken are the iters made due now.
	Woken []int64
	// Duplicate: the wake id was applied before; nothing changed now.
	Duplicate bool
	// Killed: the session was killed; nothing changed.
	Killed bool
}

// ErrNoSession: the wake named a session that does not exist (or whose
// records expired).
var ErrNoSession = errors.New("no such session")

// Wake wakes waiting processes of root: the given iters, or, when none are
// given, the processes whose resumeStep is step. decide sees every
// candidate and picks; the writes happen in one script that checks each
// picked process is still exactly as read (else it reads and decides again)
// and makes it due now. A non-empty id makes the wake happen at most once
// (engine wake-ups: "<owner>:<pid>#<n>" of the committing step). by names the waker
// in the session's history.
func (s *Store) Wake(ctx context.Context, root Root, id, step string, iters []int64, now time.Time, by string, decide WakeDecider) (WakeResult, error) {
	k := keysOf(root)
	for attempt := 0; attempt < 10; attempt++ {
		read, err := s.WaitingProcs(ctx, root, step, iters)
		if err != nil {
			return WakeResult{}, err
		}
		res := WakeResult{Read: read}
		picks, err := decide(read)
		if err != nil {
			return res, err
		}
		if len(picks) == 0 {
			// Nothing to write; still say whether the id was applied before.
			if id != "" {
				res.Duplicate, err = s.rdb.HExists(ctx, k.woken(), id).Result()
			}
			return res, err
		}
		keys := []string{k.meta(), k.due(), k.woken(), k.steps()}
		args := []any{id, s.clock(now), int64(s.cfg.SessionTTL / time.Second), s.cfg.StepsCap, by}
		for _, w := range picks {
			keys = append(keys, k.proc(w.Iter))
			args = append(args, w.Iter, version(w.UpdatedAt), string(w.Plain))
		}
		out, err := s.eval(ctx, scriptWakeApply, keys, args...).StringSlice()
		if err != nil {
			return res, fmt.Errorf("wake in %s: %w", root, err)
		}
		switch out[0] {
		case "changed":
			continue
		case "duplicate":
			res.Duplicate = true
			return res, nil
		case "killed":
			res.Killed = true
			return res, nil
		}
		for _, it := range out[1:] {
			n, _ := strconv.ParseInt(it, 10, 64)
			res.Woken = append(res.Woken, n)
		}
		if len(res.Woken) > 0 {
			return res, s.MarkRoot(ctx, root, now)
		}
		return res, nil
	}
	return WakeResult{}, fmt.Errorf("wake in %s: the processes kept changing", root)
}

// WaitingProcs reads what a wake would decide on: the named iters, else
// every process of the session whose resumeStep is step (every process when
// step is "" too). ErrNoSession when the session does not exist.
func (s *Store) WaitingProcs(ctx context.Context, root Root, step string, iters []int64) ([]WaitingProc, error) {
	var procs []Process
	if len(iters) == 0 {
		all, err := s.Processes(ctx, root)
		if errors.Is(err, ErrNotFound) {
			return nil, fmt.Errorf("%s: %w", root, ErrNoSession)
		}
		if err != nil {
			return nil, err
		}
		for _, p := range all {
			if step == "" || p.ResumeStep == step {
				procs = append(procs, p)
			}
		}
	} else {
		for _, it := range iters {
			p, err := s.Process(ctx, root, it)
			if err != nil {
				return nil, err
			}
			procs = append(procs, p)
		}
	}
	out := make([]WaitingProc, 0, len(procs))
	for _, p := range procs {
		if _, _, err := ParsePid(p.Pid); err != nil {
			return nil, err
		}
		out = append(out, WaitingProc{
			Iter: p.Iter, Pid: p.Pid, Step: p.ResumeStep, Status: p.Status, UpdatedAt: p.UpdatedAt,
			Plain: json.RawMessage(orEmpty(p.ResumePlain)), Paused: p.Paused,
			JoinOpen: p.Join.Open(), Killed: !p.KilledAt.IsZero(),
		})
	}
	return out, nil
}

// version is the compare-and-set version a wake sends for an updatedAt it
// read: the stored unix milliseconds ("" for none).
func version(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return ms(t)
}

// PendingWakes returns the wake-ups the session's commits queued that are
// not yet performed (left by a crash between a commit and its wake-ups), in
// id order.
func (s *Store) PendingWakes(ctx context.Context, root Root) ([]PendingWake, error) {
	m, err := s.rdb.HGetAll(ctx, keysOf(root).wq()).Result()
	if err != nil {
		return nil, err
	}
	return sortedWakes(m), nil
}

// sortedWakes orders the wake-up queue's entries by iter and number.
func sortedWakes(m map[string]string) []PendingWake {
	out := make([]PendingWake, 0, len(m))
	for id, e := range m {
		out = append(out, PendingWake{ID: id, Entry: json.RawMessage(e)})
	}
	sort.Slice(out, func(i, j int) bool { return wakeIDLess(out[i].ID, out[j].ID) })
	return out
}

// wakeIDLess orders "<owner>:<rootPid>:<iter>#<n>" of one session by iter
// and n.
func wakeIDLess(a, b string) bool {
	num := func(id string) (int64, int64) {
		pid, n, _ := strings.Cut(id, "#")
		_, pid, _ = strings.Cut(pid, ":")
		_, it, _ := ParsePid(pid)
		k, _ := strconv.ParseInt(n, 10, 64)
		return it, k
	}
	ai, an := num(a)
	bi, bn := num(b)
	if ai != bi {
		return ai < bi
	}
	return an < bn
}

// WakeDone forgets a performed wake-up and records its outcome in the
// session's history (once, however often it is called). When it was the
// last thing a finished session waited for, the session leaves the root
// index.
func (s *Store) WakeDone(ctx context.Context, root Root, w PendingWake, pid, step, outcome string, now time.Time) error {
	k := keysOf(root)
	vals, err := s.eval(ctx, scriptWakeDone, []string{k.wq(), k.steps(), k.meta()}, w.ID, ms(now), s.cfg.StepsCap, pid, step, outcome).Int64Slice()
	if err != nil {
		return fmt.Errorf("wake-up %s done: %w", w.ID, err)
	}
	if vals[1] == 1 {
		s.finished(ctx, root, now)
	}
	return nil
}
