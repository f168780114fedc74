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
	vals, err := scriptKillSession.Run(ctx, s.rdb, []string{keysOf(root).meta()}, ms(now), reason).Slice()
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

// Reap aborts up to n waiting processes of a killed session (every waiting
// process is a member of a join group: the root group "0" or a group a
// join target collects), with the same effects as killing them one by one:
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

// waitingMembers finds up to n waiting processes: the root process (which
// start_session creates outside the group hashes) and the live members of
// the session's join groups, scanned in pages.
func (s *Store) waitingMembers(ctx context.Context, root Root, n int) ([]int64, error) {
	k := keysOf(root)
	groups, err := s.rdb.HKeys(ctx, k.targets()).Result()
	if err != nil {
		return nil, err
	}
	groups = append([]string{"0"}, groups...)
	var out []int64
	if st, err := s.rdb.HGet(ctx, k.proc(1), "status").Result(); err == nil && st == "waiting" {
		out = append(out, 1)
	} else if err != nil && !errors.Is(err, redis.Nil) {
		return nil, err
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
					cmds[i] = pipe.HGet(ctx, k.proc(it), "status")
				}
				if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
					return nil, err
				}
				for i, c := range cmds {
					if c.Val() == "waiting" && page[i] != 1 {
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
	return out, nil
}
