package joinstore

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// allKeys lists every key of a single server or of every master of a
// cluster.
func allKeys(t *testing.T, rdb redis.UniversalClient) []string {
	t.Helper()
	ctx := context.Background()
	var mu sync.Mutex
	var out []string
	collect := func(ctx context.Context, c *redis.Client) error {
		keys, err := c.Keys(ctx, "*").Result()
		mu.Lock()
		out = append(out, keys...)
		mu.Unlock()
		return err
	}
	var err error
	switch c := rdb.(type) {
	case *redis.ClusterClient:
		err = c.ForEachMaster(ctx, collect)
	case *redis.Client:
		err = collect(ctx, c)
	}
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// Purge leaves nothing of a session: its keys, its root index entry, its
// owner index entries (the owner's keys too once it has no session left).
func TestPurge(t *testing.T) {
	backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := newStore(rdb), context.Background()
		first := start(t, s, StartRequest{IdempotencyKey: "k1"}).Root
		claims := claimAll(t, s, first, t0, 2)
		valid := true
		if _, err := s.Commit(ctx, claims[0], t0, Commit{Status: "done", Valid: &valid, Worker: "w1", Children: []Child{
			{Iter: claims[0].FirstChild, ResumeStep: "B1", ResumePlain: json.RawMessage(`{}`), JoinGroupID: "0"},
			{Iter: claims[0].FirstChild + 1, ResumeStep: "C1", NextWakeAt: t0.Add(time.Minute), JoinGroupID: "0"},
		}}); err != nil {
			t.Fatal(err)
		}
		second := start(t, s, StartRequest{IdempotencyKey: "k2"}).Root
		before := allKeys(t, rdb)

		if err := s.Purge(ctx, first); err != nil {
			t.Fatal(err)
		}
		for _, k := range allKeys(t, rdb) {
			if strings.Contains(k, "{"+first.String()+"}") {
				t.Errorf("purged session's key %s left", k)
			}
		}
		if refs, err := s.Sessions(ctx, owner, 0, 10, true); err != nil || len(refs) != 1 || refs[0].Root != second {
			t.Errorf("owner's sessions after purging %s: %+v %v", first, refs, err)
		}
		if due, _ := s.RootsDue(ctx, t0.Add(time.Hour), 10); len(due) != 1 || due[0] != second {
			t.Errorf("root index after purging %s: %v", first, due)
		}
		if again := start(t, s, StartRequest{IdempotencyKey: "k1"}); again.Ack != "queued" || again.Root.RootPid != 3 {
			t.Errorf("the purged session's idempotency key still names it: %+v", again)
		}
		if err := s.Purge(ctx, second); err != nil {
			t.Fatal(err)
		}
		if err := s.Purge(ctx, Root{Owner: owner, RootPid: 3}); err != nil {
			t.Fatal(err)
		}
		if left := allKeys(t, rdb); len(left) != 0 {
			t.Errorf("keys left after purging every session (%d before): %v", len(before), left)
		}
	})
}
