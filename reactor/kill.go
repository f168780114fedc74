package reactor

import (
	"context"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
)

// Kill kills a whole session (no iters: an O(1) mark and a first bounded
// batch, the replicas reap the rest) or some of its processes, as an
// operator or a control permit asks: waiting processes abort at once,
// running ones at their commit; kill-policy join targets aborted by the
// kill take their own groups down at once (no orchestration needed).
// Failure deliveries to open join targets are applied by the replica that
// runs the session. Results maps every affected iter to aborted, killing
// or finished.
func Kill(ctx context.Context, store *joinstore.Store, root joinstore.Root, now time.Time, iters ...int64) (joinstore.KillResult, error) {
	res, err := store.Kill(ctx, root, now, iters...)
	if err != nil {
		return res, err
	}
	return cascade(ctx, store, root, now, res)
}

// Reap aborts a batch of a killed session's waiting processes (see
// joinstore.Store.Reap), with the kill-policy cascade Kill has.
func Reap(ctx context.Context, store *joinstore.Store, root joinstore.Root, now time.Time) (joinstore.KillResult, error) {
	res, err := store.Reap(ctx, root, now, joinstore.ReapBatch)
	if err != nil {
		return res, err
	}
	return cascade(ctx, store, root, now, res)
}

// cascade takes down the groups of kill-policy targets a kill aborted.
func cascade(ctx context.Context, store *joinstore.Store, root joinstore.Root, now time.Time, res joinstore.KillResult) (joinstore.KillResult, error) {
	for i := 0; i < len(res.FollowUps); i++ {
		f := res.FollowUps[i]
		if !f.Kill {
			continue
		}
		jr, err := store.JoinStep(ctx, root, f.Target, now, time.Minute, KillGroup)
		if err != nil {
			return res, err
		}
		for _, it := range jr.Killed {
			res.Results[it] = "aborted"
		}
		res.FollowUps = append(res.FollowUps, jr.FollowUps...)
	}
	return res, nil
}
