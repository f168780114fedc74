package joinstore_test

import (
	"fmt"
	"testing"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
)

// ReleaseLease is the pure reference of release_lease, the transition that
// gives up a running process's lease without a result: a holder's release
// (the execution failed transiently) or a recovery (the lease expired: its
// replica stopped). Like the gates (gate_reference_test.go) it is test
// code, held to its script by TestGateReferencesMatchLua. A lease is
// released at most once: the script checks the token, so a second release
// is Stale and changes nothing.

// ReleaseState is what release_lease reads: the process, its group's join
// target and the session. Times are unix ms.
type ReleaseState struct {
	// Now is the time the release is judged at.
	Now int64
	// Status, Lease (the current token, 0 = none) and LeaseUntil are the
	// process's; Step the step it was running.
	Status     joinstore.ProcStatus
	Lease      int64
	LeaseUntil int64
	Step       string
	// Killed: its own killedAt is set. SessionKilled: the session's.
	Killed, SessionKilled bool
	// Recoveries is how many times it was recovered before.
	Recoveries int64
	// Target is the join target of its group.
	Target GroupTarget
	// Live is the session's live process count.
	Live int64
}

// ReleaseRequest is a release: the caller's token, when to retry (ms
// after now), and for a recovery the cap on recoveries (0 = none).
type ReleaseRequest struct {
	Token         int64
	RetryAfter    int64
	Recover       bool
	MaxRecoveries int
}

// ReleaseOutcome is what a release does.
type ReleaseOutcome struct {
	// Result is released, killed, gated, abandoned or stale (nothing
	// changed).
	Result joinstore.ReleaseResult
	// Reason is the abortReason of an aborted process.
	Reason string
	// MarkKilled: the process gets a killedAt of its own (the session's
	// kill reached it).
	MarkKilled bool
	// FailedAtTarget: its failure was delivered to its group's open join
	// target.
	FailedAtTarget bool
	// Recoveries is its recovery count afterwards.
	Recoveries int64
	// DueAt is when a released process is due again.
	DueAt int64
	// Live is the session's live count afterwards; Finished is true when
	// an abort left none.
	Live     int64
	Finished bool
}

// abandonReason is the abortReason of a process recovered too often.
func abandonReason(step string, n int64) string {
	return fmt.Sprintf("abandoned: the lease of step %s expired %d times while it ran (each time its replica stopped: a crash or an out-of-memory kill); it is not run again", step, n)
}

// ReleaseLease decides a release. Stale when the token is not the current
// lease of a running process, or, for a recovery, the lease has not expired
// (it was renewed). Otherwise a process killed while it ran (its own mark
// or the session's) is aborted and fails at its group's open target; one
// whose group's join closed with kill is aborted (gated); a recovery that
// reaches the cap aborts it (abandoned) and fails it at the open target;
// else it waits again, due RetryAfter ms from now.
func ReleaseLease(s ReleaseState, r ReleaseRequest) ReleaseOutcome {
	out := ReleaseOutcome{Result: joinstore.Stale, Recoveries: s.Recoveries, Live: s.Live}
	if s.Status != joinstore.StatusRunning || s.Lease != r.Token {
		return out
	}
	if r.Recover && s.LeaseUntil >= s.Now {
		return out
	}
	abort := func(res joinstore.ReleaseResult, reason string, fail bool) ReleaseOutcome {
		out.Result, out.Reason = res, reason
		out.FailedAtTarget = fail && s.Target.Open()
		out.Live = s.Live - 1
		out.Finished = out.Live <= 0
		return out
	}
	if s.Killed || s.SessionKilled {
		out.MarkKilled = !s.Killed
		return abort(joinstore.Killed, reasonKilled, true)
	}
	if s.Target.KillClosed() {
		return abort(joinstore.Gated, string(joinstore.Gated), false)
	}
	if r.Recover {
		out.Recoveries++
		if r.MaxRecoveries > 0 && out.Recoveries >= int64(r.MaxRecoveries) {
			return abort(joinstore.Abandoned, abandonReason(s.Step, out.Recoveries), true)
		}
	}
	out.Result = joinstore.Released
	out.DueAt = s.Now + r.RetryAfter
	return out
}

// A lease is released at most once: whatever a release decided, a second
// release with the same token is stale.
func TestReleaseAtMostOnce(t *testing.T) {
	targets := []GroupTarget{{}, {Iter: 2}, {Iter: 2, Closed: true, Policy: registry.PolicyKill}, {Iter: 2, Closed: true}}
	for _, killed := range []bool{false, true} {
		for _, sessionKilled := range []bool{false, true} {
			for _, target := range targets {
				for _, recover := range []bool{false, true} {
					for n := int64(0); n < 3; n++ {
						s := ReleaseState{Now: 100, Status: joinstore.StatusRunning, Lease: 7, LeaseUntil: 50, Step: "A",
							Killed: killed, SessionKilled: sessionKilled, Recoveries: n, Target: target, Live: 2}
						r := ReleaseRequest{Token: 7, RetryAfter: 10, Recover: recover, MaxRecoveries: 3}
						first := ReleaseLease(s, r)
						if first.Result == joinstore.Stale {
							t.Fatalf("%+v %+v: the first release is stale", s, r)
						}
						s.Status, s.Lease = joinstore.StatusAborted, 0
						if first.Result == joinstore.Released {
							s.Status = joinstore.StatusWaiting
						}
						if again := ReleaseLease(s, r); again.Result != joinstore.Stale {
							t.Fatalf("%+v %+v: released twice: %v then %v", s, r, first.Result, again.Result)
						}
					}
				}
			}
		}
	}
}
