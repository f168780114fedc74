package reactor

import "github.com/xgr-sidecar/xgr/registry"

// GroupTarget is what the gates need to know about the join target that
// accepts deliveries from a process's join group.
type GroupTarget struct {
	// Exists is false for a group without a target (the root group, or the
	// group of a join-less spawn chain at the top).
	Exists bool
	Closed bool
	Policy registry.Policy
}

// killed reports whether the group's join was decided with policy kill.
func (g GroupTarget) killed() bool {
	return g.Exists && g.Closed && g.Policy == registry.PolicyKill
}

// Dispatch is the dispatch gate's answer for a waiting process whose time has come.
type Dispatch uint8

// Dispatch answers.
const (
	// Run: promote to running.
	Run Dispatch = iota
	// Hold: keep waiting (a join target whose join is still open).
	Hold
	// AbortGated: abort instead of run (its group's join closed with kill).
	AbortGated
)

func (d Dispatch) String() string { return [...]string{"run", "hold", "abort_gated"}[d] }

// DispatchGate decides whether a waiting process may run. A join target never
// runs before its own join closes (never by nextWakeAt alone); a producer
// whose group's join closed with kill is aborted instead of run; with drain
// it runs.
func DispatchGate(isTarget, ownJoinClosed bool, group GroupTarget) Dispatch {
	if isTarget && !ownJoinClosed {
		return Hold
	}
	if group.killed() {
		return AbortGated
	}
	return Run
}

// SpawnGate reports whether a new process may be created into a join group:
// never into a group whose join closed with kill.
func SpawnGate(group GroupTarget) bool {
	return !group.killed()
}
