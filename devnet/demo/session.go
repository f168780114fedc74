package demo

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
)

// Session statuses (Session.Status): a finished session's outcome
// (joinstore.OutcomeOf, docs/runtime.md "Session outcomes"); StatusLive
// while it has not finished.
const (
	// StatusOK: none of the below.
	StatusOK = string(joinstore.OutcomeOK)
	// StatusInvalid: a step evaluated invalid and led nowhere.
	StatusInvalid = string(joinstore.OutcomeInvalid)
	// StatusUnfulfillable: a join could no longer close.
	StatusUnfulfillable = string(joinstore.OutcomeUnfulfillable)
	// StatusFailed: a step's hard error, an abandoned process, a cap.
	StatusFailed = string(joinstore.OutcomeFailed)
	// StatusCancelled: a step's cancelSession rule ended the session.
	StatusCancelled = string(joinstore.OutcomeCancelled)
	// StatusKilled: the session or one of its processes was killed.
	StatusKilled = string(joinstore.OutcomeKilled)
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

// Judge reads a session's typed meta and its processes' records
// (joinstore.Store.SessionMeta and Processes).
func Judge(root joinstore.Root, meta joinstore.SessionMeta, procs []joinstore.Process) (Session, error) {
	s := Session{Owner: root.Owner, ID: root.RootPid, Flow: meta.OstcID, Status: StatusLive, Steps: int(meta.Steps)}
	var last int64
	for _, p := range procs {
		if _, _, err := joinstore.ParsePid(p.Pid); err != nil {
			return s, fmt.Errorf("session %s: %w", root, err)
		}
		if r, ok := result(p); ok && p.Status == joinstore.StatusDone && p.Iter > last {
			s.Result, last = r, p.Iter
		}
	}
	if meta.Status != joinstore.SessionFinished {
		return s, nil
	}
	if meta.CreatedAt.IsZero() || meta.FinishedAt.IsZero() {
		return s, fmt.Errorf("session %s: finished, but createdAt (%s) or finishedAt (%s) is missing", root, stampOf(meta.CreatedAt), stampOf(meta.FinishedAt))
	}
	s.Duration = meta.FinishedAt.Sub(meta.CreatedAt)
	s.Ended = meta.FinishedAt
	s.Status = string(joinstore.OutcomeOf(meta))
	return s, nil
}

func stampOf(t time.Time) string {
	if t.IsZero() {
		return "none"
	}
	return strconv.FormatInt(t.UnixMilli(), 10)
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
