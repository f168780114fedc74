package indexstore

import (
	"context"
	"strconv"
	"strings"
	"time"

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

// RecordAttempt records a start of a pending trigger that failed and will
// be retried: its attempts count up, its last error and when. The trigger
// stays pending (a rewind still undoes it).
func (x *Index) RecordAttempt(ctx context.Context, key, lastError string, at time.Time) error {
	pipe := x.rdb.TxPipeline()
	pipe.HIncrBy(ctx, x.prefix+key, "attempts", 1)
	pipe.HSet(ctx, x.prefix+key, "lastError", lastError, "lastAttemptAt", at.UnixMilli())
	_, err := pipe.Exec(ctx)
	return err
}

// PendingCount is the number of trigger starts waiting for confirmation.
func (x *Index) PendingCount(ctx context.Context) (int64, error) {
	return x.rdb.ZCard(ctx, x.pending()).Result()
}

// PendingStart is a trigger start not yet started: waiting for its block
// to be final, for its orchestration, or retried after errors.
type PendingStart struct {
	// Key is its key relative to the index (start:<…>), also the session's
	// idempotency key.
	Key string `json:"key"`
	// Block is the block of its log: it starts once that block is final.
	Block    uint64 `json:"block"`
	Trigger  string `json:"trigger"`
	Owner    string `json:"owner"`
	Registry string `json:"registry"`
	OstcID   string `json:"ostcId"`
	Start    string `json:"start"`
	// Attempts counts its failed starts; LastError and LastAttemptAt are
	// the last one's (empty, zero: never tried or never failed).
	Attempts      int64     `json:"attempts"`
	LastError     string    `json:"lastError,omitempty"`
	LastAttemptAt time.Time `json:"lastAttemptAt,omitzero"`
}

// PendingList returns up to limit pending trigger starts, oldest block
// first (for inspection: two round trips).
func (x *Index) PendingList(ctx context.Context, limit int) ([]PendingStart, error) {
	z, err := x.rdb.ZRangeArgsWithScores(ctx, redis.ZRangeArgs{Key: x.pending(), Start: 0, Stop: int64(limit) - 1}).Result()
	if err != nil || len(z) == 0 {
		return nil, err
	}
	pipe := x.rdb.Pipeline()
	cmds := make([]*redis.MapStringStringCmd, len(z))
	for i, e := range z {
		cmds[i] = pipe.HGetAll(ctx, e.Member.(string))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, err
	}
	out := make([]PendingStart, 0, len(z))
	for i, e := range z {
		m := cmds[i].Val()
		p := PendingStart{Key: strings.TrimPrefix(e.Member.(string), x.prefix), Block: uint64(e.Score),
			Trigger: m["trigger"], Owner: m["owner"], Registry: m["registry"], OstcID: m["ostcId"], Start: m["start"], LastError: m["lastError"]}
		p.Attempts, _ = strconv.ParseInt(m["attempts"], 10, 64)
		if at, err := strconv.ParseInt(m["lastAttemptAt"], 10, 64); err == nil && at > 0 {
			p.LastAttemptAt = time.UnixMilli(at).UTC()
		}
		out = append(out, p)
	}
	return out, nil
}
