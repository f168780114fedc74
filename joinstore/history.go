package joinstore

import (
	"context"
	"fmt"
	"strings"
)

// History events (HistoryEntry.Event).
const (
	// EventCommit is a committed step (the field is empty in Redis).
	EventCommit = ""
	// EventWoken: a process of this session was woken.
	EventWoken = "woken"
	// EventWakeUp: a wake-up this session's step asked for was performed
	// (or found to be a no-op).
	EventWakeUp = "wakeup"
)

// HistoryEntry is one entry of a session's proc_steps history, in order:
// a committed step, or a wake event.
type HistoryEntry struct {
	// ID is the stream entry id (order).
	ID string `json:"id"`
	// Event is EventCommit, EventWoken or EventWakeUp.
	Event string `json:"event,omitempty"`
	// Pid is the process that executed (commit), was woken (woken) or
	// asked for the wake-up (wakeup); Step its step.
	Pid  string `json:"pid"`
	Step string `json:"step"`
	// Valid is "1", "0" or "" (not evaluated); Status "done" or "aborted"
	// (commits).
	Valid  string `json:"valid,omitempty"`
	Status string `json:"status,omitempty"`
	// AbortReason says why an aborted step aborted.
	AbortReason string `json:"abortReason,omitempty"`
	// At is the time (unix ms, decimal).
	At     string `json:"at"`
	Worker string `json:"worker,omitempty"`
	// Children are the pids the commit created.
	Children []string `json:"children,omitempty"`
	// Gas is the committed step's gas: validation gas and its execution's
	// gas used (decimal; "" for entries written before gas was kept).
	Gas string `json:"gas,omitempty"`
	// By names the waker (woken); Outcome says what a wake-up did (wakeup).
	By      string `json:"by,omitempty"`
	Outcome string `json:"outcome,omitempty"`
}

// Commit reports whether the entry is a committed step.
func (e HistoryEntry) Commit() bool { return e.Event == EventCommit }

// History returns the session's proc_steps history, oldest first (for
// inspection and audit; not a hot path). An empty history is not an error:
// a session whose first step has not run has none.
func (s *Store) History(ctx context.Context, root Root) ([]HistoryEntry, error) {
	msgs, err := s.rdb.XRange(ctx, keysOf(root).steps(), "-", "+").Result()
	if err != nil {
		return nil, fmt.Errorf("session %s: proc_steps: %w", root, err)
	}
	out := make([]HistoryEntry, 0, len(msgs))
	for _, m := range msgs {
		str := func(k string) string { v, _ := m.Values[k].(string); return v }
		e := HistoryEntry{ID: m.ID, Event: str("event"), Pid: str("pid"), Step: str("step"), Valid: str("valid"), Status: str("status"),
			AbortReason: str("abortReason"), At: str("at"), Worker: str("worker"), By: str("by"), Outcome: str("outcome"), Gas: str("gas")}
		if c := str("children"); c != "" {
			e.Children = strings.Split(c, ",")
		}
		out = append(out, e)
	}
	return out, nil
}
