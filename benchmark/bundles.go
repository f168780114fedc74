package benchmark

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/grant"
	"github.com/xgr-sidecar/xgr/internal/redisscan"
)

// bundleKeys are the bench owner's log bundles: key, root pid, iteration.
func (b *bench) bundleKeys(ctx context.Context) ([]string, [][2]int64, error) {
	prefix := "xgr:log:{" + b.owner + ":"
	keys, err := redisscan.Keys(ctx, b.ctl, prefix+"*")
	if err != nil {
		return nil, nil, err
	}
	ids := make([][2]int64, len(keys))
	for i, k := range keys {
		root, iter, ok := strings.Cut(strings.TrimPrefix(k, prefix), "}:")
		r, err1 := strconv.ParseInt(root, 10, 64)
		it, err2 := strconv.ParseInt(iter, 10, 64)
		if !ok || err1 != nil || err2 != nil {
			return nil, nil, fmt.Errorf("log bundle key %q: want %s<rootPid>}:<iter>", k, prefix)
		}
		ids[i] = [2]int64{r, it}
	}
	return keys, ids, nil
}

// bundles counts the bench's log bundles and their mean body size.
func (b *bench) bundles(ctx context.Context) (int64, float64, error) {
	keys, _, err := b.bundleKeys(ctx)
	if err != nil || len(keys) == 0 {
		return 0, 0, err
	}
	pipe := b.ctl.Pipeline()
	for _, k := range keys {
		pipe.HGet(ctx, k, "bytes")
	}
	cmds, err := pipe.Exec(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("log bundles: %w", err)
	}
	var total int64
	for _, c := range cmds {
		n, _ := strconv.ParseInt(c.(interface{ Val() string }).Val(), 10, 64)
		total += n
	}
	return int64(len(keys)), float64(total) / float64(len(keys)), nil
}

// deleteBundles removes the bench's log bundles and the owner grants on
// them (each bundle's RID is its field rid).
func (b *bench) deleteBundles(ctx context.Context) error {
	keys, _, err := b.bundleKeys(ctx)
	if err != nil {
		return err
	}
	gs := grant.New(b.ctl)
	for _, k := range keys {
		raw, err := b.ctl.HGet(ctx, k, "rid").Result()
		if err != nil && err != redis.Nil {
			return err
		}
		if rid, perr := grant.ParseRID(raw); perr == nil {
			if err := gs.Delete(ctx, rid, grant.ScopeLog, []string{b.owner}, time.Now()); err != nil {
				return err
			}
		}
		if err := b.ctl.Del(ctx, k).Err(); err != nil {
			return err
		}
	}
	return nil
}
