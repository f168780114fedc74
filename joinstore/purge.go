package joinstore

import (
	"context"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// Purge deletes every key of a session, whatever its state, and its entries
// in the owner's and the global root indexes: for sessions that must leave
// nothing behind (xgr simulate on a shared Redis). It does not stop a
// replica running the session; callers purge sessions only they run.
func (s *Store) Purge(ctx context.Context, root Root) error {
	k := keysOf(root)
	last, err := s.rdb.HGet(ctx, k.meta(), "iter").Int64()
	if err != nil && err != redis.Nil {
		return fmt.Errorf("purge %s: %w", root, err)
	}
	keys := []string{k.meta(), k.due(), k.run(), k.steps(), k.targets(),
		k.lease(), k.jpend(), k.wq(), k.woken(), k.group("0")}
	flush := func(force bool) error {
		if len(keys) == 0 || (!force && len(keys) < 512) {
			return nil
		}
		// One hash tag: one slot, one command, also on a Cluster.
		if err := s.rdb.Unlink(ctx, keys...).Err(); err != nil {
			return fmt.Errorf("purge %s: %w", root, err)
		}
		keys = keys[:0]
		return nil
	}
	for it := int64(1); it <= last; it++ {
		keys = append(keys, k.proc(it), k.group(strconv.FormatInt(it, 10)), k.joinQueue(it), k.joinLock(it))
		if err := flush(false); err != nil {
			return err
		}
	}
	if err := flush(true); err != nil {
		return err
	}
	if err := s.rdb.ZRem(ctx, rootShardKey(root), root.String()).Err(); err != nil {
		return fmt.Errorf("purge %s: root index: %w", root, err)
	}
	if err := s.eval(ctx, scriptPurgeOwner, ownerKeysOf(root.Owner).all(), root.RootPid).Err(); err != nil {
		return fmt.Errorf("purge %s: owner index: %w", root, err)
	}
	return nil
}
