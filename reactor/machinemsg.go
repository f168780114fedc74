package reactor

import (
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
)

// The session machine (machine.go) talks to its drivers in data only: the
// drivers feed it inputs (what happened) and carry out the commands it
// returns (what to do). Nothing here holds a closure.

// command is one thing the session machine asks its driver to do. Store
// commands (all but cmdExecute, cmdRenew, cmdSleep and cmdDone) are issued
// one at a time: the session's store transitions are never concurrent with
// each other; executions are.
type command interface{ command() }

type (
	// cmdOpen reads the session (the adoption's reads, or joinstore.Open)
	// and loads its orchestration: answered by inOpened.
	cmdOpen struct{}
	// cmdRecover puts processes whose leases expired back in the due set
	// (joinstore.Store.Recover): inRecovered.
	cmdRecover struct{}
	// cmdReap aborts a batch of a killed session's waiting processes with
	// the kill-policy cascade (Reap): inReaped.
	cmdReap struct{}
	// cmdClaim claims Iters, or when Iters is nil what the due set holds
	// now; Earliest claims only the earliest due process (the serial
	// driver). Busy are processes in flight here, not to be claimed again.
	// Answered by inClaimed (its Err is joinstore.ErrSessionKilled when
	// the session was killed: nothing was claimed).
	cmdClaim struct {
		Iters    []int64
		Busy     map[int64]bool
		Earliest bool
	}
	// cmdExecute runs a claimed process's step: inExecuted. Input is its
	// payload when known decoded (nil: decoded from the claim).
	cmdExecute struct {
		Claim joinstore.Claim
		Input map[string]any
	}
	// cmdCommit commits an execution's result: inCommitted.
	cmdCommit struct {
		Claim  joinstore.Claim
		Commit joinstore.Commit
		// Bundle is the step's log bundle, stored once the commit
		// succeeded (nil: bundles are off).
		Bundle *bundleWrite
	}
	// cmdReleaseLease gives a claimed process's lease back without a
	// result, due again at RetryAt (a failed commit, a transient failure
	// of the step): inLeaseReleased.
	cmdReleaseLease struct {
		Claim   joinstore.Claim
		RetryAt time.Time
	}
	// cmdJoinStep runs the join step of Target: DecideJoin, or KillGroup
	// when Kill (a kill-policy cascade): inJoined (its Err is
	// joinstore.ErrNotFound when the target does not exist, ErrJoinBusy
	// when another holder has its join lock).
	cmdJoinStep struct {
		Target int64
		Kill   bool
		// Lock is the target's join lock the commit took along (nil:
		// the step takes it).
		Lock *joinstore.JoinLock
	}
	// cmdWakes performs wake-ups commits queued, each at most once:
	// inWoke.
	cmdWakes struct{ Wakes []joinstore.PendingWake }
	// cmdRenew extends the root lease and the leases of the executions in
	// flight, then reads the session as cmdOpen does (work others left):
	// inRenewed. It runs beside the store commands.
	cmdRenew struct{ Inflight []joinstore.Claim }
	// cmdSleep asks for inTimer at Until.
	cmdSleep struct{ Until time.Time }
	// cmdInspect reads what a hand-back or the end of a serial run needs
	// (live count, next due time, queued wake-ups): inInspected.
	cmdInspect struct{}
	// The hand-back of a replica (machine.handBack decides each next
	// one): mark the session in the root index, or drop it from there,
	// then give the root lease back.
	//
	// cmdMarkRoot marks the session in the root index at At, when it next
	// needs a replica (joinstore.MarkRoot): inMarked.
	cmdMarkRoot struct{ At time.Time }
	// cmdReadDue reads the session's earliest due time
	// (joinstore.NextDue): inDueRead.
	cmdReadDue struct{}
	// cmdUnmarkRoot takes the session out of the root index
	// (joinstore.UnmarkRoot): inUnmarked.
	cmdUnmarkRoot struct{}
	// cmdReadMeta reads the session's meta (joinstore.SessionMeta):
	// inMetaRead.
	cmdReadMeta struct{}
	// cmdReleaseRoot reports the session finished when Finished is set
	// (the "session finished" log line and Lifecycle.Finished, with its
	// meta), then gives the root lease back (joinstore.ReleaseRoot):
	// inReleased.
	cmdReleaseRoot struct{ Finished *joinstore.SessionMeta }
	// cmdReleaseFinished gives back the root lease of a session that
	// ended with this machine's last commit, with the session's deferred
	// index updates (joinstore.ReleaseFinished), and reports it finished
	// with the meta that call reads: inReleased.
	cmdReleaseFinished struct{}
	// cmdDone ends the driver: Err is nil when the session finished.
	cmdDone struct{ Err error }
	// cmdStall hands back a session this replica cannot run (Reason; Kind
	// one of the Stall kinds): Claims, what the adoption claimed, go back
	// due at Until (joinstore.Store.Release), and the stall is recorded on
	// the session (joinstore.Store.Stall): inStalled. The hand-back's mark
	// and release follow.
	cmdStall struct {
		Kind, Reason string
		Claims       []joinstore.Claim
		Until        time.Time
	}
	// cmdUnstall clears the stall record of a session this replica opened
	// (joinstore.Store.Unstall): inUnstalled.
	cmdUnstall struct{}
	// cmdBeginExec puts the claimed process in status executing with its
	// record under Key (joinstore.BeginExec; Flip: the revert flip's own
	// execution), before anything is sent: inExecBegun. A store command.
	cmdBeginExec struct {
		Claim  joinstore.Claim
		Key    string
		Record []byte
		Flip   bool
		// Sealed: the step's logs are sealed; the process is marked so.
		Sealed bool
	}
	// cmdSend sends the execution under Key (execution.Actuator.Send,
	// idempotent per key): inSent. Not a store command.
	cmdSend struct {
		Claim        joinstore.Claim
		Key          string
		Call         execution.Call
		RuleContract common.Address
		// Sealed: the step's logs are sealed; the driver's log lines
		// quote neither the refusal's reason nor the send's error.
		Sealed bool
	}
	// cmdPoll asks for Key's outcome (execution.Actuator.Outcome):
	// inPolled. Not a store command.
	cmdPoll struct {
		Claim joinstore.Claim
		Key   string
		To    common.Address // the call's target, for the log line of a revert
		// Sealed: the step's logs are sealed; the log line withholds the
		// target and the reason.
		Sealed bool
	}
	// cmdFlip renders the step's onInvalid branch after its execution
	// reverted (Flipper): inFlipped. Not a store command.
	cmdFlip struct {
		Claim joinstore.Claim
		Flip  Flip
	}
)

func (cmdOpen) command()            {}
func (cmdRecover) command()         {}
func (cmdReap) command()            {}
func (cmdClaim) command()           {}
func (cmdExecute) command()         {}
func (cmdCommit) command()          {}
func (cmdReleaseLease) command()    {}
func (cmdJoinStep) command()        {}
func (cmdWakes) command()           {}
func (cmdRenew) command()           {}
func (cmdSleep) command()           {}
func (cmdInspect) command()         {}
func (cmdMarkRoot) command()        {}
func (cmdReadDue) command()         {}
func (cmdUnmarkRoot) command()      {}
func (cmdReadMeta) command()        {}
func (cmdReleaseRoot) command()     {}
func (cmdReleaseFinished) command() {}
func (cmdDone) command()            {}
func (cmdStall) command()           {}
func (cmdUnstall) command()         {}
func (cmdBeginExec) command()       {}
func (cmdSend) command()            {}
func (cmdPoll) command()            {}
func (cmdFlip) command()            {}

// input is one thing that happened, fed to the session machine.
type input interface{ input() }

type (
	// inStart starts the machine.
	inStart struct{}
	// inCancel: the driver is told to stop (replica shutdown): drain.
	inCancel struct{}
	// inPoke: work may have become due (a local wake-up).
	inPoke struct{}
	// inTimer: a cmdSleep ended.
	inTimer  struct{}
	inOpened struct {
		Opening joinstore.Opening
		// Claims are processes the adoption claimed.
		Claims []joinstore.Claim
		Orch   *registry.Orchestration
		Err    error
		// Stall is set with Err when the session cannot run on this
		// replica at all (StallUnknownOrchestration, StallHashMismatch):
		// it is handed back and tried again later, not retried at once.
		Stall string
	}
	inStalled   struct{ Err error }
	inUnstalled struct{ Err error }
	inRecovered struct {
		Results map[int64]joinstore.ReleaseResult
		// Resumed are executing processes taken over (their holder
		// stopped): their outcome is polled.
		Resumed []joinstore.Claim
		Err     error
	}
	inReaped struct {
		Res joinstore.KillResult
		Err error
	}
	inClaimed struct {
		Claims []joinstore.Claim
		// Asked is how many were asked for (fewer claimed: the window is
		// full, or one is not due yet).
		Asked int
		// Next is the earliest later due time when the due set was read
		// (NextOK false when none, or when it was not read: ReadDue).
		Next            time.Time
		NextOK, ReadDue bool
		Err             error
	}
	inExecuted  struct{ R result }
	inCommitted struct {
		Res joinstore.CommitResult
		Err error
	}
	inLeaseReleased struct{ Err error }
	inJoined        struct {
		Target int64
		Res    joinstore.JoinResult
		// Applied are the deliveries the decisions applied.
		Applied []Applied
		Err     error
	}
	inWoke struct {
		// Outcomes are the timeline's wake-up lines.
		Outcomes []Event
		Err      error
	}
	inRenewed struct {
		Opening joinstore.Opening
		// Read: Opening was read (the session still exists).
		Read bool
		Err  error
	}
	inInspected struct {
		Live        int64
		Finished    bool
		Next        time.Time
		NextOK      bool
		PendingWake bool
		Err         error
	}
	inMarked   struct{ Err error }
	inUnmarked struct{ Err error }
	inDueRead  struct {
		Next   time.Time
		NextOK bool
		Err    error
	}
	inMetaRead struct {
		Meta joinstore.SessionMeta
		Err  error
	}
	inReleased  struct{}
	inExecBegun struct {
		Iter int64
		Res  joinstore.BeginResult
		Err  error
	}
	inSent struct {
		Iter int64
		Err  error
	}
	inPolled struct {
		Iter    int64
		Outcome execution.Outcome
		OK      bool
		Err     error
	}
	inFlipped struct {
		Iter int64
		R    Result
		Err  error
	}
)

func (inStart) input()         {}
func (inCancel) input()        {}
func (inPoke) input()          {}
func (inTimer) input()         {}
func (inOpened) input()        {}
func (inRecovered) input()     {}
func (inReaped) input()        {}
func (inClaimed) input()       {}
func (inExecuted) input()      {}
func (inCommitted) input()     {}
func (inLeaseReleased) input() {}
func (inJoined) input()        {}
func (inWoke) input()          {}
func (inRenewed) input()       {}
func (inInspected) input()     {}
func (inMarked) input()        {}
func (inUnmarked) input()      {}
func (inDueRead) input()       {}
func (inMetaRead) input()      {}
func (inReleased) input()      {}
func (inExecBegun) input()     {}
func (inSent) input()          {}
func (inPolled) input()        {}
func (inFlipped) input()       {}
func (inStalled) input()       {}
func (inUnstalled) input()     {}

// EventType names a line of a session's timeline.
type EventType string

// The timeline's vocabulary. The session machine emits them, the same on
// both drivers, numbered in causal order (Event.Seq).
const (
	EvClaimed     EventType = "claimed"
	EvExecuted    EventType = "executed"
	EvRetry       EventType = "retry"
	EvSpawned     EventType = "spawned"
	EvGated       EventType = "gated"
	EvDelivered   EventType = "delivered"
	EvIgnored     EventType = "ignored"
	EvJoinClosed  EventType = "join_closed"
	EvPromoted    EventType = "promoted"
	EvJoinAborted EventType = "join_aborted"
	EvKilled      EventType = "killed"
	EvCancelled   EventType = "cancelled"
	EvCapped      EventType = "capped"
	EvAborted     EventType = "aborted"
	EvRecovered   EventType = "recovered"
	EvWakeUp      EventType = "wakeup"
	// EvExecuting: the step's selected branch executes; the process is
	// executing until the outcome is final.
	EvExecuting EventType = "executing"
	// EvExecOutcome: an execution's outcome is final.
	EvExecOutcome EventType = "exec_outcome"
)

// Event is one line of a session's timeline. Seq numbers a session's
// lines in causal order (the order the session machine decided them);
// several may share one millisecond.
type Event struct {
	Seq    uint64    `json:"seq"`
	At     time.Time `json:"at"`
	Type   EventType `json:"type"`
	Pid    string    `json:"pid,omitempty"`
	Step   string    `json:"step,omitempty"`
	Detail string    `json:"detail,omitempty"`
}
