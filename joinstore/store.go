package joinstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/registry"
)

// Config tunes the store.
type Config struct {
	// SessionTTL is how long finished process records and finished sessions
	// stay readable (XGR_SESSION_TTL_SECS, default 86400 s).
	SessionTTL time.Duration
	// StepsCap bounds the proc_steps stream of one session (approximate
	// trimming; default 100000 entries) so that endless loops stay bounded.
	StepsCap int
	// MaxPayloadBytes caps a process's payload: a start payload, a step's
	// next payload, a woken process's merged payload (default
	// DefaultMaxPayload).
	MaxPayloadBytes int
	// ServerClock makes Redis's own clock (TIME, in the scripts) judge
	// every lease and due decision, so replicas whose clocks disagree still
	// agree on when a lease expired or a process is due; the times callers
	// pass are then used only for reads that merely look for work. Without
	// it the caller's clock decides (a simulation's virtual clock, tests).
	ServerClock bool
	// MaxLive caps a session's live processes and MaxSteps its committed
	// steps (defaults DefaultMaxLive, DefaultMaxSteps; negative: no cap). A
	// commit over either kills the session with the reason.
	MaxLive, MaxSteps int
	// GasCeiling is the operator's ceiling of a session's gas, validation
	// and execution gas together (XGR_SESSION_GAS_CEILING; default
	// DefaultGasCeiling; negative: none). A session's budget is its
	// permit's maxTotalGas, at most this; a commit that takes the
	// session's gas over its budget kills the session (OutcomeBudget).
	GasCeiling int64
	// MaxRecoveries is how many times a process may be recovered from an
	// expired lease (its replica stopped while it ran) before the recovery
	// that reaches it aborts the process instead (default
	// DefaultMaxRecoveries; negative: never).
	MaxRecoveries int
	// Batch, when positive, sends the transitions of concurrent sessions
	// in shared pipelines, with this many pipelines in flight at once: one
	// round trip carries many sessions' scripts. 0 runs each script on its
	// own.
	Batch int
	// StartGrace is how long after a start's first index write replicas
	// look at its session at the latest, should the start's last call
	// (indexing it at its due time) not arrive (default DefaultStartGrace).
	StartGrace time.Duration
	// Quotas are the owners' quotas the store enforces at start and commit
	// (docs/operating.md "Tenancy"; none by default); SetQuotas replaces
	// them.
	Quotas Quotas
	// SlotChunk is how many process slots a session is granted from its
	// owner's live process quota at a time (default DefaultSlotChunk).
	SlotChunk int
	// Unmetered: this store's sessions are no owner's billable usage (xgr
	// simulate on a shared Redis): their ends are not metered and leave
	// no meter keys.
	Unmetered bool
	// Log receives what the store finds wrong with Redis's data (lost
	// acknowledged writes); nil: slog's default logger.
	Log *slog.Logger
}

// Default session caps: generous for real orchestrations (a 128-step
// document with 32-way joins stays far below), small enough that a runaway
// session is stopped before it fills Redis.
const (
	DefaultMaxLive  = 10000
	DefaultMaxSteps = 1000000
	// DefaultGasCeiling bounds a session's gas when neither the operator
	// nor the permit sets a budget: about 40,000 steps of the public
	// IterationOfPi rule (23,450 validation gas each).
	DefaultGasCeiling = 1_000_000_000
)

// DefaultMaxRecoveries: a step whose runs stopped three replicas is not
// run a fourth time. A replica's restart or kill -9 costs a step one
// recovery; a step that crashes every replica that runs it costs them all.
const DefaultMaxRecoveries = 3

// DefaultMaxPayload is the default payload cap: 256 KiB, twice the largest
// XRC-137 document (MaxXRC137Bytes) and far above what a branch can write
// (64 keys of at most 8 KiB strings).
const DefaultMaxPayload = 256 << 10

// ErrPayloadTooLarge: a payload is over the store's MaxPayloadBytes.
var ErrPayloadTooLarge = errors.New("payload too large")

// MaxPayload is the payload cap in bytes.
func (s *Store) MaxPayload() int { return s.cfg.MaxPayloadBytes }

// CheckPayloadSize refuses a payload over the cap, naming both sizes
// (ErrPayloadTooLarge): for a payload whose shape was checked when it was
// stored, passed on unchanged.
func (s *Store) CheckPayloadSize(what string, p []byte) error {
	if len(p) > s.cfg.MaxPayloadBytes {
		return fmt.Errorf("%s is %d bytes, at most %d are allowed (XGR_MAX_PAYLOAD): %w", what, len(p), s.cfg.MaxPayloadBytes, ErrPayloadTooLarge)
	}
	return nil
}

// CheckPayload refuses a payload over the cap, naming both sizes
// (ErrPayloadTooLarge), and one of a shape CheckPayloadShape refuses
// (ErrPayloadShape).
func (s *Store) CheckPayload(what string, p []byte) error {
	if err := s.CheckPayloadSize(what, p); err != nil {
		return err
	}
	return CheckPayloadShape(what, p)
}

// Store is the Redis-backed session store. It is safe for concurrent use and
// works with a single node, a Redis Cluster or Sentinel (redis.UniversalClient).
type Store struct {
	rdb   redis.UniversalClient
	cfg   Config
	batch *batcher
	// args are the config values every commit passes, boxed once.
	args struct{ ttl, stepsCap, maxLive, maxSteps, gasCeiling any }
	// startHook, when set (tests), runs before each call of a start
	// after the allocation ("index-entry", "create", "index"); an error
	// stands for that call failing.
	startHook func(stage string) error
	// repairHook, when set (tests), runs in RepairCounters after each
	// read of an owner's counter.
	repairHook func(owner string)
	// quotas are Config.Quotas until SetQuotas replaces them.
	quotas atomic.Pointer[quotaState]
	// meterHook is told of each session this store metered (SetMeterHook).
	meterHook atomic.Pointer[func(SessionUsage)]
	execHook  atomic.Pointer[func(ExecUsage)]
}

// eval runs one transition script, through the shared pipelines when the
// store batches; one a migrating slot refused is sent again (refused.go).
func (s *Store) eval(ctx context.Context, script *redis.Script, keys []string, args ...any) *redis.Cmd {
	if s.batch != nil {
		return s.batch.eval(ctx, script, keys, args...)
	}
	return runUntilRun(ctx, func() *redis.Cmd { return script.Run(ctx, s.rdb, keys, args...) })
}

// pipelined sends the commands fn adds in one pipeline, a shared one when
// the store batches (Config.Batch), and returns their first error.
func (s *Store) pipelined(ctx context.Context, fn func(redis.Pipeliner)) error {
	if s.batch != nil {
		_, err := s.batch.pipelined(ctx, fn)
		return err
	}
	pipe := s.rdb.Pipeline()
	fn(pipe)
	cmds := sendOnce(ctx, s.rdb, pipe)
	resendRefused(ctx, s.rdb, cmds)
	return firstErr(cmds)
}

// New returns a store on the given client.
func New(rdb redis.UniversalClient, cfg Config) *Store {
	if cfg.SessionTTL <= 0 {
		cfg.SessionTTL = 86400 * time.Second
	}
	if cfg.StepsCap <= 0 {
		cfg.StepsCap = 100000
	}
	if cfg.MaxRecoveries == 0 {
		cfg.MaxRecoveries = DefaultMaxRecoveries
	}
	if cfg.MaxPayloadBytes <= 0 {
		cfg.MaxPayloadBytes = DefaultMaxPayload
	}
	if cfg.MaxLive == 0 {
		cfg.MaxLive = DefaultMaxLive
	}
	if cfg.StartGrace <= 0 {
		cfg.StartGrace = DefaultStartGrace
	}
	if cfg.MaxSteps == 0 {
		cfg.MaxSteps = DefaultMaxSteps
	}
	if cfg.SlotChunk <= 0 {
		cfg.SlotChunk = DefaultSlotChunk
	}
	if cfg.GasCeiling == 0 {
		cfg.GasCeiling = DefaultGasCeiling
	}
	st := &Store{rdb: rdb, cfg: cfg}
	st.SetQuotas(cfg.Quotas)
	st.args.ttl, st.args.stepsCap = int64(cfg.SessionTTL/time.Second), cfg.StepsCap
	st.args.maxLive, st.args.maxSteps, st.args.gasCeiling = max(cfg.MaxLive, 0), max(cfg.MaxSteps, 0), max(cfg.GasCeiling, 0)
	if cfg.Batch > 0 {
		st.batch = newBatcher(rdb, cfg.Batch)
	}
	return st
}

func ms(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) }

// clock is the "now" a script decides with: the caller's, or "" for the
// server's own clock (Config.ServerClock).
func (s *Store) clock(now time.Time) string {
	if s.cfg.ServerClock {
		return ""
	}
	return ms(now)
}

// after is the time from now to at in ms (never negative): scripts add it to
// their own now.
func after(now, at time.Time) int64 { return max(at.Sub(now).Milliseconds(), 0) }

// DueIters returns up to limit iters of the session whose nextWakeAt has come.
func (s *Store) DueIters(ctx context.Context, root Root, now time.Time, limit int) ([]int64, error) {
	ids, err := s.rdb.ZRangeArgs(ctx, redis.ZRangeArgs{
		Key: keysOf(root).due(), Start: "-inf", Stop: ms(now), ByScore: true, Count: int64(limit),
	}).Result()
	if err != nil {
		return nil, err
	}
	return parseIters(ids, "due set", root)
}

// parseIters reads the members of a set of iters.
func parseIters(ids []string, what string, root Root) ([]int64, error) {
	out := make([]int64, 0, len(ids))
	for _, id := range ids {
		n, err := strconv.ParseInt(id, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s of %s holds %q", what, root, id)
		}
		out = append(out, n)
	}
	return out, nil
}

// StepLimits says, for one step of the orchestration, how many child iters a
// claim reserves (the most processes one of its branches creates) and
// whether it may run when the session's window is full (join-creating steps).
type StepLimits struct {
	Reserve int
	Bypass  bool
}

// StepTable maps step ids to their limits.
type StepTable map[string]StepLimits

// MarshalJSON encodes the table as the claim script reads it.
func (t StepTable) MarshalJSON() ([]byte, error) {
	m := make(map[string][2]int, len(t))
	for id, l := range t {
		b := 0
		if l.Bypass {
			b = 1
		}
		m[id] = [2]int{l.Reserve, b}
	}
	return json.Marshal(m)
}

// Claim is a process handed to a worker under an inFlight lease.
type Claim struct {
	Root  Root
	Iter  int64
	Pid   string
	Token int64
	// Reserved child iters: [FirstChild, FirstChild+Reserve).
	FirstChild    int64
	Reserve       int
	ResumeStep    string
	ResumePlain   json.RawMessage
	ParentPid     string
	JoinGroupID   string
	ThreadHeadPid string
	// GroupTarget is the iter of the join target fed by the process's
	// group (0 when the group has none).
	GroupTarget int64
	LeaseUntil  time.Time
	// Exec is the execution of a process taken over while it executes
	// (ResumeExec); nil for a claim of a process that has not run.
	Exec *ProcExecution

	// keys are the session's keys as script arguments, self and group this
	// process's record and group keys (boxed): kept from the commit that
	// claimed it, so that its own commit names them without allocating
	// (nil: made when needed).
	keys        *sessionKeys
	self, group any
}

// targetKeys are the target-of-group keys a transition needs; a group without
// a target passes the process's own key as a same-slot placeholder.
func (k keys) targetKeys(target, self int64) (proc, queue string, arg string) {
	if target == 0 {
		return k.proc(self), k.joinQueue(0), ""
	}
	return k.proc(target), k.joinQueue(target), strconv.FormatInt(target, 10)
}

// Claim moves the given iters that are still due, waiting, unpaused and not
// killed to running, each under a new lease with a fresh fencing token and
// a reservation of child iters, until the session's window is full. Those
// whose group's join closed with kill are aborted instead (the dispatch
// gate: abortReason "gated"). One round trip when no candidate the gate
// looks at is in a group with a join target; else a second one, with those
// groups' target records and member hashes declared (claim.lua reaches
// declared keys only, and writes nothing in the first).
func (s *Store) Claim(ctx context.Context, root Root, now time.Time, lease time.Duration, worker string, steps StepTable, iters []int64) ([]Claim, error) {
	if len(iters) == 0 {
		return nil, nil
	}
	table, err := json.Marshal(steps)
	if err != nil {
		return nil, err
	}
	k := keysOf(root)
	keys, args := s.claimArgs(k, now, lease, worker, table, iters)
	vals, err := s.eval(ctx, scriptClaim, keys, args...).StringSlice()
	if err == nil && len(vals) > 0 && vals[0] == "need" {
		// A candidate's group has a join target: the dispatch gate reads
		// the target's record and may remove the candidate from the group.
		// The script wrote nothing; repeat once with those keys declared.
		// A candidate that needs keys still not declared then (its state
		// changed meanwhile) is skipped and stays due for the next claim.
		keys = claimNeeds(k, keys, vals[1:])
		args[5] = "1"
		vals, err = s.eval(ctx, scriptClaim, keys, args...).StringSlice()
	}
	if err != nil {
		return nil, fmt.Errorf("claim in %s: %w", root, err)
	}
	if len(vals) == 1 && vals[0] == "killed" {
		return nil, fmt.Errorf("claim in %s: %w", root, ErrSessionKilled)
	}
	if n := len(vals); n > 0 && vals[n-1] == "finished" {
		// The dispatch gate aborted the session's last live processes:
		// its records get their time to live (forget_root) and the
		// indexes learn it.
		vals = vals[:n-1]
		s.MarkFinished(ctx, root, now)
	}
	const fields = 9
	out := make([]Claim, 0, len(vals)/fields)
	for i := 0; i+fields <= len(vals); i += fields {
		iter, _ := strconv.ParseInt(vals[i], 10, 64)
		token, _ := strconv.ParseInt(vals[i+1], 10, 64)
		first, _ := strconv.ParseInt(vals[i+2], 10, 64)
		target, _ := strconv.ParseInt(vals[i+8], 10, 64)
		out = append(out, Claim{
			Root: root, Iter: iter, Pid: root.Pid(iter), Token: token, FirstChild: first, Reserve: steps[vals[i+3]].Reserve,
			ResumeStep: vals[i+3], ResumePlain: json.RawMessage(vals[i+4]), ParentPid: vals[i+5],
			JoinGroupID: vals[i+6], ThreadHeadPid: vals[i+7], GroupTarget: target, LeaseUntil: now.Add(lease),
		})
	}
	return out, nil
}

// claimArgs are the keys and arguments of claim.lua's first call.
func (s *Store) claimArgs(k keys, now time.Time, lease time.Duration, worker string, table []byte, iters []int64) ([]string, []any) {
	keys := make([]string, 0, 4+len(iters))
	keys = append(keys, k.meta(), k.due(), k.run(), k.targets())
	args := make([]any, 0, 6+len(iters))
	args = append(args, s.clock(now), lease.Milliseconds(), worker, string(table), int64(s.cfg.SessionTTL/time.Second), "0")
	for _, it := range iters {
		keys = append(keys, k.proc(it))
		args = append(args, it)
	}
	return keys, args
}

// claimNeeds adds to keys the keys a "need" reply of claim.lua names (per
// candidate: iter, group, target): the target's record and the group's
// member hash, each once.
func claimNeeds(k keys, keys []string, need []string) []string {
	have := make(map[string]bool, len(keys))
	for _, key := range keys {
		have[key] = true
	}
	for i := 0; i+3 <= len(need); i += 3 {
		target, err := strconv.ParseInt(need[i+2], 10, 64)
		if err != nil {
			continue
		}
		for _, key := range []string{k.proc(target), k.group(need[i+1])} {
			if !have[key] {
				have[key] = true
				keys = append(keys, key)
			}
		}
	}
	return keys
}

// NextDue returns the earliest nextWakeAt in the session's due set (zero and
// false when nothing is due at any time).
func (s *Store) NextDue(ctx context.Context, root Root) (time.Time, bool, error) {
	z, err := s.rdb.ZRangeWithScores(ctx, keysOf(root).due(), 0, 0).Result()
	if err != nil || len(z) == 0 {
		return time.Time{}, false, err
	}
	return time.UnixMilli(int64(z[0].Score)), true, nil
}

// Renew extends a lease; ErrLeaseLost when it is no longer current.
func (s *Store) Renew(ctx context.Context, c Claim, now time.Time, lease time.Duration) (time.Time, error) {
	k := keysOf(c.Root)
	until, err := s.eval(ctx, scriptRenewLease, []string{k.proc(c.Iter), k.run()}, c.Iter, c.Token, s.clock(now), lease.Milliseconds()).Int64()
	if err != nil {
		return time.Time{}, scriptError(err)
	}
	return time.UnixMilli(until), nil
}

// ReleaseResult says what Release did.
type ReleaseResult string

// Release results.
const (
	// Released: the process is waiting again, due at retryAt.
	Released ReleaseResult = "released"
	// Gated: its group's join closed with kill meanwhile; it was aborted.
	Gated ReleaseResult = "gated"
	// Killed: it was killed while it ran; it was aborted (and failed at its
	// group's open join target: run PendingJoins).
	Killed ReleaseResult = "killed"
	// Abandoned: recovered from an expired lease MaxRecoveries times; it
	// was aborted with the reason instead of being run again (and failed
	// at its group's open join target: run PendingJoins).
	Abandoned ReleaseResult = "abandoned"
	// Stale: the lease was no longer current; nothing changed (a second
	// release is a visible no-op).
	Stale ReleaseResult = "stale"
	// Executing: the process executes (its execution was sent); it was
	// left as it is: its new holder takes it over (ResumeExec).
	Executing ReleaseResult = "executing"
)

// Release gives a lease back without a result (the execution failed before
// producing one).
func (s *Store) Release(ctx context.Context, c Claim, now, retryAt time.Time) (ReleaseResult, error) {
	return s.release(ctx, c, now, retryAt, "")
}

func (s *Store) release(ctx context.Context, c Claim, now, retryAt time.Time, recovery string) (ReleaseResult, error) {
	k := keysOf(c.Root)
	tproc, tqueue, targ := k.targetKeys(c.GroupTarget, c.Iter)
	res, err := s.eval(ctx, scriptReleaseLease,
		append([]string{k.proc(c.Iter), k.run(), k.due(), k.meta(), k.group(c.JoinGroupID), tproc, tqueue, k.jpend()}, k.records()...),
		c.Iter, c.Token, s.clock(now), after(now, retryAt), targ, int64(s.cfg.SessionTTL/time.Second), recovery, max(s.cfg.MaxRecoveries, 0)).Text()
	if err != nil {
		return Stale, err
	}
	if res == string(Killed) || res == string(Gated) || res == string(Abandoned) {
		if meta, err := s.rdb.HGet(ctx, k.meta(), "status").Result(); err == nil && meta == "finished" {
			s.finished(ctx, c.Root, now)
		}
	}
	return ReleaseResult(res), nil
}

// Child is a process a commit creates.
type Child struct {
	Iter        int64
	ResumeStep  string
	NextWakeAt  time.Time
	ResumePlain json.RawMessage
	JoinGroupID string
	// Join makes the child a join target fed by the fresh group Join.FromGroup.
	Join *JoinSpec
	// Reserve is how many child iters a claim of the child reserves, and
	// Bypass whether it may run when the session's window is full (its
	// step's StepLimits), for a claim in the commit that creates it.
	Reserve int
	Bypass  bool
}

// JoinSpec configures a join target.
type JoinSpec struct {
	// FromGroup is the fresh group of the join's producers (by convention the
	// target's own iter in decimal).
	FromGroup string
	From      []registry.From
	K         int
	Policy    registry.Policy
	// Reach is, for each from node, the steps of the join group's scope
	// that can reach it (registry.Orchestration.CanReach; reactor.JoinReach
	// computes it). The target's record keeps it, so that a commit
	// delivering to the target can decide its join in the same script
	// (Commit.DecideJoin). Nil: its join is decided by join steps only.
	Reach map[string][]string
}

// Commit is the result of one execution.
type Commit struct {
	// Status is "done" or "aborted".
	Status string
	// Valid is the rule's verdict; nil when the step did not evaluate.
	Valid  *bool
	Digest string
	Worker string
	// Payload is the process's next payload (input overlaid by output): it
	// is recorded and delivered to the group's join target.
	Payload  json.RawMessage
	Children []Child
	// AbortReason says why an aborted step aborted (a hard error); it is
	// kept on the process and in its proc_steps entry.
	AbortReason string
	// WakeUps are the branch's wake-ups (opaque JSON, one object each): the
	// commit queues them for the caller to perform
	// (PendingWakes, WakeDone) with the ids "<owner>:<pid>#<n>", unique
	// across sessions. A killed process queues none.
	WakeUps []json.RawMessage
	// CancelSession, when not empty, is why the step cancels its session
	// (an XRC-137 cancelSession rule held): the commit kills the session
	// with this reason through the same bounded path as a cap or an
	// operator's kill (killedAt, killReason), records the step aborted with
	// it and creates nothing; CommitResult.Cancelled reports it.
	CancelSession string
	// ClaimLease, when positive, claims the children that are ready now
	// (due now, not paused, not join targets, within the window) in the
	// same step, each under a lease of this duration.
	ClaimLease time.Duration
	// DeferFinish leaves the cross-slot index updates of a session that
	// finishes with this commit to the caller (Finished), which may
	// batch them with its release.
	DeferFinish bool
	// ExecOutcome is the final outcome of the step's execution (JSON),
	// kept on the process (execOutcome); nil when it executed nothing.
	ExecOutcome json.RawMessage
	// Sealed: the step's rule asks for sealed logs. The process is marked
	// sealed (Process.Sealed) and its execution record is dropped; the
	// caller gives AbortReason and ExecOutcome without payload values.
	Sealed bool
	// LockTarget, when set and the process's group has a join target,
	// takes that target's join lock for this duration in the commit's own
	// round trip, right after the commit in one pipeline (join_lock.lua
	// sees the delivery): the join step that follows needs one round trip
	// instead of two (CommitResult.Lock, JoinStepLocked).
	LockTarget time.Duration
	// DecideJoin decides joins in the commit's own script
	// (lua/lib/join_decide.lua: the same decision as reactor.DecideJoin)
	// and claims the children the decisions left waiting (CommitResult.Joins):
	// the first decision of every join the commit creates whose target has
	// its reachability (JoinSpec.Reach), then, when the process's group has
	// an open join target, the commit's delivery and that join's decision —
	// a join-closing step in one round trip. The delivery falls back to a
	// pending one (CommitResult.DeliveredTo, for a join step) when the
	// target's join lock is held, its record has no reachability or a
	// pending delivery has no canonical payload. Payload must then be a
	// JSON object.
	DecideJoin bool
	// Gas is the step's gas: its validation gas and its execution's gas
	// used. The commit adds it to the session's (SessionMeta.GasUsed) and
	// to the step's proc_steps entry, and kills the session when it goes
	// over the session's budget (Config.GasCeiling; CommitResult.Capped,
	// OutcomeBudget).
	Gas uint64
	// Bundle, when set, is written with the commit, atomically: kept if
	// and only if the commit applies (BundleWrite; CommitResult.Bundle,
	// Steps).
	Bundle *BundleWrite
}

// JoinDecided is a join decided inside a commit (Commit.DecideJoin).
type JoinDecided struct {
	Target int64
	// Verdict is VerdictOpen, VerdictSatisfied or VerdictUnfulfillable.
	Verdict string
	// Applied are the deliveries applied, in order, with what each did
	// (reactor.DeliveryResult's names: delivered, failed, ignored_…).
	Applied []AppliedDelivery
	// Killed are the waiting members a close with kill aborted.
	Killed []int64
	// FollowUps are targets that need a join step now: the parent target
	// an aborted target failed into when it could not be decided in the
	// commit, and kill-policy targets the kill aborted (Kill).
	FollowUps []FollowUp
}

// AppliedDelivery is one delivery a join applied and what it did.
type AppliedDelivery struct {
	Pid, From, Result string
}

// PendingWake is a committed wake-up not yet performed.
type PendingWake struct {
	// ID is "<owner>:<pid>#<n>", unique per committed step and wake-up.
	ID    string
	Entry json.RawMessage
}

// CommitResult reports what a commit did.
type CommitResult struct {
	// Killed is true when the process was killed while running: it was
	// recorded aborted and created no children.
	Killed bool
	// Live is the number of live processes left in the session; 0 means
	// the session finished.
	Live int64
	// DeliveredTo is the target that got a pending delivery (0 = none): run
	// its join step.
	DeliveredTo int64
	// Gated counts children dropped by the spawn gate.
	Gated int
	// Wakes are the wake-ups this commit queued: perform each, then WakeDone.
	Wakes []PendingWake
	// Capped is the reason when this commit went over a session cap and
	// killed the session ("" otherwise; Killed is then true).
	Capped string
	// Cancelled is true when this commit cancelled its session
	// (Commit.CancelSession; Killed is then true).
	Cancelled bool
	// Steps is the session's count of committed steps after this commit
	// when the commit read it back (one with Commit.Bundle); 0 otherwise.
	Steps int64
	// Bundle is true when Commit.Bundle was written (false: it was there
	// already, or none was asked); BundleErr is the first error of the
	// commands its Before queued.
	Bundle    bool
	BundleErr error
	// Claims are the children the commit claimed (Commit.ClaimLease):
	// running under their own leases, to be executed by the caller.
	Claims []Claim
	// Joins are the joins the commit decided (Commit.DecideJoin), in order:
	// its group's target first, then targets that target failed into.
	Joins []JoinDecided
	// Lock is the join lock of the target the commit delivered to, taken
	// in the commit's round trip (Commit.LockTarget), with what the join
	// step needs to decide: pass it to JoinStepLocked. Nil when none was
	// taken (not asked, nothing delivered, another holder has it).
	Lock *JoinLock
}

// Commit records the result of the claimed execution with its token. A stale
// token returns ErrLeaseLost and changes nothing. With r.ClaimLease set, the
// children that are ready now are claimed in the same atomic step
// (CommitResult.Claims) under leases of that duration.
func (s *Store) Commit(ctx context.Context, c Claim, now time.Time, r Commit) (CommitResult, error) {
	if r.Status != "done" && r.Status != "aborted" {
		return CommitResult{}, fmt.Errorf("commit %s: status %q: want done or aborted", c.Pid, r.Status)
	}
	sk := c.sessionKeys()
	c.keys = sk
	self, group := c.self, c.group
	if self == nil {
		self, group = sk.proc(c.Iter), sk.groupKey(c.JoinGroupID)
	}
	// KEYS[8], [9], [12]: the group target's record, queue and join lock;
	// without a target, the process's own key and jq:0 stand in.
	tproc, tqueue, tlock, targ := self, sk.noQueue, self, any("")
	if c.GroupTarget != 0 {
		tproc, tqueue, tlock, targ = sk.proc(c.GroupTarget), sk.joinQueue(c.GroupTarget), sk.joinLock(c.GroupTarget), strconv.FormatInt(c.GroupTarget, 10)
	}
	created := 0 // join targets among the children
	for _, ch := range r.Children {
		if ch.Join != nil {
			created++
		}
	}
	nkeys := commitKeys + 2*len(r.Children) + 3*created
	argv := scriptArgv(commitStepHash, nkeys, nkeys+commitArgs+commitChildArgs*len(r.Children)+2*len(r.WakeUps))
	argv = append(argv, sk.meta, sk.run, sk.due, sk.steps, self, sk.targets, group, tproc, tqueue, sk.jpend, sk.wq, tlock)
	for _, ch := range r.Children {
		argv = append(argv, sk.proc(ch.Iter), sk.groupKey(ch.JoinGroupID))
	}
	for _, ch := range r.Children {
		if ch.Join != nil {
			// A created join's own keys: its decision in the script reaches
			// only declared keys.
			argv = append(argv, sk.group(strconv.FormatInt(ch.Iter, 10)), sk.joinLock(ch.Iter), sk.joinQueue(ch.Iter))
		}
	}
	var valid any = ""
	if r.Valid != nil {
		valid = "0"
		if *r.Valid {
			valid = "1"
		}
	}
	payload := r.Payload
	if len(payload) == 0 {
		payload = json.RawMessage("{}")
	}
	// The join decisions: "" (a constant: no allocation on a plain step),
	// or the payload cap and, with a delivery, the canonical payload.
	var joins any = ""
	if r.DecideJoin && c.GroupTarget != 0 {
		canon, err := canonicalObject(payload)
		if err != nil {
			return CommitResult{}, fmt.Errorf("commit %s: payload: %w", c.Pid, err)
		}
		joins = strconv.Itoa(s.cfg.MaxPayloadBytes) + " " + string(canon)
	} else if r.DecideJoin {
		for _, ch := range r.Children {
			if ch.Join != nil && ch.Join.Reach != nil {
				joins = strconv.Itoa(s.cfg.MaxPayloadBytes)
			}
		}
	}
	// Payloads go as bytes: the script sees the same string, and no copy
	// is made.
	argv = append(argv, c.Iter, c.Token, s.clock(now), statusArg(r.Status), valid, r.Digest, r.Worker,
		s.args.ttl, s.args.stepsCap, targ, []byte(payload), r.AbortReason,
		s.args.maxLive, s.args.maxSteps, r.ClaimLease.Milliseconds(), len(r.Children), r.CancelSession, []byte(r.ExecOutcome),
		joins, sealedArg(r.Sealed), r.Gas, s.args.gasCeiling)
	for _, ch := range r.Children {
		var plain any = ""
		switch {
		case len(ch.ResumePlain) == 0:
			plain = "{}"
		case !sameBytes(ch.ResumePlain, payload):
			plain = []byte(ch.ResumePlain)
		}
		wake := ch.NextWakeAt
		if wake.IsZero() {
			wake = now
		}
		bypass := 0
		if ch.Bypass {
			bypass = 1
		}
		argv = append(argv, ch.Iter, ch.ResumeStep, after(now, wake), plain, ch.JoinGroupID, ch.Reserve, bypass)
		if j := ch.Join; j != nil {
			expect := make([]string, len(j.From))
			when := make(map[string]string, len(j.From))
			for i, f := range j.From {
				expect[i], when[f.Node] = f.Node, f.When.String()
			}
			e, _ := json.Marshal(expect)
			w, _ := json.Marshal(when)
			policy := j.Policy.String()
			if j.Reach != nil {
				rb, err := json.Marshal(nonNilLists(j.Reach))
				if err != nil {
					return CommitResult{}, fmt.Errorf("commit %s: child %d: reach: %w", c.Pid, ch.Iter, err)
				}
				policy += " " + string(rb) // the script splits them at the space
			}
			argv = append(argv, j.FromGroup, e, w, j.K, policy)
		} else {
			argv = append(argv, "", "", "", "", "")
		}
	}
	wakes := make([]PendingWake, len(r.WakeUps))
	for i, w := range r.WakeUps {
		wakes[i] = PendingWake{ID: c.Root.Owner + ":" + c.Pid + "#" + strconv.Itoa(i), Entry: w}
		argv = append(argv, wakes[i].ID, []byte(w))
	}
	vals, lock, bo, err := s.commitRun(ctx, c, r, argv)
	for try := 0; isQuota(err) && try < 3; try++ {
		// Over the slots the owner granted the session: more slots, or
		// the session killed (quota.go); then the same commit again.
		if qerr := s.quotaCommit(ctx, c, now, err); qerr != nil {
			return CommitResult{}, fmt.Errorf("commit %s: %w", c.Pid, qerr)
		}
		vals, lock, bo, err = s.commitRun(ctx, c, r, argv)
	}
	if err != nil {
		return CommitResult{}, fmt.Errorf("commit %s: %w", c.Pid, scriptError(err))
	}
	res := CommitResult{Killed: vals[0] == "killed", Steps: bo.steps, Bundle: bo.stored, BundleErr: bo.before}
	if !res.Killed {
		res.Wakes = wakes
	}
	res.Live, _ = vals[1].(int64)
	if to, _ := vals[2].(string); to != "" {
		res.DeliveredTo, _ = strconv.ParseInt(to, 10, 64)
	}
	gated, _ := vals[3].(int64)
	res.Gated = int(gated)
	res.Capped, _ = vals[4].(string)
	if r.CancelSession != "" && res.Capped == r.CancelSession {
		res.Capped, res.Cancelled = "", true
	}
	if len(vals) > 5 {
		if res.Joins, err = parseJoins(c.Root, vals[5]); err != nil {
			return res, fmt.Errorf("commit %s: %w", c.Pid, err)
		}
	}
	if len(vals) > 6 {
		res.Claims = claimedChildren(c, r, argv, vals[6:], now)
	}
	if lock != nil {
		if res.DeliveredTo == c.GroupTarget {
			res.Lock = lock
		} else {
			// The commit delivered nothing (its target was decided, or it
			// was killed): the lock it took along is given back.
			s.eval(ctx, scriptJoinUnlock, []string{keysOf(c.Root).joinLock(lock.View.Target)}, lock.token)
		}
	}
	if res.Live <= 0 && len(res.Wakes) == 0 && !r.DeferFinish {
		s.finished(ctx, c.Root, now)
	}
	if res.Capped != "" {
		// Replicas observe the kill at their next claim; look now.
		s.MarkRoot(ctx, c.Root, now)
	}
	return res, nil
}

// claimedChildren turns the commit's claims ("iter token first [target]"
// each: iter, fencing token, first reserved iter, its group's join target)
// into claims; the rest of each claim is what the commit created, known
// here already.
func claimedChildren(c Claim, r Commit, argv []any, vals []any, now time.Time) []Claim {
	out := make([]Claim, 0, len(vals))
	for _, v := range vals {
		text, _ := v.(string)
		f0, rest, _ := strings.Cut(text, " ")
		f1, rest, _ := strings.Cut(rest, " ")
		f2, f3, _ := strings.Cut(rest, " ")
		iter, _ := strconv.ParseInt(f0, 10, 64)
		token, _ := strconv.ParseInt(f1, 10, 64)
		first, _ := strconv.ParseInt(f2, 10, 64)
		groupTarget, _ := strconv.ParseInt(f3, 10, 64) // 0 when none
		n := -1
		for j := range r.Children {
			if r.Children[j].Iter == iter {
				n = j
				break
			}
		}
		if n < 0 {
			continue
		}
		ch := &r.Children[n]
		plain := ch.ResumePlain
		if len(plain) == 0 {
			plain = json.RawMessage("{}")
		}
		head := c.Root.Pid(iter)
		key := 3 + commitKeys + 2*n // the child's record and group keys in argv
		out = append(out, Claim{
			Root: c.Root, Iter: iter, Pid: head, Token: token, FirstChild: first, Reserve: ch.Reserve,
			ResumeStep: ch.ResumeStep, ResumePlain: plain, ParentPid: c.Pid, JoinGroupID: ch.JoinGroupID,
			ThreadHeadPid: head, GroupTarget: groupTarget, LeaseUntil: now.Add(r.ClaimLease),
			keys: c.keys, self: argv[key], group: argv[key+1],
		})
	}
	return out
}

// replyInt reads an integer a script returned as a string or an integer
// (0 when it is neither).
func replyInt(v any) int64 {
	switch v := v.(type) {
	case int64:
		return v
	case string:
		n, _ := strconv.ParseInt(v, 10, 64)
		return n
	}
	return 0
}

func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0] || string(a) == string(b))
}

// Process returns the record of one process (ErrNotFound when it has none,
// ErrBadRecord when a field does not parse).
func (s *Store) Process(ctx context.Context, root Root, iter int64) (Process, error) {
	m, err := s.rdb.HGetAll(ctx, keysOf(root).proc(iter)).Result()
	if err != nil {
		return Process{}, err
	}
	if len(m) == 0 {
		return Process{}, fmt.Errorf("process %s of owner %s: %w", root.Pid(iter), root.Owner, ErrNotFound)
	}
	return parseProcess(root.Pid(iter), m)
}

// Processes returns the record of every process of the session that still
// has one, in iter order (for inspection; not a hot path).
func (s *Store) Processes(ctx context.Context, root Root) ([]Process, error) {
	k := keysOf(root)
	last, err := s.rdb.HGet(ctx, k.meta(), "iter").Int64()
	if err == redis.Nil {
		return nil, fmt.Errorf("session %s: %w", root, ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	pipe := s.rdb.Pipeline()
	cmds := make([]*redis.MapStringStringCmd, last)
	for i := int64(1); i <= last; i++ {
		cmds[i-1] = pipe.HGetAll(ctx, k.proc(i))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, err
	}
	var out []Process
	for i, c := range cmds {
		if m := c.Val(); len(m) > 0 {
			p, err := parseProcess(root.Pid(int64(i)+1), m)
			if err != nil {
				return nil, err
			}
			out = append(out, p)
		}
	}
	return out, nil
}

// MarkFinished updates the cross-slot indexes of a session found finished
// (a replica that finished it died before it could) or missing: it leaves
// the root index, and the owner's index learns when its records expire. A
// missing session gets a tombstone first, so that a start that wrote the
// index entry but has not created the session yet cannot create it after
// its entry is gone (Start takes another root pid); a session found live
// by then keeps its entry. It reports whether this call took a finished
// session out of the root index (true for one caller only: the one to
// report its end).
func (s *Store) MarkFinished(ctx context.Context, root Root, now time.Time) bool {
	k := keysOf(root)
	status, err := s.eval(ctx, scriptForgetRoot, append([]string{k.gone()}, k.records()...), s.cfg.SessionTTL.Milliseconds()).Text()
	if err != nil || status == "live" {
		return false
	}
	return s.finished(ctx, root, now) && status == string(SessionFinished)
}

// finished updates the cross-slot indexes of a session that has no live
// process left: it leaves the root index, and the owner's index learns when
// its records expire. Both writes are idempotent; a crash between them only
// delays garbage collection of the owner's index. It reports whether the
// root index held the session.
func (s *Store) finished(ctx context.Context, root Root, now time.Time) bool {
	ok := ownerKeysOf(root.Owner)
	u, metered := s.meterSession(ctx, root, now)
	var zrem *redis.IntCmd
	s.pipelined(ctx, func(p redis.Pipeliner) {
		zrem = p.ZRem(ctx, rootShardKey(root), root.String())
		if metered {
			meterOwnersIndex(ctx, p, u)
		}
	})
	removed := zrem.Val() == 1
	s.rdb.ZAdd(ctx, ok.expire(), redis.Z{Score: float64(now.Add(s.cfg.SessionTTL).UnixMilli()), Member: root.RootPid})
	return removed
}

// finishedByCommand updates the indexes of a session a command (a kill)
// ended: the owner's index learns when its records expire, and the root
// index marks it due now, so that the next replica to look takes it out
// and reports its end (Manager: MarkFinished).
func (s *Store) finishedByCommand(ctx context.Context, root Root, now time.Time) {
	ok := ownerKeysOf(root.Owner)
	s.rdb.ZAdd(ctx, rootShardKey(root), redis.Z{Score: float64(now.UnixMilli()), Member: root.String()})
	s.rdb.ZAdd(ctx, ok.expire(), redis.Z{Score: float64(now.Add(s.cfg.SessionTTL).UnixMilli()), Member: root.RootPid})
}

// CollectGarbage forgets an owner's sessions whose records have expired
// (their index entries and idempotency keys). Starting a session does the
// same on the way.
func (s *Store) CollectGarbage(ctx context.Context, owner string, now time.Time) error {
	if err := CheckOwner(owner); err != nil {
		return err
	}
	return s.eval(ctx, scriptAllocRoot, ownerKeysOf(owner).all(), "-", ms(now)).Err()
}

// SessionRef is one entry of an owner's session list.
type SessionRef struct {
	Root      Root
	CreatedAt time.Time
}

// Sessions lists an owner's sessions whose records still exist, newest first
// (or oldest first with ascending), skipping offset and returning at most limit.
func (s *Store) Sessions(ctx context.Context, owner string, offset, limit int, ascending bool) ([]SessionRef, error) {
	if err := CheckOwner(owner); err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = 100
	}
	z, err := s.rdb.ZRangeArgsWithScores(ctx, redis.ZRangeArgs{
		Key: ownerKeysOf(owner).roots(), Start: offset, Stop: offset + limit - 1, Rev: !ascending,
	}).Result()
	if err != nil {
		return nil, err
	}
	out := make([]SessionRef, 0, len(z))
	for _, e := range z {
		id, _ := e.Member.(string)
		n, err := strconv.ParseInt(id, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("session index of %s holds %q", owner, id)
		}
		out = append(out, SessionRef{Root: Root{Owner: owner, RootPid: n}, CreatedAt: time.UnixMilli(int64(e.Score))})
	}
	return out, nil
}

// Due returns up to limit iters of the session whose nextWakeAt has come,
// and the earliest nextWakeAt still in the future (ok false when none), in
// one round trip.
func (s *Store) Due(ctx context.Context, root Root, now time.Time, limit int) (iters []int64, next time.Time, ok bool, err error) {
	k := keysOf(root)
	pipe := s.rdb.Pipeline()
	due := pipe.ZRangeArgs(ctx, redis.ZRangeArgs{Key: k.due(), Start: "-inf", Stop: ms(now), ByScore: true, Count: int64(limit)})
	first := pipe.ZRangeArgsWithScores(ctx, redis.ZRangeArgs{Key: k.due(), Start: "(" + ms(now), Stop: "+inf", ByScore: true, Count: 1})
	if _, err = pipe.Exec(ctx); err != nil && err != redis.Nil {
		return nil, time.Time{}, false, err
	}
	if iters, err = parseIters(due.Val(), "due set", root); err != nil {
		return nil, time.Time{}, false, err
	}
	if z := first.Val(); len(z) > 0 {
		return iters, time.UnixMilli(int64(z[0].Score)), true, nil
	}
	return iters, time.Time{}, false, nil
}
