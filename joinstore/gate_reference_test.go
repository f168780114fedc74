package joinstore_test

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
)

// The gates decide which processes may run and which may be created. The
// runtime's gates are joinstore's Lua transitions, which decide atomically
// with the state they read: claim (the dispatch gate), commit_step (the
// spawn gate, and the claim of ready children) and release_lease (the gate
// of a lease given up without a result: ReleaseLease,
// release_reference_test.go). The functions here are pure references of
// those decisions over a small typed state, test code only: nothing in
// production calls them, so they live with the test that holds them to
// account. TestGateReferencesMatchLua (gate_conformance_test.go) applies
// generated states to each script on a real Redis, single and Cluster, and
// to its reference, and requires the same outcome.

// reasonKilled is the abortReason the transitions record for a process a
// kill aborted.
const reasonKilled = "killed"

// GroupTarget is the join target a join group delivers to, as the
// transitions read it.
type GroupTarget struct {
	// Iter is the target's iter; 0 when the group has none (the root
	// group has none).
	Iter   int64
	Closed bool
	Policy registry.Policy
}

// KillClosed reports whether the group's join closed with policy kill:
// nothing runs or is created in the group any more.
func (g GroupTarget) KillClosed() bool {
	return g.Iter != 0 && g.Closed && g.Policy == registry.PolicyKill
}

// Open reports whether the group has a target whose join is still open: a
// member that finishes delivers to it.
func (g GroupTarget) Open() bool { return g.Iter != 0 && !g.Closed }

// ClaimSession is what claim reads of a session.
type ClaimSession struct {
	// Killed: the session's killedAt is set; nothing is claimed in it.
	Killed bool
	// Window caps the session's running processes (0 = no cap); Running
	// counts the leases that have not expired by now.
	Window, Running int
	// Fence is the last fencing token issued, Iter the last iter allocated.
	Fence, Iter int64
	// Live is the session's live process count.
	Live int64
}

// ClaimCandidate is one process a claim is asked for, as claim reads it.
type ClaimCandidate struct {
	Iter int64
	// Due: in the session's due set at a time that has come. A join target
	// enters the due set only when its join closes satisfied (join_apply;
	// commit_step, pause and wake_apply never put an open one there), so
	// a due target is a promoted one: claim itself does not look at it.
	Due    bool
	Status joinstore.ProcStatus
	Paused bool
	// Killed: the process's own killedAt is set.
	Killed bool
	// Limits are its resume step's entry of the step table (zero when the
	// table has none).
	Limits joinstore.StepLimits
	// Group is the join target of the process's group.
	Group GroupTarget
}

// Dispatch is the dispatch gate's answer for one claim candidate.
type Dispatch uint8

// Dispatch answers.
const (
	// Skip: not claimable now (not due, not waiting, paused or killed).
	Skip Dispatch = iota
	// Run: claim it, when the window has room.
	Run
	// AbortGated: abort it instead of running it ("gated"): its group's
	// join closed with kill.
	AbortGated
)

func (d Dispatch) String() string { return [...]string{"skip", "run", "abort_gated"}[d] }

// DispatchGate is claim's per-process decision: a process runs when it is
// due, waiting, unpaused and not killed, unless its group's join closed
// with kill: then it is aborted instead, also before the kill's cascade
// reached the group.
func DispatchGate(c ClaimCandidate) Dispatch {
	if !c.Due || c.Status != joinstore.StatusWaiting || c.Paused || c.Killed {
		return Skip
	}
	if c.Group.KillClosed() {
		return AbortGated
	}
	return Run
}

// Granted is a process a claim moved to running: the fencing token of its
// lease and the reservation of child iters [FirstChild, FirstChild+Reserve)
// (FirstChild 0 when it reserves none).
type Granted struct {
	Iter, Token, FirstChild int64
	Reserve                 int
	// GroupTarget is the iter of its group's join target (0 = none).
	GroupTarget int64
}

// ClaimOutcome is what a claim does.
type ClaimOutcome struct {
	// SessionKilled: the session was killed; nothing changed.
	SessionKilled bool
	// Granted are the claimed processes, in candidate order.
	Granted []Granted
	// Gated are the processes the dispatch gate aborted, in candidate
	// order.
	Gated []int64
	// Fence and Iter are the session's counters afterwards; Live its live
	// count, and Finished is true when the gate's aborts left none.
	Fence, Iter int64
	Live        int64
	Finished    bool
}

// ClaimRound is claim's decision for a list of candidates, in order: each
// that DispatchGate gates is aborted, each that it lets run is claimed with the next fencing token and a
// reservation of its step's child iters, until the window is full; a
// candidate whose step may exceed the window (Bypass) is claimed anyway,
// but the first one found at a full window that may not ends the round. A
// claimed process leaves the due set, so a candidate named twice is
// claimed once.
func ClaimRound(s ClaimSession, cands []ClaimCandidate) ClaimOutcome {
	out := ClaimOutcome{Fence: s.Fence, Iter: s.Iter, Live: s.Live}
	if s.Killed {
		out.SessionKilled = true
		return out
	}
	running := 0
	if s.Window > 0 {
		running = s.Running
	}
	taken := map[int64]bool{}
	for _, c := range cands {
		if taken[c.Iter] {
			continue
		}
		switch DispatchGate(c) {
		case Skip:
			continue
		case AbortGated:
			out.Gated = append(out.Gated, c.Iter)
			taken[c.Iter] = true
			out.Live--
			out.Finished = out.Finished || out.Live <= 0
			continue
		}
		if s.Window > 0 && running >= s.Window && !c.Limits.Bypass {
			break
		}
		out.Fence++
		g := Granted{Iter: c.Iter, Token: out.Fence, Reserve: c.Limits.Reserve, GroupTarget: c.Group.Iter}
		if c.Limits.Reserve > 0 {
			g.FirstChild = out.Iter + 1
			out.Iter += int64(c.Limits.Reserve)
		}
		out.Granted = append(out.Granted, g)
		taken[c.Iter] = true
		running++
	}
	return out
}

// CommitState is what commit_step reads: the committing process, its
// group's join target and the session. Times are unix ms.
type CommitState struct {
	// Now is the time the commit is judged at.
	Now int64
	// Iter, Status, Lease (the current token, 0 = none) and LeaseUntil are
	// the committing process's; Step is the step it ran, Group its join
	// group.
	Iter       int64
	Status     joinstore.ProcStatus
	Lease      int64
	LeaseUntil int64
	Step       string
	Group      string
	// Killed: its own killedAt is set. Paused: its paused flag.
	Killed, Paused bool
	// ReservedFirst and ReservedCount are its lease's reservation of
	// child iters (both 0 when it has none).
	ReservedFirst, ReservedCount int64
	// Target is the join target of its group.
	Target GroupTarget
	// SessionKilled and SessionPaused are the session's flags.
	SessionKilled, SessionPaused bool
	// Steps and Live are the session's counters of committed steps and
	// live processes; Window its cap on running processes (0 = none) and
	// Running the leases not expired by now, the committing one included.
	Steps, Live int64
	Window      int
	Running     int
	// Fence is the last fencing token issued, LastIter the last iter
	// allocated.
	Fence, LastIter int64
}

// CommitCaps are the session caps a commit enforces (0 = no cap).
type CommitCaps struct{ MaxLive, MaxSteps int }

// ChildFate is how commit_step creates a child.
type ChildFate uint8

// Child fates.
const (
	// ChildDue: created waiting, in the due set at its wake time.
	ChildDue ChildFate = iota
	// ChildPaused: created waiting and paused, not in the due set.
	ChildPaused
	// ChildTarget: a join target, created waiting and never due by time.
	ChildTarget
	// ChildClaimed: created running under a lease of its own.
	ChildClaimed
)

func (f ChildFate) String() string { return [...]string{"due", "paused", "target", "claimed"}[f] }

// CreatedChild is a child a commit created.
type CreatedChild struct {
	Iter int64
	Fate ChildFate
	// DueAt is its wake time (ChildDue; ChildPaused and ChildTarget keep
	// it as nextWakeAt).
	DueAt int64
	// Paused is the paused flag it is created with.
	Paused bool
	// Token and FirstChild are its lease's (ChildClaimed).
	Token, FirstChild int64
	// Member: it is recorded as a live member of its group (groups with
	// a join target only: the committing process's group when that has
	// one, and the fresh group of a join).
	Member bool
}

// CommitOutcome is what a commit does.
type CommitOutcome struct {
	// Refused is LEASE_LOST (not the current lease, or it expired) or
	// BAD_CHILD (a child outside the reservation): nothing changed.
	Refused string
	// Killed: the process was killed (its own mark or the session's) or
	// this commit killed the session (CapReason): recorded aborted, no
	// children, no wake-ups.
	Killed bool
	// CapReason is why this commit killed the session ("" when it did
	// not): the commit's CancelSession, else the step cap, else the live
	// process cap.
	CapReason string
	// Recorded is the status recorded, Reason its abortReason.
	Recorded joinstore.ProcStatus
	Reason   string
	// Created are the children created, in order; Gated the iters the
	// spawn gate dropped.
	Created []CreatedChild
	Gated   []int64
	// Delivered: the process's finish was delivered to its group's open
	// join target, as Delivery.
	Delivered bool
	Delivery  joinstore.Delivery
	// WakesQueued: the commit's wake-ups were queued.
	WakesQueued bool
	// Steps, Live, Fence and LastIter are the session's counters
	// afterwards; Finished is true when no live process is left.
	Steps, Live     int64
	Fence, LastIter int64
	Finished        bool
	// Tally is the session outcome tally the commit raises by one
	// (joinstore.OutcomeOf): "failed" for a step aborted by its own hard
	// error, "invalidEnds" for a done step that evaluated invalid, asked
	// for no children and is no join's producer (its group has no target);
	// "" otherwise.
	// KillKind is the kill kind a cap or cancel records ("" when none).
	Tally, KillKind string
}

// Cap reasons a commit kills its session with (after the commit's own
// CancelSession).
func stepCapReason(steps int64, limit int) string {
	return fmt.Sprintf("step cap: the session committed its step %d, at most %d are allowed (XGR_MAX_STEPS)", steps, limit)
}

func liveCapReason(live int64, limit int) string {
	return fmt.Sprintf("live process cap: the session would have %d live processes, at most %d are allowed (XGR_MAX_LIVE)", live, limit)
}

// CommitGate is commit_step's decision for the commit c of the claim with
// token under state s, given pid (the process's "<rootPid>:<iter>").
//
// A killed process is recorded aborted ("killed") and creates nothing; a
// commit over a cap, or with CancelSession, kills the session and is
// recorded aborted with that reason likewise. The spawn gate: when the
// group's join closed with kill, no child is created into the group, nor
// any child into the fresh group of a join target gated there (a nested
// join's whole scope). A finished process delivers to its group's open
// target, whatever it recorded. Children are claimed in the commit
// (c.ClaimLease > 0) when they are due now, unpaused, not join targets,
// within the window (or their step may exceed it), and no join decision
// this commit causes can gate them: none when the process delivers to an
// open target, and none that is a producer of a join it creates.
func CommitGate(s CommitState, token int64, pid string, c joinstore.Commit, caps CommitCaps) CommitOutcome {
	out := CommitOutcome{Steps: s.Steps, Live: s.Live, Fence: s.Fence, LastIter: s.LastIter}
	if s.Status != joinstore.StatusRunning || s.Lease != token {
		out.Refused = "LEASE_LOST"
		return out
	}
	if s.LeaseUntil < s.Now {
		out.Refused = "LEASE_LOST"
		return out
	}
	killed := s.Killed || s.SessionKilled
	childPaused := s.Paused || s.SessionPaused
	status := joinstore.ProcStatus(c.Status)
	children := c.Children
	if killed {
		status, children = joinstore.StatusAborted, nil
	}
	steps, live := s.Steps+1, s.Live
	if !killed {
		liveAfter := live - 1 + int64(len(children))
		switch {
		case c.CancelSession != "":
			out.CapReason = c.CancelSession
		case caps.MaxSteps != 0 && steps > int64(caps.MaxSteps):
			out.CapReason = stepCapReason(steps, caps.MaxSteps)
		case caps.MaxLive != 0 && liveAfter > int64(caps.MaxLive):
			out.CapReason = liveCapReason(liveAfter, caps.MaxLive)
		}
		if out.CapReason != "" {
			killed, status, children = true, joinstore.StatusAborted, nil
			out.KillKind = joinstore.KillKindCap
			if c.CancelSession != "" {
				out.KillKind = joinstore.KillKindCancel
			}
		}
	}
	for _, ch := range children {
		if ch.Iter < s.ReservedFirst || ch.Iter >= s.ReservedFirst+s.ReservedCount {
			out.Refused = "BAD_CHILD"
			return CommitOutcome{Refused: out.Refused, Steps: s.Steps, Live: s.Live, Fence: s.Fence, LastIter: s.LastIter}
		}
	}
	out.Killed, out.Recorded = killed, status
	switch {
	case out.CapReason != "":
		out.Reason = out.CapReason
	case killed:
		out.Reason = reasonKilled
	default:
		out.Reason = c.AbortReason
	}
	out.WakesQueued = !killed && len(c.WakeUps) > 0
	switch {
	case !killed && status == joinstore.StatusAborted:
		out.Tally = "failed"
	case status == joinstore.StatusDone && c.Valid != nil && !*c.Valid && len(c.Children) == 0 && s.Target.Iter == 0:
		out.Tally = "invalidEnds"
	}

	// The spawn gate, over the whole scope of a nested join.
	gated := map[string]bool{}
	if s.Target.KillClosed() {
		gated[s.Group] = true
		for _, ch := range children {
			if ch.Join != nil && ch.JoinGroupID == s.Group {
				gated[strconv.FormatInt(ch.Iter, 10)] = true
			}
		}
	}
	// Claims: none before a join decision this commit causes.
	claimLease := c.ClaimLease.Milliseconds()
	if s.Target.Open() {
		claimLease = 0
	}
	fresh := map[string]bool{}
	for _, ch := range children {
		if ch.Join != nil {
			fresh[ch.Join.FromGroup] = true
		}
	}
	free := -1
	if claimLease > 0 && s.Window > 0 {
		free = max(s.Window-s.Running+1, 0)
	}
	fence, iter := s.Fence, s.LastIter
	for _, ch := range children {
		if gated[ch.JoinGroupID] {
			out.Gated = append(out.Gated, ch.Iter)
			continue
		}
		wake := s.Now
		if !ch.NextWakeAt.IsZero() {
			wake = s.Now + max(ch.NextWakeAt.UnixMilli()-s.Now, 0)
		}
		cc := CreatedChild{Iter: ch.Iter, DueAt: wake, Paused: childPaused,
			Member: ch.JoinGroupID != s.Group || s.Target.Iter != 0}
		switch {
		case ch.Join != nil:
			cc.Fate = ChildTarget
		case claimLease > 0 && wake <= s.Now && !fresh[ch.JoinGroupID] && !childPaused && (free != 0 || ch.Bypass):
			cc.Fate = ChildClaimed
			fence++
			cc.Token = fence
			if ch.Reserve > 0 {
				cc.FirstChild = iter + 1
				iter += int64(ch.Reserve)
			}
			if free > 0 {
				free--
			}
		case childPaused:
			cc.Fate = ChildPaused
		default:
			cc.Fate = ChildDue
		}
		out.Created = append(out.Created, cc)
	}
	out.Steps = steps
	out.Live = live - 1 + int64(len(out.Created))
	out.Fence, out.LastIter = fence, iter
	out.Finished = out.Live <= 0
	if s.Target.Open() {
		out.Delivered = true
		out.Delivery = joinstore.Delivery{Pid: pid, From: s.Step, Aborted: status == joinstore.StatusAborted, Valid: c.Valid, Payload: commitPayload(c)}
	}
	return out
}

// commitPayload is the next payload a commit records and delivers.
func commitPayload(c joinstore.Commit) []byte {
	if len(c.Payload) == 0 {
		return []byte("{}")
	}
	return c.Payload
}

// The reference's own checks: KillClosed and Open, and DispatchGate over
// one candidate's flags.
func TestGates(t *testing.T) {
	killed := GroupTarget{Iter: 2, Closed: true, Policy: registry.PolicyKill}
	drained := GroupTarget{Iter: 2, Closed: true, Policy: registry.PolicyDrain}
	open := GroupTarget{Iter: 2, Policy: registry.PolicyKill}
	if !killed.KillClosed() || drained.KillClosed() || open.KillClosed() || (GroupTarget{Closed: true, Policy: registry.PolicyKill}).KillClosed() {
		t.Errorf("KillClosed")
	}
	if !open.Open() || killed.Open() || (GroupTarget{}).Open() {
		t.Errorf("Open")
	}
	ready := ClaimCandidate{Iter: 3, Due: true, Status: joinstore.StatusWaiting}
	cases := []struct {
		edit func(*ClaimCandidate)
		want Dispatch
	}{
		{func(*ClaimCandidate) {}, Run},
		{func(c *ClaimCandidate) { c.Group = drained }, Run},
		{func(c *ClaimCandidate) { c.Due = false }, Skip},
		{func(c *ClaimCandidate) { c.Status = joinstore.StatusRunning }, Skip},
		{func(c *ClaimCandidate) { c.Paused = true }, Skip},
		{func(c *ClaimCandidate) { c.Killed = true }, Skip},
	}
	for i, c := range cases {
		cand := ready
		c.edit(&cand)
		if got := DispatchGate(cand); got != c.want {
			t.Errorf("case %d: DispatchGate(%+v) = %v, want %v", i, cand, got, c.want)
		}
	}
}
