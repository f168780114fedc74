package joinstore_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/testenv"
)

// Every record of a finished session expires, whichever way it finished:
// its last commit, a kill of its waiting processes (one by one or the
// whole session, reaped), a cancelling commit, a release that aborts its
// last process, and a replica's MarkFinished (the safety net for a
// session whose finishing command stopped before its follow-up).
func TestFinishedSessionRecordsExpire(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour}), context.Background()
		table := joinstore.StepTable{"A1": {Reserve: 3}, "B1": {Reserve: 1}}
		valid := true
		// waiting starts a session whose A1 leaves three processes waiting
		// an hour, and a running one (B1) claimed; it returns the B1 claim.
		waiting := func(t *testing.T, key string) (joinstore.Root, joinstore.Claim) {
			res, err := s.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: "A1", Now: t0, IdempotencyKey: key})
			if err != nil {
				t.Fatal(err)
			}
			a, err := s.Claim(ctx, res.Root, t0, time.Minute, "w", table, []int64{1})
			if err != nil || len(a) != 1 {
				t.Fatalf("claim A1: %v %v", a, err)
			}
			f := a[0].FirstChild
			ch := []joinstore.Child{
				{Iter: f, ResumeStep: "B1", JoinGroupID: "0"},
				{Iter: f + 1, ResumeStep: "C1", JoinGroupID: "0", NextWakeAt: t0.Add(time.Hour)},
				{Iter: f + 2, ResumeStep: "C1", JoinGroupID: "0", NextWakeAt: t0.Add(time.Hour)},
			}
			if _, err := s.Commit(ctx, a[0], t0, joinstore.Commit{Status: "done", Valid: &valid, Children: ch}); err != nil {
				t.Fatal(err)
			}
			b, err := s.Claim(ctx, res.Root, t0, time.Minute, "w", table, []int64{f})
			if err != nil || len(b) != 1 {
				t.Fatalf("claim B1: %v %v", b, err)
			}
			return res.Root, b[0]
		}
		for _, tc := range []struct {
			name   string
			finish func(t *testing.T, root joinstore.Root, b joinstore.Claim)
		}{
			{"last commit", func(t *testing.T, root joinstore.Root, b joinstore.Claim) {
				if _, err := s.Kill(ctx, root, t0, b.Iter+1, b.Iter+2); err != nil {
					t.Fatal(err)
				}
				if _, err := s.Commit(ctx, b, t0, joinstore.Commit{Status: "done", Valid: &valid}); err != nil {
					t.Fatal(err)
				}
			}},
			{"kill of waiting processes", func(t *testing.T, root joinstore.Root, b joinstore.Claim) {
				if _, err := s.Commit(ctx, b, t0, joinstore.Commit{Status: "done", Valid: &valid}); err != nil {
					t.Fatal(err)
				}
				if _, err := s.Kill(ctx, root, t0, b.Iter+1, b.Iter+2); err != nil {
					t.Fatal(err)
				}
			}},
			{"kill of the session, reaped", func(t *testing.T, root joinstore.Root, b joinstore.Claim) {
				if _, err := s.Commit(ctx, b, t0, joinstore.Commit{Status: "done", Valid: &valid}); err != nil {
					t.Fatal(err)
				}
				if _, err := s.Kill(ctx, root, t0); err != nil {
					t.Fatal(err)
				}
			}},
			{"cancelling commit", func(t *testing.T, root joinstore.Root, b joinstore.Claim) {
				if _, err := s.Commit(ctx, b, t0, joinstore.Commit{Status: "aborted", AbortReason: "cancel", CancelSession: "cancel"}); err != nil {
					t.Fatal(err)
				}
				if _, err := s.Reap(ctx, root, t0, joinstore.ReapBatch); err != nil {
					t.Fatal(err)
				}
			}},
			{"release of a killed process", func(t *testing.T, root joinstore.Root, b joinstore.Claim) {
				if _, err := s.Kill(ctx, root, t0); err != nil {
					t.Fatal(err)
				}
				if r, err := s.Release(ctx, b, t0, t0.Add(time.Second)); err != nil || r != joinstore.Killed {
					t.Fatalf("release: %v %v", r, err)
				}
			}},
			{"MarkFinished after an unexpired finish", func(t *testing.T, root joinstore.Root, b joinstore.Claim) {
				if _, err := s.Commit(ctx, b, t0, joinstore.Commit{Status: "done", Valid: &valid}); err != nil {
					t.Fatal(err)
				}
				if _, err := s.Kill(ctx, root, t0, b.Iter+1, b.Iter+2); err != nil {
					t.Fatal(err)
				}
				// A finish whose records were left without a TTL (as an
				// older replica's kill left them): the replica that reports
				// the session's end sets it.
				for _, k := range sessionKeys(t, rdb, root) {
					if !strings.Contains(k, "}:p:") { // processes expire as they end
						rdb.Persist(ctx, k)
					}
				}
				s.MarkFinished(ctx, root, t0)
			}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				root, b := waiting(t, tc.name)
				tc.finish(t, root, b)
				meta, err := s.SessionMeta(ctx, root)
				if err != nil || meta.Status != joinstore.SessionFinished {
					t.Fatalf("session: %v %v: want finished", meta.Status, err)
				}
				keys := sessionKeys(t, rdb, root)
				if len(keys) == 0 {
					t.Fatal("no keys of the session found")
				}
				for _, k := range keys {
					ttl, err := rdb.TTL(ctx, k).Result()
					if err != nil {
						t.Fatal(err)
					}
					if ttl < 0 && ttl != -2*time.Nanosecond { // -2: gone meanwhile
						t.Errorf("%s has no TTL (%v) after the session finished", k, ttl)
					}
				}
			})
		}
	})
}

// sessionKeys finds every key under the session's hash tag (SCAN on every
// master of a cluster).
func sessionKeys(t *testing.T, rdb redis.UniversalClient, root joinstore.Root) []string {
	ctx := context.Background()
	prefix := strings.TrimSuffix(joinstore.KeyOf(root, ""), ":")
	var out []string
	scan := func(ctx context.Context, c *redis.Client) error {
		it := c.Scan(ctx, 0, prefix+":*", 1000).Iterator()
		for it.Next(ctx) {
			out = append(out, it.Val())
		}
		return it.Err()
	}
	var err error
	if cc, ok := rdb.(*redis.ClusterClient); ok {
		var mu sync.Mutex
		err = cc.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error {
			mu.Lock()
			defer mu.Unlock()
			return scan(ctx, c)
		})
	} else {
		err = scan(ctx, rdb.(*redis.Client))
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}
