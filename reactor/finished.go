package reactor

import (
	"context"
	"log/slog"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
)

// finished reports a session this holder finished and handed back.
func (s *sessionIO) finished(meta joinstore.SessionMeta) {
	reportFinished(s.log, s.life.Finished, s.root, s.worker, meta)
}

// reportFinished reports a finished session once: an INFO line "session
// finished" with its outcome (joinstore.OutcomeOf), and the hook.
func reportFinished(log *slog.Logger, hook func(joinstore.Root, joinstore.SessionMeta), root joinstore.Root, replica string, meta joinstore.SessionMeta) {
	outcome := joinstore.OutcomeOf(meta)
	if log != nil {
		args := []any{"session", root.String(), "ostcId", meta.OstcID, "outcome", string(outcome), "steps", meta.Steps, "replica", replica}
		if !meta.CreatedAt.IsZero() && !meta.FinishedAt.IsZero() {
			args = append(args, "duration", meta.FinishedAt.Sub(meta.CreatedAt))
		}
		if meta.KillReason != "" {
			args = append(args, "killReason", meta.KillReason)
		}
		log.Info("session finished", args...)
	}
	if hook != nil {
		hook(root, meta)
	}
}

// markFinished takes a session an adoption found finished out of the root
// index; the replica that took it out reports its end (its holder stopped
// before it could).
func (m *Manager) markFinished(ctx context.Context, root joinstore.Root) {
	if !m.Store.MarkFinished(ctx, root, m.now()) {
		return
	}
	if meta, err := m.Store.SessionMeta(ctx, root); err == nil {
		reportFinished(m.Log, m.Lifecycle.Finished, root, m.Replica, meta)
	}
}

// stall carries out cmdStall: the adoption's claims go back due at the
// retry time, the stall is recorded on the session, logged at WARN and
// reported (Lifecycle.Stalled).
func (s *sessionIO) stall(ctx context.Context, c cmdStall) input {
	now := s.clock()
	for _, cl := range c.Claims {
		if _, err := s.store.Release(ctx, cl, now, c.Until); err != nil {
			s.log.Warn("giving back a claim of a stalled session failed", "session", s.root.String(), "pid", cl.Pid, "err", err)
		}
	}
	n, err := s.store.Stall(ctx, s.root, s.worker, s.token, c.Reason, now)
	if err != nil {
		s.log.Warn("recording a stalled session failed", "session", s.root.String(), "err", err)
		return inStalled{Err: err}
	}
	s.log.Warn("session stalled: this replica cannot run it", "session", s.root.String(), "kind", c.Kind, "reason", c.Reason,
		"stalls", n, "retryAt", c.Until.UTC().Format(time.RFC3339))
	if s.life.Stalled != nil {
		s.life.Stalled(s.root, c.Kind)
	}
	return inStalled{}
}
