package reactor

import (
	"context"
	"log/slog"

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
