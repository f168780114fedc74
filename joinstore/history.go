package joinstore

import (
	"context"
	"fmt"
	"strings"
)

// StepEntry is one entry of a session's proc_steps history: one committed
// step, in commit order.
type StepEntry struct {
	// ID is the stream entry id (commit order).
	ID string `json:"id"`
	// Pid is the process that executed; Step the step it ran.
	Pid  string `json:"pid"`
	Step string `json:"step"`
	// Valid is "1", "0" or "" (not evaluated); Status "done" or "aborted".
	Valid  string `json:"valid"`
	Status string `json:"status"`
	// At is the commit time (unix ms, decimal).
	At     string `json:"at"`
	Worker string `json:"worker,omitempty"`
	// Children are the pids the commit created.
	Children []string `json:"children,omitempty"`
}

// Steps returns the session's proc_steps history, oldest first (for
// inspection and audit; not a hot path). An empty history is not an error:
// a session whose first step has not run has none.
func (s *Store) Steps(ctx context.Context, root Root) ([]StepEntry, error) {
	msgs, err := s.rdb.XRange(ctx, keysOf(root).steps(), "-", "+").Result()
	if err != nil {
		return nil, fmt.Errorf("session %s: proc_steps: %w", root, err)
	}
	out := make([]StepEntry, 0, len(msgs))
	for _, m := range msgs {
		str := func(k string) string { v, _ := m.Values[k].(string); return v }
		e := StepEntry{ID: m.ID, Pid: str("pid"), Step: str("step"), Valid: str("valid"), Status: str("status"), At: str("at"), Worker: str("worker")}
		if c := str("children"); c != "" {
			e.Children = strings.Split(c, ",")
		}
		out = append(out, e)
	}
	return out, nil
}
