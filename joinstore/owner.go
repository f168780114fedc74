package joinstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"
)

// FinishedSessions returns how many of owner's sessions have finished (no
// live process left) and still have records: one ZCARD of the owner's
// expiry index, cheap enough to poll while sessions run.
func (s *Store) FinishedSessions(ctx context.Context, owner string) (int64, error) {
	if err := CheckOwner(owner); err != nil {
		return 0, err
	}
	return s.rdb.ZCard(ctx, ownerKeysOf(owner).expire()).Result()
}

// DeleteOwner deletes everything the store holds for owner: every key of
// its sessions (running or not), its owner indexes and billing meter, and
// its sessions' entries in the global root index and the meter's index of
// owners, so no replica looks for them again. It
// returns how many keys it deleted. It is for throwaway owners (xgr bench,
// tests); stop the replicas running the owner's sessions first, or they
// write some keys again.
func (s *Store) DeleteOwner(ctx context.Context, owner string) (int, error) {
	if err := CheckOwner(owner); err != nil {
		return 0, err
	}
	ok := ownerKeysOf(owner)
	roots := map[int64]bool{}
	ids, err := s.rdb.ZRange(ctx, ok.roots(), 0, -1).Result()
	if err != nil {
		return 0, fmt.Errorf("delete owner %s: %w", owner, err)
	}
	for _, id := range ids {
		if n, err := strconv.ParseInt(id, 10, 64); err == nil {
			roots[n] = true
		}
	}
	sessionPrefix := "xgr:{" + owner + ":"
	var mu sync.Mutex
	var found []string
	scan := func(ctx context.Context, c *redis.Client) error {
		for _, pattern := range []string{sessionPrefix + "*", ok.prefix + "*"} {
			it := c.Scan(ctx, 0, pattern, 1000).Iterator()
			for it.Next(ctx) {
				mu.Lock()
				found = append(found, it.Val())
				mu.Unlock()
			}
			if err := it.Err(); err != nil {
				return err
			}
		}
		return nil
	}
	switch c := s.rdb.(type) {
	case *redis.ClusterClient:
		err = c.ForEachMaster(ctx, scan)
	case *redis.Client:
		err = scan(ctx, c)
	default:
		err = fmt.Errorf("a %T cannot be scanned (want a *redis.Client or *redis.ClusterClient)", s.rdb)
	}
	if err != nil {
		return 0, fmt.Errorf("delete owner %s: scan: %w", owner, err)
	}
	for _, k := range found {
		// xgr:{<owner>:<rootPid>}:…
		if rest, isSession := strings.CutPrefix(k, sessionPrefix); isSession {
			if id, _, cut := strings.Cut(rest, "}"); cut {
				if n, err := strconv.ParseInt(id, 10, 64); err == nil {
					roots[n] = true
				}
			}
		}
	}
	pipe := s.rdb.Pipeline()
	for n := range roots {
		r := Root{Owner: owner, RootPid: n}
		pipe.ZRem(ctx, rootShardKey(r), r.String())
	}
	for _, k := range found {
		// Its billing meter goes too, and with it its entry in the day's
		// index of metered owners.
		if day, isMeter := strings.CutPrefix(k, ok.meter("")); isMeter {
			pipe.ZRem(ctx, meterOwnersKey(day), owner)
		}
	}
	deleted := make([]*redis.IntCmd, 0, len(found))
	for _, k := range found {
		// One key per command: a session's keys share a slot, different
		// sessions' keys need not.
		deleted = append(deleted, pipe.Unlink(ctx, k))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return 0, fmt.Errorf("delete owner %s: %w", owner, err)
	}
	n := 0
	for _, d := range deleted {
		n += int(d.Val())
	}
	return n, nil
}
