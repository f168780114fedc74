package joinstore

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// RootsDueSpread returns sessions whose attention time has come, like
// RootsDue, but reads past a backlog: of a shard holding more than limit
// due sessions it reads the limit oldest, the limit newest and limit at
// an offset in between that moves with turn (DueWindows), so that a
// session of an owner with few due is read even when another owner's
// thousands came due before it (a replica passes the number of its
// reads as turn). A shard without a backlog costs what RootsDue costs;
// shards with one cost a second round trip. Each session is named once.
func (s *Store) RootsDueSpread(ctx context.Context, now time.Time, limit, turn int) ([]Root, error) {
	pipe := s.rdb.Pipeline()
	counts := make([]*redis.IntCmd, RootShards)
	heads := make([]*redis.StringSliceCmd, RootShards)
	for n := range RootShards {
		counts[n] = pipe.ZCount(ctx, shardKey(n), "-inf", ms(now))
		heads[n] = pipe.ZRangeArgs(ctx, redis.ZRangeArgs{Key: shardKey(n), Start: "-inf", Stop: ms(now), ByScore: true, Count: int64(limit)})
	}
	if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
		return nil, err
	}
	type window struct {
		shard int
		cmd   *redis.StringSliceCmd
	}
	var more []window
	pipe = s.rdb.Pipeline()
	for n := range RootShards {
		for _, off := range DueWindows(counts[n].Val(), limit, turn)[1:] {
			more = append(more, window{n, pipe.ZRangeArgs(ctx, redis.ZRangeArgs{Key: shardKey(n), Start: "-inf", Stop: ms(now), ByScore: true,
				Offset: off, Count: int64(limit)})})
		}
	}
	if len(more) > 0 {
		if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
			return nil, err
		}
	}
	var out []Root
	seen := map[string]bool{}
	add := func(n int, ids []string) error {
		for _, id := range ids {
			if seen[id] {
				continue
			}
			seen[id] = true
			r, err := ParseRoot(id)
			if err != nil {
				return fmt.Errorf("root index %s holds %q: %w", shardKey(n), id, err)
			}
			out = append(out, r)
		}
		return nil
	}
	for n, c := range heads {
		if err := add(n, c.Val()); err != nil {
			return nil, err
		}
	}
	for _, w := range more {
		if err := add(w.shard, w.cmd.Val()); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// DueWindows decides which windows of limit entries RootsDueSpread reads
// of a shard holding count due sessions (oldest first), as their offsets:
// the oldest window always; with a backlog (count > limit) also the newest
// and one of the windows between them, the turn-th modulo their number,
// so that successive turns visit every due session. Windows do not
// overlap except where the shard holds no whole window between.
func DueWindows(count int64, limit, turn int) []int64 {
	out := []int64{0}
	if limit <= 0 || count <= int64(limit) {
		return out
	}
	l := int64(limit)
	out = append(out, max(count-l, l))
	if between := count - 2*l; between > 0 {
		windows := (between + l - 1) / l
		out = append(out, l+(int64(max(turn, 0))%windows)*l)
	}
	return out
}
