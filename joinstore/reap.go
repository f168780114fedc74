package joinstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// ReapBatch is how many waiting processes of a killed session one Reap
// aborts at most: the bound on the work of a kill command and of each
// replica round.
const ReapBatch = 256

// KillSession marks a whole session killed in O(1) (kill_session) and
// aborts a first bounded batch of its waiting processes at once; a small
// session is over when it returns. The rest (KillResult.Live minus what is
// still running) is aborted by the replica that runs the session, which
// claims nothing in a killed session and reaps instead. ErrNotFound when
// the session does not exist.
func (s *Store) KillSession(ctx context.Context, root Root, now time.Time, reason string) (KillResult, error) {
	vals, err := s.eval(ctx, scriptKillSession, []string{keysOf(root).meta()}, ms(now), reason, KillKindKill).Slice()
	if err != nil {
		return KillResult{}, fmt.Errorf("kill %s: %w", root, err)
	}
	if vals[1] == "gone" {
		return KillResult{}, fmt.Errorf("session %s: %w", root, ErrNotFound)
	}
	res, err := s.Reap(ctx, root, now, ReapBatch)
	if err != nil {
		return res, err
	}
	if res.Live > 0 {
		// Whatever is left is the replicas' to reap: let one look now.
		s.MarkRoot(ctx, root, now)
	}
	return res, nil
}

// SessionKilled reports whether the session was killed (by a command or a
// cap).
func (s *Store) SessionKilled(ctx context.Context, root Root) (bool, error) {
	v, err := s.rdb.HGet(ctx, keysOf(root).meta(), "killedAt").Result()
	if errors.Is(err, redis.Nil) {
		return false, nil
	}
	return v != "", err
}

// Reap aborts up to n waiting processes of a killed session (found as
// waitingMembers finds them), with the same effects as killing them one by one:
// failures delivered to open join targets, kill-policy targets taking their
// groups down (FollowUps). Running processes are left to their commit (or,
// if their replica died, to recovery), which records them aborted.
func (s *Store) Reap(ctx context.Context, root Root, now time.Time, n int) (KillResult, error) {
	iters, err := s.waitingMembers(ctx, root, n)
	if err != nil {
		return KillResult{}, err
	}
	if len(iters) == 0 {
		live, err := s.rdb.HGet(ctx, keysOf(root).meta(), "live").Int64()
		if err != nil && !errors.Is(err, redis.Nil) {
			return KillResult{}, err
		}
		return KillResult{Results: map[int64]string{}, Live: live}, nil
	}
	return s.Kill(ctx, root, now, iters...)
}

// waitingMembers finds up to n waiting processes: those of the due set
// (every waiting process that is neither paused nor a join target), the
// live members of the join groups that targets collect, scanned in pages,
// and, when these hold none but processes are still live, paused ones
// found by a scan of the session's iters (the root group keeps no member
// hash: only groups with a join target need one).
func (s *Store) waitingMembers(ctx context.Context, root Root, n int) ([]int64, error) {
	k := keysOf(root)
	byGroup, err := s.rdb.HGetAll(ctx, k.targets()).Result()
	if err != nil {
		return nil, err
	}
	groups := make([]string, 0, len(byGroup))
	targets := make([]int64, 0, len(byGroup)+1)
	for g, t := range byGroup {
		groups = append(groups, g)
		if it, err := strconv.ParseInt(t, 10, 64); err == nil {
			targets = append(targets, it)
		}
	}
	due, err := s.rdb.ZRange(ctx, k.due(), 0, int64(n)-1).Result()
	if err != nil {
		return nil, err
	}
	out, err := parseIters(due, "due set", root)
	if err != nil || len(out) >= n {
		return out, err
	}
	seen := make(map[int64]bool, len(out))
	for _, it := range out {
		seen[it] = true
	}
	// The root process and the join targets (a target in the root group
	// is in no member hash).
	targets = append(targets, 1)
	pipe := s.rdb.Pipeline()
	status := make([]*redis.StringCmd, len(targets))
	for i, it := range targets {
		status[i] = pipe.HGet(ctx, k.proc(it), fieldStatus)
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, err
	}
	for i, c := range status {
		if ProcStatus(c.Val()) == StatusWaiting && !seen[targets[i]] {
			seen[targets[i]] = true
			out = append(out, targets[i])
			if len(out) >= n {
				return out, nil
			}
		}
	}
	for _, g := range groups {
		var cursor uint64
		for {
			fields, next, err := s.rdb.HScan(ctx, k.group(g), cursor, "", int64(n)).Result()
			if err != nil {
				return nil, err
			}
			var page []int64
			for i := 0; i+1 < len(fields); i += 2 {
				it, err := strconv.ParseInt(fields[i], 10, 64)
				if err != nil {
					return nil, fmt.Errorf("group %s of %s holds %q", g, root, fields[i])
				}
				page = append(page, it)
			}
			if len(page) > 0 {
				pipe := s.rdb.Pipeline()
				cmds := make([]*redis.StringCmd, len(page))
				for i, it := range page {
					cmds[i] = pipe.HGet(ctx, k.proc(it), fieldStatus)
				}
				if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
					return nil, err
				}
				for i, c := range cmds {
					if ProcStatus(c.Val()) == StatusWaiting && !seen[page[i]] {
						seen[page[i]] = true
						out = append(out, page[i])
						if len(out) >= n {
							return out, nil
						}
					}
				}
			}
			if cursor = next; cursor == 0 {
				break
			}
		}
	}
	if len(out) > 0 {
		return out, nil
	}
	return s.scanWaiting(ctx, root, n)
}

// scanWaiting finds up to n waiting processes by their iters, in pages: the
// last resort for processes that no index holds (paused members of the
// root group).
func (s *Store) scanWaiting(ctx context.Context, root Root, n int) ([]int64, error) {
	k := keysOf(root)
	m, err := s.rdb.HMGet(ctx, k.meta(), "live", "iter").Result()
	if err != nil {
		return nil, err
	}
	live, _ := strconv.ParseInt(fmt.Sprint(m[0]), 10, 64)
	last, _ := strconv.ParseInt(fmt.Sprint(m[1]), 10, 64)
	if live <= 0 {
		return nil, nil
	}
	var out []int64
	const page = 512
	for lo := int64(1); lo <= last && len(out) < n; lo += page {
		pipe := s.rdb.Pipeline()
		hi := min(lo+page-1, last)
		cmds := make([]*redis.SliceCmd, 0, hi-lo+1)
		for it := lo; it <= hi; it++ {
			cmds = append(cmds, pipe.HMGet(ctx, k.proc(it), fieldStatus))
		}
		if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
			return nil, err
		}
		for i, c := range cmds {
			v := c.Val()
			if len(v) == 1 && v[0] == string(StatusWaiting) {
				out = append(out, lo+int64(i))
				if len(out) >= n {
					break
				}
			}
		}
	}
	return out, nil
}
