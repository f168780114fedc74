package reactor

import "github.com/xgr-sidecar/xgr/joinstore"

// finished reports a session this holder finished and handed back: an INFO
// line with its outcome, and the onFinished hook.
func (s *sessionIO) finished(meta joinstore.SessionMeta) {
	outcome := joinstore.OutcomeOf(meta)
	if s.log != nil {
		args := []any{"session", s.root.String(), "outcome", string(outcome), "steps", meta.Steps, "replica", s.worker}
		if meta.KillReason != "" {
			args = append(args, "killReason", meta.KillReason)
		}
		s.log.Info("session finished", args...)
	}
	if s.onFinished != nil {
		s.onFinished(s.root, outcome)
	}
}
