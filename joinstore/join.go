package joinstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Delivery is a finished member of a target's group waiting to be applied
// to the target's join (a pending entry pushed by commit_step).
type Delivery struct {
	Pid     string          `json:"pid"`
	From    string          `json:"from"`
	Aborted bool            `json:"aborted"`
	Valid   *bool           `json:"valid"`
	Payload json.RawMessage `json:"-"`
}

// JoinView is a fresh read of a join target taken under its join lock.
type JoinView struct {
	Root   Root
	Target int64
	// Proc is the target's record.
	Proc Process
	// Members are the live members of the group the target is fed by:
	// iter → the step each runs or is about to run.
	Members map[int64]string
	// Pending are the deliveries not yet applied, oldest first.
	Pending []Delivery
	// ParentTarget is the target fed by the target's own group (0 = none).
	ParentTarget int64
}

// Verdicts a JoinApply may carry.
const (
	VerdictOpen          = "open"
	VerdictSatisfied     = "satisfied"
	VerdictUnfulfillable = "unfulfillable"
	// VerdictKill kills the waiting members of an already closed
	// kill-policy target (a cascade reached it).
	VerdictKill = "kill"
)

// JoinApply is the decision the caller computed from a JoinView.
type JoinApply struct {
	// Consumed is how many of the pending deliveries were applied (all of
	// them, normally; later ones are ignored by a closed join anyway).
	Consumed int
	Inbox    json.RawMessage
	Fail     json.RawMessage
	Verdict  string
	// Merged is the target's payload on VerdictSatisfied.
	Merged json.RawMessage
	// Kill lists the members to abort when the join closes with kill; the
	// store aborts those that are still waiting and refuses a list that
	// misses a current member.
	Kill []int64
}

// JoinResult reports the follow-up work of a join step.
type JoinResult struct {
	// Verdicts are the verdicts applied, one per round.
	Verdicts []string
	Live     int64
	// Killed are the members a kill aborted.
	Killed []int64
	// FollowUps are targets that now need a join step of their own: the
	// parent target an aborted target failed into (VerdictOpen rounds) and
	// kill-policy targets aborted by a kill (VerdictKill).
	FollowUps []FollowUp
}

// FollowUp is a target that needs a join step after another one.
type FollowUp struct {
	Target int64
	// Kill is true when the target was aborted by a cascading kill and its
	// own group's waiting members must be killed.
	Kill bool
}

// Decider computes a join decision from a fresh view. It must be pure.
type Decider func(JoinView) (JoinApply, error)

// ErrJoinBusy means another holder has the target's join lock; it will
// apply every pending delivery before it lets go.
var ErrJoinBusy = errors.New("join lock held by another worker")

// JoinStep takes the join lock of a target, reads it fresh, asks decide what
// to do and applies that under the lock's fencing token, for as many rounds
// as deliveries keep arriving. A decision that would miss a member that
// joined after the read is re-taken on a fresh view.
func (s *Store) JoinStep(ctx context.Context, root Root, target int64, now time.Time, lockFor time.Duration, decide Decider) (JoinResult, error) {
	return s.joinStep(ctx, root, target, nil, now, lockFor, decide)
}

// JoinLock is a join lock taken with a commit (Commit.LockTarget) and the
// view it read: the first round of JoinStepLocked decides on it.
type JoinLock struct {
	View  JoinView
	token string
}

// JoinStepLocked is JoinStep starting from a lock a commit took along
// (CommitResult.Lock): its first decision needs no round trip of its own.
func (s *Store) JoinStepLocked(ctx context.Context, lock *JoinLock, now time.Time, lockFor time.Duration, decide Decider) (JoinResult, error) {
	return s.joinStep(ctx, lock.View.Root, lock.View.Target, lock, now, lockFor, decide)
}

func (s *Store) joinStep(ctx context.Context, root Root, target int64, held *JoinLock, now time.Time, lockFor time.Duration, decide Decider) (JoinResult, error) {
	var res JoinResult
	for round := 0; ; round++ {
		if round > 1000 {
			return res, fmt.Errorf("join step %s: no progress after %d rounds", root.Pid(target), round)
		}
		var view JoinView
		var token string
		var err error
		if held != nil {
			view, token, held = held.View, held.token, nil
		} else if view, token, err = s.joinLock(ctx, root, target, lockFor); err != nil {
			return res, err
		}
		apply, err := decide(view)
		if err != nil {
			// Best effort (the lock also expires), and only our own lock: a
			// lock that expired meanwhile may be another holder's now.
			s.eval(ctx, scriptJoinUnlock, []string{keysOf(root).joinLock(target)}, token)
			return res, fmt.Errorf("join step %s: %w", root.Pid(target), err)
		}
		remaining, follow, err := s.joinApply(ctx, view, token, now, &apply, &res)
		if errors.Is(err, errStaleView) {
			continue
		}
		if err != nil {
			return res, err
		}
		res.Verdicts = append(res.Verdicts, apply.Verdict)
		res.FollowUps = append(res.FollowUps, follow...)
		if remaining == 0 {
			return res, nil
		}
	}
}

// joinLockKeys are join_lock's keys for target.
func joinLockKeys(root Root, target int64) []string {
	k := keysOf(root)
	return []string{k.joinLock(target), k.proc(target), k.group(strconv.FormatInt(target, 10)), k.joinQueue(target), k.meta(), k.targets()}
}

func (s *Store) joinLock(ctx context.Context, root Root, target int64, lockFor time.Duration) (JoinView, string, error) {
	raw, err := s.eval(ctx, scriptJoinLock, joinLockKeys(root, target), lockFor.Milliseconds()).Slice()
	if err != nil {
		return JoinView{Root: root, Target: target}, "", fmt.Errorf("join lock %s: %w", root.Pid(target), err)
	}
	return s.parseJoinLock(ctx, root, target, raw)
}

// parseJoinLock reads join_lock's reply: the view and the token, or
// ErrJoinBusy, or ErrNotFound.
func (s *Store) parseJoinLock(ctx context.Context, root Root, target int64, raw []any) (JoinView, string, error) {
	k := keysOf(root)
	v := JoinView{Root: root, Target: target}
	var err error
	if first, _ := raw[0].(string); first == "busy" {
		return v, "", ErrJoinBusy
	} else if first == "gone" {
		return v, "", fmt.Errorf("join target %s: %w", root.Pid(target), ErrNotFound)
	}
	token, _ := raw[0].(string)
	if v.Proc, err = parseProcess(root.Pid(target), pairs(raw[1])); err != nil {
		s.eval(ctx, scriptJoinUnlock, []string{k.joinLock(target)}, token)
		return v, "", fmt.Errorf("join target %s: %w", root.Pid(target), err)
	}
	v.Members = map[int64]string{}
	for it, step := range pairs(raw[2]) {
		n, _ := strconv.ParseInt(it, 10, 64)
		v.Members[n] = step
	}
	entries, _ := raw[3].([]any)
	for _, e := range entries {
		str, _ := e.(string)
		var d struct {
			Delivery
			Payload string `json:"payload"`
		}
		if err := json.Unmarshal([]byte(str), &d); err != nil {
			return v, "", fmt.Errorf("join target %s: bad pending entry %q: %w", root.Pid(target), str, err)
		}
		d.Delivery.Payload = json.RawMessage(d.Payload)
		v.Pending = append(v.Pending, d.Delivery)
	}
	if p, _ := raw[4].(string); p != "" {
		v.ParentTarget, _ = strconv.ParseInt(p, 10, 64)
	}
	return v, token, nil
}

func pairs(x any) map[string]string {
	list, _ := x.([]any)
	m := make(map[string]string, len(list)/2)
	for i := 0; i+1 < len(list); i += 2 {
		a, _ := list[i].(string)
		b, _ := list[i+1].(string)
		m[a] = b
	}
	return m
}

func (s *Store) joinApply(ctx context.Context, v JoinView, token string, now time.Time, a *JoinApply, res *JoinResult) (int64, []FollowUp, error) {
	k := keysOf(v.Root)
	group := v.Proc.JoinGroupID
	tproc, tqueue, targ := k.targetKeys(v.ParentTarget, v.Target)
	keys := []string{k.joinLock(v.Target), k.proc(v.Target), k.group(strconv.FormatInt(v.Target, 10)), k.joinQueue(v.Target),
		k.meta(), k.due(), k.run(), k.steps(), k.targets(),
		k.group(group), tproc, tqueue, k.jpend()}
	kill := append([]int64(nil), a.Kill...)
	sort.Slice(kill, func(i, j int) bool { return kill[i] < kill[j] })
	reason := "unfulfillable"
	if a.Verdict == VerdictSatisfied && len(a.Merged) > s.cfg.MaxPayloadBytes {
		// The join is satisfied but its merged payload is over the cap: the
		// join closes with its inbox, and its target aborts with the reason.
		a.Verdict = VerdictUnfulfillable
		reason = fmt.Sprintf("the join's merged payload is %d bytes, at most %d are allowed (XGR_MAX_PAYLOAD)", len(a.Merged), s.cfg.MaxPayloadBytes)
	}
	args := []any{token, s.clock(now), a.Consumed, orEmpty(a.Inbox), orEmpty(a.Fail), a.Verdict, orEmpty(a.Merged),
		int64(s.cfg.SessionTTL / time.Second), targ, reason}
	for _, it := range kill {
		keys = append(keys, k.proc(it))
		args = append(args, it)
	}
	vals, err := s.eval(ctx, scriptJoinApply, keys, args...).Slice()
	if err != nil {
		return 0, nil, fmt.Errorf("join apply %s: %w", v.Root.Pid(v.Target), scriptError(err))
	}
	remaining, _ := vals[0].(int64)
	res.Live, _ = vals[1].(int64)
	if res.Live <= 0 {
		s.finished(ctx, v.Root, now)
	}
	var follow []FollowUp
	if to, _ := vals[2].(string); to != "" {
		n, _ := strconv.ParseInt(to, 10, 64)
		follow = append(follow, FollowUp{Target: n})
	}
	for _, x := range asList(vals[3]) {
		n, _ := strconv.ParseInt(x, 10, 64)
		res.Killed = append(res.Killed, n)
	}
	for _, x := range asList(vals[4]) {
		n, _ := strconv.ParseInt(x, 10, 64)
		follow = append(follow, FollowUp{Target: n, Kill: true})
	}
	return remaining, follow, nil
}

func asList(x any) []string {
	list, _ := x.([]any)
	out := make([]string, 0, len(list))
	for _, e := range list {
		s, _ := e.(string)
		out = append(out, s)
	}
	return out
}

func orEmpty(b json.RawMessage) string {
	if len(b) == 0 {
		return "{}"
	}
	return string(b)
}

// commitEval runs commit_step; with Commit.LockTarget and a group target it
// sends join_lock of that target in the same pipeline (one round trip) and
// returns the lock it took (nil when the target's lock is another holder's
// or the target is gone). A script cache that lost the scripts runs them
// one after the other.
func (s *Store) commitEval(ctx context.Context, c Claim, r Commit, argv []any) ([]any, *JoinLock, error) {
	if r.LockTarget <= 0 || c.GroupTarget == 0 {
		vals, err := s.evalArgv(ctx, scriptCommitStep, argv).Slice()
		return vals, nil, err
	}
	var commit, lock *redis.Cmd
	err := s.pipelined(ctx, func(pipe redis.Pipeliner) {
		commit = argvCmd(ctx, argv)
		_ = pipe.Process(ctx, commit)
		lock = pipe.EvalSha(ctx, scriptJoinLock.Hash(), joinLockKeys(c.Root, c.GroupTarget), r.LockTarget.Milliseconds())
	})
	if err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") && commit.Err() != nil && strings.HasPrefix(commit.Err().Error(), "NOSCRIPT") {
		// Nothing ran: run the commit alone (it loads its script); the
		// join step takes its own lock.
		vals, err := s.evalArgv(ctx, scriptCommitStep, argv).Slice()
		return vals, nil, err
	}
	vals, err := commit.Slice()
	if err != nil {
		if raw, lerr := lock.Slice(); lerr == nil {
			if token, _ := raw[0].(string); token != "busy" && token != "gone" {
				s.eval(ctx, scriptJoinUnlock, []string{keysOf(c.Root).joinLock(c.GroupTarget)}, token)
			}
		}
		return nil, nil, err
	}
	raw, err := lock.Slice()
	if err != nil {
		return vals, nil, nil // the join step takes its own lock
	}
	view, token, err := s.parseJoinLock(ctx, c.Root, c.GroupTarget, raw)
	if err != nil {
		return vals, nil, nil // busy, gone or unreadable: the join step sees for itself
	}
	return vals, &JoinLock{View: view, token: token}, nil
}
