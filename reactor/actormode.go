package reactor

// actorMode is where a root actor is in its life: one explicit state, as
// raft's StateType, rather than a cluster of flags. What it has
// outstanding (a store transition, a renewal, a timer) is tracked apart:
// that is not its mode.
//
//	opening ──opened──▶ running ──cancel──▶ draining ──idle──▶ releasing ──▶ done
//	   │ cancel                                ▲
//	   ▼                                       │ opened (or failed)
//	openingCancelled ──────────────────────────┘
//
// Any mode goes to done when the root lease is lost or the replica halts
// (nothing more is committed and nothing given back).
type actorMode uint8

const (
	// modeOpening: the session is being read (adoption, orchestration,
	// recovery); nothing is claimed by the actor yet.
	modeOpening actorMode = iota
	// modeOpeningCancelled: cancelled while opening; it drains once the
	// reading is done.
	modeOpeningCancelled
	// modeRunning: claims, executes and commits the session's processes.
	modeRunning
	// modeDraining: claims nothing more; the executions in flight finish
	// and commit, then the session is handed back.
	modeDraining
	// modeReleasing: handing the session back (its root lease, the root
	// index).
	modeReleasing
	// modeDone: the actor exits.
	modeDone
)

var actorModeNames = [...]string{"opening", "opening-cancelled", "running", "draining", "releasing", "done"}

func (m actorMode) String() string {
	if int(m) < len(actorModeNames) {
		return actorModeNames[m]
	}
	return "mode?"
}

// cancel is the mode after the actor is told to stop (replica shutdown).
func (m actorMode) cancel() actorMode {
	switch m {
	case modeOpening:
		return modeOpeningCancelled
	case modeRunning:
		return modeDraining
	}
	return m
}

// opened is the mode after the session was read (ok) or could not be.
func (m actorMode) opened(ok bool) actorMode {
	switch {
	case m == modeOpening && ok:
		return modeRunning
	case m == modeOpening, m == modeOpeningCancelled:
		return modeDraining
	}
	return m
}

// renews says whether the actor keeps its leases alive in this mode: once
// the session is read and until it is handed back.
func (m actorMode) renews() bool { return m == modeRunning || m == modeDraining }
