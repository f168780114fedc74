package joinstore

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/internal/redisscan"
)

// Owners lists the owners that have a session index (their sessions may
// all have expired since), sorted. It scans every master: for inspection
// (the operator console), not a hot path.
func (s *Store) Owners(ctx context.Context) ([]string, error) {
	keys, err := redisscan.Keys(ctx, s.rdb, "xgr:{own:*}:roots")
	if err != nil {
		return nil, fmt.Errorf("owners: scan the session indexes: %w", err)
	}
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		owner := strings.TrimSuffix(strings.TrimPrefix(k, "xgr:{own:"), "}:roots")
		if CheckOwner(owner) == nil {
			out = append(out, owner)
		}
	}
	sort.Strings(out)
	return out, nil
}

// Overview is one session as a list shows it: its meta and when something
// last happened in it.
type Overview struct {
	Root      Root
	CreatedAt time.Time
	// Meta is the session's meta. When a field of it does not parse, Bad
	// says which (ErrBadRecord) and Meta holds the fields that do: a list
	// still shows the session.
	Meta SessionMeta
	Bad  error
	// LastStep is the time of the newest proc_steps entry (zero when no
	// step has committed yet).
	LastStep time.Time
}

// Overviews returns an owner's newest sessions (at most limit; 0 means
// 1000) whose records still exist, with their meta and last step time, in two pipelined round trips.
func (s *Store) Overviews(ctx context.Context, owner string, limit int) ([]Overview, error) {
	if limit <= 0 {
		limit = 1000
	}
	refs, err := s.Sessions(ctx, owner, 0, limit, false)
	if err != nil || len(refs) == 0 {
		return nil, err
	}
	pipe := s.rdb.Pipeline()
	metas := make([]*redis.MapStringStringCmd, len(refs))
	steps := make([]*redis.XMessageSliceCmd, len(refs))
	for i, r := range refs {
		k := keysOf(r.Root)
		metas[i] = pipe.HGetAll(ctx, k.meta())
		steps[i] = pipe.XRevRangeN(ctx, k.steps(), "+", "-", 1)
	}
	if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
		return nil, fmt.Errorf("sessions of %s: %w", owner, err)
	}
	out := make([]Overview, 0, len(refs))
	for i, r := range refs {
		fields := metas[i].Val()
		if len(fields) == 0 {
			continue // expired since the index was read
		}
		o := Overview{Root: r.Root, CreatedAt: r.CreatedAt}
		o.Meta, o.Bad = ParseSessionMeta(fields)
		if msgs := steps[i].Val(); len(msgs) == 1 {
			ms, _, _ := strings.Cut(msgs[0].ID, "-")
			if n, err := strconv.ParseInt(ms, 10, 64); err == nil {
				o.LastStep = time.UnixMilli(n)
			}
		}
		out = append(out, o)
	}
	return out, nil
}
