package joinstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// procRef is what a control transition needs to know about a process: its
// group and the target that group feeds.
type procRef struct {
	iter   int64
	group  string
	target int64
}

// refs reads the group and group target of processes (one pipelined round trip).
func (s *Store) refs(ctx context.Context, root Root, iters []int64) ([]procRef, error) {
	k := keysOf(root)
	pipe := s.rdb.Pipeline()
	cmds := make([]*redis.SliceCmd, len(iters))
	for i, it := range iters {
		cmds[i] = pipe.HMGet(ctx, k.proc(it), fieldJoinGroupID)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, err
	}
	groups := map[string]bool{}
	out := make([]procRef, 0, len(iters))
	for i, c := range cmds {
		p, _, err := selectedFields(root.Pid(iters[i]), []string{fieldJoinGroupID}, c.Val())
		if err != nil {
			return nil, err
		}
		g := p.JoinGroupID
		if g == "" {
			return nil, fmt.Errorf("process %s: %w", root.Pid(iters[i]), ErrNotFound)
		}
		groups[g] = true
		out = append(out, procRef{iter: iters[i], group: g})
	}
	if len(groups) == 0 {
		return out, nil // no processes: nothing to look up (HMGET needs a field)
	}
	list := make([]string, 0, len(groups))
	for g := range groups {
		list = append(list, g)
	}
	targets, err := s.rdb.HMGet(ctx, k.targets(), list...).Result()
	if err != nil {
		return nil, err
	}
	byGroup := map[string]int64{}
	for i, g := range list {
		if str, _ := targets[i].(string); str != "" {
			byGroup[g], _ = strconv.ParseInt(str, 10, 64)
		}
	}
	for i := range out {
		out[i].target = byGroup[out[i].group]
	}
	return out, nil
}

// LiveIters returns the iters of the session's waiting and running processes.
func (s *Store) LiveIters(ctx context.Context, root Root) ([]int64, error) {
	procs, err := s.Processes(ctx, root)
	if err != nil {
		return nil, err
	}
	var out []int64
	for _, p := range procs {
		if p.Status.Live() {
			if _, _, err := ParsePid(p.Pid); err != nil {
				return nil, err
			}
			out = append(out, p.Iter)
		}
	}
	return out, nil
}

// KillResult reports a kill.
type KillResult struct {
	// Results maps each iter to aborted, killing (running: aborted at its
	// commit) or finished (nothing to do).
	Results map[int64]string
	Live    int64
	// FollowUps are join steps the caller must run: targets that got a
	// failure delivery, and kill-policy targets whose groups must be killed.
	FollowUps []FollowUp
}

// Kill kills processes of a session; with no iters it kills the whole
// session: KillSession (an O(1) mark, then a bounded first batch; the
// replicas reap the rest). Killing a whole session again, or a finished
// one, changes nothing: kill is idempotent.
func (s *Store) Kill(ctx context.Context, root Root, now time.Time, iters ...int64) (KillResult, error) {
	if len(iters) == 0 {
		return s.KillSession(ctx, root, now, "killed")
	}
	refs, err := s.refs(ctx, root, iters)
	if err != nil {
		return KillResult{}, err
	}
	k := keysOf(root)
	keys := []string{k.meta(), k.due(), k.jpend()}
	args := []any{ms(now), int64(s.cfg.SessionTTL / time.Second)}
	for _, r := range refs {
		tproc, tqueue, targ := k.targetKeys(r.target, r.iter)
		keys = append(keys, k.proc(r.iter), k.group(r.group), tproc, tqueue)
		args = append(args, r.iter, targ)
	}
	keys = append(keys, k.records()...)
	vals, err := s.eval(ctx, scriptKill, keys, args...).StringSlice()
	if err != nil {
		return KillResult{}, fmt.Errorf("kill in %s: %w", root, err)
	}
	res := KillResult{Results: map[int64]string{}}
	res.Live, _ = strconv.ParseInt(vals[0], 10, 64)
	for _, v := range vals[1:] {
		switch {
		case strings.HasPrefix(v, "target:"):
			it, _ := strconv.ParseInt(strings.TrimPrefix(v, "target:"), 10, 64)
			res.FollowUps = append(res.FollowUps, FollowUp{Target: it, Kill: true})
		case strings.HasPrefix(v, "deliver:"):
			it, _ := strconv.ParseInt(strings.TrimPrefix(v, "deliver:"), 10, 64)
			res.FollowUps = append(res.FollowUps, FollowUp{Target: it})
		default:
			a, b, _ := strings.Cut(v, "=")
			it, _ := strconv.ParseInt(a, 10, 64)
			res.Results[it] = b
		}
	}
	if res.Live <= 0 {
		// The kill ended the session: its root index entry is due now, so
		// that a replica takes it out (MarkFinished) and reports its end
		// (log, metric); the owner's index learns when its records expire.
		s.finishedByCommand(ctx, root, now)
	} else if len(res.FollowUps) > 0 {
		// Failure deliveries wait in the session: let a replica apply them.
		s.MarkRoot(ctx, root, now)
	}
	return res, nil
}

// Pause sets (pause=true) or clears the paused flag of processes; with no
// iters it applies to every live process and to the session itself.
func (s *Store) Pause(ctx context.Context, root Root, now time.Time, pause bool, iters ...int64) (map[int64]string, error) {
	whole := len(iters) == 0
	if whole {
		var err error
		if iters, err = s.LiveIters(ctx, root); err != nil {
			return nil, err
		}
	}
	k := keysOf(root)
	keys := []string{k.meta(), k.due()}
	flag, whole01 := 0, 0
	if pause {
		flag = 1
	}
	if whole {
		whole01 = 1
	}
	args := []any{flag, ms(now), whole01}
	for _, it := range iters {
		keys = append(keys, k.proc(it))
		args = append(args, it)
	}
	vals, err := s.eval(ctx, scriptPause, keys, args...).StringSlice()
	if err != nil {
		return nil, fmt.Errorf("pause in %s: %w", root, err)
	}
	out := map[int64]string{}
	for _, v := range vals {
		a, b, _ := strings.Cut(v, "=")
		it, _ := strconv.ParseInt(a, 10, 64)
		out[it] = b
	}
	if !pause {
		// Resumed work may be due: let a replica look at the session.
		return out, s.MarkRoot(ctx, root, now)
	}
	return out, nil
}

// Recover returns processes whose lease expired to the due set (at-least-once
// execution; the fencing token makes the old holder's commit fail), or
// aborts them when their group's join closed with kill meanwhile. An
// executing process is left as it is (Executing): see RecoverResume.
func (s *Store) Recover(ctx context.Context, root Root, now time.Time) (map[int64]ReleaseResult, error) {
	res, _, err := s.recoverExpired(ctx, root, now, nil)
	return res, err
}

// Resume is how a recovery takes over executing processes: under a lease
// of Lease for Worker (ResumeExec).
type Resume struct {
	Lease  time.Duration
	Worker string
	Steps  StepTable
}

// RecoverResume is Recover that also takes over the executing processes
// whose lease expired (ResumeExec): their claims come back to be polled by
// the caller; their steps never run again.
func (s *Store) RecoverResume(ctx context.Context, root Root, now time.Time, r Resume) (map[int64]ReleaseResult, []Claim, error) {
	return s.recoverExpired(ctx, root, now, &r)
}

func (s *Store) recoverExpired(ctx context.Context, root Root, now time.Time, resume *Resume) (map[int64]ReleaseResult, []Claim, error) {
	k := keysOf(root)
	// Entries at score 0 are processes a commit finished while it claimed
	// their children (commit_step): drop them; the others whose lease
	// expired are released.
	pipe := s.rdb.Pipeline()
	pipe.ZRemRangeByScore(ctx, k.run(), "0", "0")
	exp := pipe.ZRangeArgs(ctx, redis.ZRangeArgs{Key: k.run(), Start: "(0", Stop: "(" + ms(now), ByScore: true})
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, nil, err
	}
	expired := exp.Val()
	if len(expired) == 0 {
		return nil, nil, nil
	}
	iters, err := parseIters(expired, "run set", root)
	if err != nil {
		return nil, nil, err
	}
	refs, err := s.refs(ctx, root, iters)
	if err != nil {
		return nil, nil, err
	}
	out := map[int64]ReleaseResult{}
	var resumed []Claim
	for _, r := range refs {
		names := []string{fieldLease, fieldLeaseUntil}
		vals, err := s.rdb.HMGet(ctx, k.proc(r.iter), names...).Result()
		if err != nil {
			return nil, nil, err
		}
		p, _, err := selectedFields(root.Pid(r.iter), names, vals)
		if err != nil {
			return nil, nil, err
		}
		if p.Lease == nil || p.Lease.Token == 0 || p.Lease.Until.UnixMilli() >= now.UnixMilli() {
			continue // committed, released or renewed since the read
		}
		c := Claim{Root: root, Iter: r.iter, Token: p.Lease.Token, JoinGroupID: r.group, GroupTarget: r.target}
		res, err := s.release(ctx, c, now, now, "recover")
		if err != nil {
			return nil, nil, err
		}
		out[r.iter] = res
		if res == Executing && resume != nil {
			rc, ok, err := s.ResumeExec(ctx, c, now, resume.Lease, resume.Worker, resume.Steps)
			if err != nil {
				return nil, nil, err
			}
			if ok {
				resumed = append(resumed, rc)
			}
		}
	}
	return out, resumed, nil
}
