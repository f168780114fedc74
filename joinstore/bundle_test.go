package joinstore

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// A commit with a bundle writes it with the step, once: its record keeps
// the commit's status and the session's step count comes back; a fenced
// commit writes none; a key outside the session's slot is refused before
// anything is sent; commands queued Before go first (their failure is
// reported, the commit stands), and on a Cluster they are refused.
func TestCommitWithBundle(t *testing.T) {
	backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := newStore(rdb), context.Background()
		root := start(t, s, StartRequest{}).Root
		key := "xgr:log:{" + root.String() + "}:1"
		c := claimAll(t, s, root, t0, 0)[0]
		valid := true
		b := &BundleWrite{Key: key, TTL: time.Hour, Fields: []any{"v", 1, "body", `{"x":1}`}}

		if _, err := s.Commit(ctx, c, t0, Commit{Status: "done", Valid: &valid, Bundle: &BundleWrite{Key: "xgr:log:{other:1}:1", TTL: time.Hour, Fields: b.Fields}}); err == nil ||
			!strings.Contains(err.Error(), "hash tag") {
			t.Fatalf("a bundle outside the session's slot: %v", err)
		}
		_, cluster := rdb.(*redis.ClusterClient)
		before := *b
		before.Before = func(p redis.Pipeliner) error {
			p.Eval(ctx, "return redis.error_reply('BEFORE failed')", []string{key})
			return nil
		}
		if cluster {
			if _, err := s.Commit(ctx, c, t0, Commit{Status: "done", Valid: &valid, Bundle: &before}); err == nil || !strings.Contains(err.Error(), "Cluster") {
				t.Fatalf("Before on a Cluster: %v", err)
			}
			before.Before = nil
		}
		res, err := s.Commit(ctx, c, t0, Commit{Status: "done", Valid: &valid, Bundle: &before})
		if err != nil || !res.Bundle || res.Steps != 1 {
			t.Fatalf("commit with its bundle: %+v %v", res, err)
		}
		if !cluster && (res.BundleErr == nil || !strings.Contains(res.BundleErr.Error(), "BEFORE failed")) {
			t.Fatalf("Before's failure: %v", res.BundleErr)
		}
		f := rdb.HGetAll(ctx, key).Val()
		if f["status"] != "done" || f["body"] != `{"x":1}` || f["pending"] != "" || rdb.PTTL(ctx, key).Val() <= 0 {
			t.Fatalf("bundle record %v", f)
		}
		// Again with the spent token: fenced, nothing written.
		_, err = s.Commit(ctx, c, t0, Commit{Status: "done", Valid: &valid, Bundle: &BundleWrite{Key: key, TTL: time.Hour, Fields: []any{"body", "other"}}})
		if !errors.Is(err, ErrLeaseLost) || rdb.HGet(ctx, key, "body").Val() != `{"x":1}` {
			t.Fatalf("fenced commit: %v; body %q", err, rdb.HGet(ctx, key, "body").Val())
		}
	})
}
