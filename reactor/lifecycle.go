package reactor

import "github.com/xgr-sidecar/xgr/joinstore"

// Lifecycle receives what happens to the sessions a replica runs, for
// metrics and operators' logs (Manager.Lifecycle; every field optional,
// called from several goroutines).
type Lifecycle struct {
	// Adopted: this replica took a session's root lease. previous is the
	// replica that adopted it before ("" when none did or it is unknown);
	// recovered counts the processes left running under leases that had
	// expired — non-zero means a replica stopped without handing the
	// session back (a takeover).
	Adopted func(root joinstore.Root, previous string, recovered int)
	// LeaseLost: another replica holds the session's root lease now (this
	// one was too slow to renew it).
	LeaseLost func(root joinstore.Root)
	// Finished: the session's last process ended and this replica handed
	// the finished session back (or took a finished one out of the index
	// its holder left), with its outcome (joinstore.OutcomeOf); once per
	// session; meta is the finished session's record (its outcome is
	// joinstore.OutcomeOf(meta)). The replica logs it at INFO ("session
	// finished").
	Finished func(root joinstore.Root, meta joinstore.SessionMeta)
	// Stalled: this replica adopted a session it cannot run at all (kind:
	// StallUnknownOrchestration or StallHashMismatch), recorded why on
	// the session and handed it back to be tried again after a backoff.
	Stalled func(root joinstore.Root, kind string)
}
