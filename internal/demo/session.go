package demo

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
)

// Session statuses (Session.Status), judged from the records when the
// session finished; StatusLive while it has not.
const (
	// StatusOK: every step ran and every rule chose its onValid branch.
	StatusOK = "ok"
	// StatusInvalid: every step ran, but some rule chose onInvalid.
	StatusInvalid = "invalid"
	// StatusFailed: a process aborted (a hard error of its step, an
	// unfulfillable join, a cap).
	StatusFailed = "failed"
	// StatusKilled: the session or one of its processes was killed.
	StatusKilled = "killed"
	// StatusLive: not finished yet.
	StatusLive = "live"
)

// Session is one session as the demo reports it.
type Session struct {
	Owner string
	ID    int64
	Flow  string
	// Status is one of the Status* constants.
	Status string
	// Steps is how many steps the session committed.
	Steps int
	// Duration is from its creation to its end (Redis's clock); 0 while live.
	Duration time.Duration
	// Ended is when it finished (Redis's clock); zero while live.
	Ended time.Time
	// Result is the "result" payload value of the last process that wrote
	// one (the demo's rules write it), "" when none did.
	Result string
}

// Finished reports whether the session has ended.
func (s Session) Finished() bool { return s.Status != StatusLive }

// Judge reads a session's meta record and its processes' records
// (joinstore.Store.Session and Processes).
func Judge(root joinstore.Root, meta map[string]string, procs []joinstore.Process) (Session, error) {
	s := Session{Owner: root.Owner, ID: root.RootPid, Flow: meta["ostcId"], Status: StatusLive}
	if v := meta["steps"]; v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return s, fmt.Errorf("session %s: steps %q is not a count", root, v)
		}
		s.Steps = n
	}
	var last int64
	for _, p := range procs {
		if _, _, err := joinstore.ParsePid(p.Pid); err != nil {
			return s, fmt.Errorf("session %s: %w", root, err)
		}
		if r, ok := result(p); ok && p.Status == joinstore.StatusDone && p.Iter > last {
			s.Result, last = r, p.Iter
		}
	}
	if meta["status"] != "finished" {
		return s, nil
	}
	created, err := millis(meta, "createdAt")
	if err != nil {
		return s, fmt.Errorf("session %s: %w", root, err)
	}
	finished, err := millis(meta, "finishedAt")
	if err != nil {
		return s, fmt.Errorf("session %s: %w", root, err)
	}
	s.Duration = time.Duration(finished-created) * time.Millisecond
	s.Ended = time.UnixMilli(finished)
	s.Status = status(meta, procs)
	return s, nil
}

// status judges a finished session: killed before failed before invalid.
func status(meta map[string]string, procs []joinstore.Process) string {
	if meta["killedAt"] != "" {
		return StatusKilled
	}
	out := StatusOK
	for _, p := range procs {
		switch reason := reactor.AbortReason(p); reason {
		case "", "join-kill", "gated": // a closed join's losers, dropped spawns: the design
		case "killed":
			return StatusKilled
		default:
			out = StatusFailed
		}
		if p.Status == joinstore.StatusDone && p.Valid != nil && !*p.Valid && out == StatusOK {
			out = StatusInvalid
		}
	}
	return out
}

// result is the "result" value of a process's payload, as text.
func result(p joinstore.Process) (string, bool) {
	var payload map[string]any
	if json.Unmarshal(p.ResumePlain, &payload) != nil {
		return "", false
	}
	switch v := payload["result"].(type) {
	case nil:
		return "", false
	case string:
		return v, true
	default:
		b, _ := json.Marshal(v)
		return string(b), true
	}
}

func millis(meta map[string]string, key string) (int64, error) {
	n, err := strconv.ParseInt(meta[key], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s %q is not a time in milliseconds", key, meta[key])
	}
	return n, nil
}
