package joinstore

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// FinishedSessions counts an owner's finished sessions; DeleteOwner removes
// every key of an owner (running and finished sessions, owner indexes, root
// index entries) and nothing of another owner.
func TestFinishedSessionsAndDeleteOwner(t *testing.T) {
	backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := newStore(rdb), context.Background()
		const other = "0x00000000000000000000000000000000000000bb"
		done := start(t, s, StartRequest{}).Root
		running := start(t, s, StartRequest{}).Root
		kept := start(t, s, StartRequest{Owner: other}).Root
		for _, r := range []Root{done, running, kept} {
			if err := s.MarkRoot(ctx, r, t0); err != nil {
				t.Fatal(err)
			}
		}
		if n, err := s.FinishedSessions(ctx, owner); err != nil || n != 0 {
			t.Fatalf("FinishedSessions before any commit: %d %v", n, err)
		}
		c := claimAll(t, s, done, t0, 0)
		if _, err := s.Commit(ctx, c[0], t0.Add(time.Second), Commit{Status: "done", Valid: new(bool)}); err != nil {
			t.Fatal(err)
		}
		claimAll(t, s, running, t0, 0) // in flight: a lease, a run entry
		if n, err := s.FinishedSessions(ctx, owner); err != nil || n != 1 {
			t.Fatalf("FinishedSessions after one session finished: %d %v", n, err)
		}

		n, err := s.DeleteOwner(ctx, owner)
		if err != nil || n == 0 {
			t.Fatalf("DeleteOwner: %d %v", n, err)
		}
		for _, pattern := range []string{"xgr:{" + owner + ":*", "xgr:{own:" + owner + "}:*"} {
			if left := keysMatching(t, rdb, pattern); len(left) != 0 {
				t.Errorf("keys of %s left: %v", owner, left)
			}
		}
		roots, err := s.RootsDue(ctx, t0.Add(time.Hour), 100)
		if err != nil || len(roots) != 1 || roots[0] != kept {
			t.Errorf("root index after DeleteOwner: %v %v, want only %v", roots, err, kept)
		}
		if meta, err := s.SessionMeta(ctx, kept); err != nil || meta.Status == "" {
			t.Errorf("the other owner's session: %v %v", meta, err)
		}
		if n, err := s.DeleteOwner(ctx, owner); err != nil || n != 0 {
			t.Errorf("DeleteOwner again: %d %v, want 0 keys", n, err)
		}
		if _, err := s.DeleteOwner(ctx, "alice"); err == nil {
			t.Error("DeleteOwner accepted an owner that is not an address")
		}
	})
}

func keysMatching(t *testing.T, rdb redis.UniversalClient, pattern string) []string {
	t.Helper()
	ctx := context.Background()
	var mu sync.Mutex
	var out []string
	scan := func(ctx context.Context, c *redis.Client) error {
		keys, err := c.Keys(ctx, pattern).Result()
		mu.Lock()
		out = append(out, keys...)
		mu.Unlock()
		return err
	}
	var err error
	if cc, ok := rdb.(*redis.ClusterClient); ok {
		err = cc.ForEachMaster(ctx, scan)
	} else {
		err = scan(ctx, rdb.(*redis.Client))
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}
