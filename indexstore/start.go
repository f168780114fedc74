package indexstore

import (
	"context"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// PendingStarts returns the relative keys of trigger starts recorded at or
// below block that have not started yet, oldest block first.
func (x *Index) PendingStarts(ctx context.Context, block uint64, limit int) ([]string, error) {
	keys, err := x.rdb.ZRangeArgs(ctx, redis.ZRangeArgs{Key: x.pending(), Start: "-inf", Stop: strconv.FormatUint(block, 10), ByScore: true, Count: int64(limit)}).Result()
	if err != nil {
		return nil, err
	}
	for i, k := range keys {
		keys[i] = strings.TrimPrefix(k, x.prefix)
	}
	return keys, nil
}

// MarkStarted records that a trigger start created its session; a rewind
// keeps it from then on.
func (x *Index) MarkStarted(ctx context.Context, key string, fields map[string]string) error {
	pipe := x.rdb.TxPipeline()
	args := []any{"status", "started"}
	for k, v := range fields {
		args = append(args, k, v)
	}
	pipe.HSet(ctx, x.prefix+key, args...)
	pipe.ZRem(ctx, x.pending(), x.prefix+key)
	_, err := pipe.Exec(ctx)
	return err
}

// PendingCount is the number of trigger starts waiting for confirmation.
func (x *Index) PendingCount(ctx context.Context) (int64, error) {
	return x.rdb.ZCard(ctx, x.pending()).Result()
}
