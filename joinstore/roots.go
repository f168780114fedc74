package joinstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// ErrRootHeld: another replica holds the session's root lease.
var ErrRootHeld = errors.New("root lease held by another replica")

// ErrFinished: the session has no live process (or no longer exists).
var ErrFinished = errors.New("session finished")

// AcquireRoot takes or extends the session's root lease for replica and
// returns its fencing token. ErrRootHeld when another replica holds it,
// ErrFinished when there is nothing left to run.
func (s *Store) AcquireRoot(ctx context.Context, root Root, replica string, lease time.Duration) (int64, error) {
	k := keysOf(root)
	res, err := scriptAcquireRoot.Run(ctx, s.rdb, []string{k.lease(), k.fence(), k.meta(), k.wq()}, replica, lease.Milliseconds()).Text()
	if err != nil {
		return 0, fmt.Errorf("root lease %s: %w", root, err)
	}
	switch res {
	case "held":
		return 0, ErrRootHeld
	case "finished":
		return 0, ErrFinished
	}
	return strconv.ParseInt(res, 10, 64)
}

// ReleaseRoot gives the root lease back; false when it was no longer ours.
func (s *Store) ReleaseRoot(ctx context.Context, root Root, replica string, token int64) (bool, error) {
	res, err := scriptReleaseRoot.Run(ctx, s.rdb, []string{keysOf(root).lease()}, replica, token).Text()
	return res == "released", err
}

// MarkRoot records in the global root index when a session next needs a
// replica's attention (its lease expiry while held, its next due time
// otherwise). Lower scores only come from new work (start, wake).
func (s *Store) MarkRoot(ctx context.Context, root Root, at time.Time) error {
	return s.rdb.ZAdd(ctx, rootShardKey(root), redis.Z{Score: float64(at.UnixMilli()), Member: root.String()}).Err()
}

// RootsDue returns sessions whose attention time has come, from every shard
// of the global index (at most limit per shard).
func (s *Store) RootsDue(ctx context.Context, now time.Time, limit int) ([]Root, error) {
	pipe := s.rdb.Pipeline()
	cmds := make([]*redis.StringSliceCmd, RootShards)
	for n := range cmds {
		cmds[n] = pipe.ZRangeArgs(ctx, redis.ZRangeArgs{Key: shardKey(n), Start: "-inf", Stop: ms(now), ByScore: true, Count: int64(limit)})
	}
	if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
		return nil, err
	}
	var out []Root
	for n, c := range cmds {
		for _, id := range c.Val() {
			r, err := ParseRoot(id)
			if err != nil {
				return nil, fmt.Errorf("root index %s holds %q: %w", shardKey(n), id, err)
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// ParseRoot reads "<owner>:<rootPid>".
func ParseRoot(s string) (Root, error) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return Root{}, fmt.Errorf("root %q: want <owner>:<rootPid>", s)
	}
	n, err := strconv.ParseInt(s[i+1:], 10, 64)
	if err != nil || n <= 0 {
		return Root{}, fmt.Errorf("root %q: rootPid must be a positive number", s)
	}
	if err := CheckOwner(s[:i]); err != nil {
		return Root{}, err
	}
	return Root{Owner: s[:i], RootPid: n}, nil
}

// PendingJoins returns the targets of the session with deliveries not yet
// applied (after a crash, the new root owner applies them).
func (s *Store) PendingJoins(ctx context.Context, root Root) ([]int64, error) {
	ids, err := s.rdb.ZRange(ctx, keysOf(root).jpend(), 0, -1).Result()
	if err != nil {
		return nil, err
	}
	return parseIters(ids, "pending join set", root)
}

// UnmarkRoot removes a session from the global root index.
func (s *Store) UnmarkRoot(ctx context.Context, root Root) error {
	return s.rdb.ZRem(ctx, rootShardKey(root), root.String()).Err()
}

// Health writes a replica's heartbeat (a SET with a TTL, under its own hash
// tag) and returns when Redis acknowledged it: the round trip a replica
// needs for every transition. A Redis that refuses writes (out of memory,
// read-only replica, paused writes) or answers too late fails it; ctx
// carries the deadline.
func (s *Store) Health(ctx context.Context, replica string) error {
	key := "xgr:{health}:" + replica
	if err := s.rdb.Set(ctx, key, time.Now().UnixMilli(), time.Minute).Err(); err != nil {
		return fmt.Errorf("redis write %s: %w", key, err)
	}
	return nil
}
