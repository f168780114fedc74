package joinstore

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// DueBacklog measures the global root index for monitoring: how many
// sessions need a replica's attention now (their due time or an expired
// lease has come) and when the oldest of them became due (zero when none
// is). Sessions held under a live lease are not counted. One pipeline of
// two reads per shard.
func (s *Store) DueBacklog(ctx context.Context, now time.Time) (depth int64, oldest time.Time, err error) {
	pipe := s.rdb.Pipeline()
	counts := make([]*redis.IntCmd, RootShards)
	firsts := make([]*redis.ZSliceCmd, RootShards)
	for n := range counts {
		counts[n] = pipe.ZCount(ctx, shardKey(n), "-inf", ms(now))
		firsts[n] = pipe.ZRangeWithScores(ctx, shardKey(n), 0, 0)
	}
	if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
		return 0, time.Time{}, err
	}
	for n := range counts {
		c := counts[n].Val()
		depth += c
		if z := firsts[n].Val(); c > 0 && len(z) == 1 {
			at := time.UnixMilli(int64(z[0].Score))
			if oldest.IsZero() || at.Before(oldest) {
				oldest = at
			}
		}
	}
	return depth, oldest, nil
}
