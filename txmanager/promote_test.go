package txmanager

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/testenv"
)

// promote.lua takes the records of the keys it promotes from KEYS: a key
// the queue holds whose record the caller did not declare (queued after
// the caller read the head) ends the promotion before any write for it. It
// and every key after it stay queued, unchanged and without a nonce; the
// next promotion gives them the next nonces, gap-free, in queue order.
func TestPromoteEndsAtAnUndeclaredKey(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		f := newFixtureOn(t, rdb)
		ctx := context.Background()
		// sub submits with a cap of 1, so that its first key (nonce 0)
		// makes the others queue; m promotes with room for all of them.
		sub := f.manager(func(c *Config) { c.MaxInFlight = 1 })
		m := f.manager(func(c *Config) { c.MaxInFlight = 8; c.LeaseTTL = time.Minute })
		submit := func(keys ...string) {
			t.Helper()
			for _, k := range keys {
				if _, err := sub.Submit(ctx, request(k)); err != nil {
					t.Fatal(err)
				}
			}
		}
		submit("p", "q/0", "q/1")
		// The head as the tick reads it (loadLive), then two more keys.
		head, err := rdb.ZRange(ctx, m.k.queue(), 0, int64(m.cfg.MaxInFlight)-1).Result()
		if err != nil || !reflect.DeepEqual(head, []string{"q/0", "q/1"}) {
			t.Fatalf("queue head %q, %v; want q/0 q/1", head, err)
		}
		submit("q/2", "q/3")
		queueBefore := rdb.ZRangeWithScores(ctx, m.k.queue(), 2, -1).Val()
		recsBefore := map[string]map[string]string{}
		for _, k := range []string{"q/2", "q/3"} {
			recsBefore[k] = rdb.HGetAll(ctx, m.k.record(k)).Val()
		}
		token, err := m.lease(ctx)
		if err != nil || token == "" {
			t.Fatalf("lease: %q, %v", token, err)
		}
		// q/2 is undeclared. q/3 is declared too: a declared key past the
		// undeclared one must wait as well, or it would take q/2's nonce.
		var rep TickReport
		if err := m.promote(ctx, token, append(head, "q/3"), &rep); err != nil {
			t.Fatalf("promote: %v", err)
		}
		if rep.Promoted != 2 {
			t.Fatalf("promoted %d keys; want 2 (q/0, q/1)", rep.Promoted)
		}
		nonces := func(want map[string]uint64) {
			t.Helper()
			for k, n := range want {
				r, err := m.Status(ctx, k)
				if err != nil || !r.HasNonce || r.Nonce != n || r.State != Signed {
					t.Errorf("%s: %+v, %v; want signed with nonce %d", k, r, err, n)
				}
			}
		}
		nonces(map[string]uint64{"q/0": 1, "q/1": 2})
		if got := rdb.ZRangeWithScores(ctx, m.k.queue(), 0, -1).Val(); !reflect.DeepEqual(got, queueBefore) {
			t.Errorf("queue after the promotion %v; want q/2, q/3 as before: %v", got, queueBefore)
		}
		for k, before := range recsBefore {
			if got := rdb.HGetAll(ctx, m.k.record(k)).Val(); !reflect.DeepEqual(got, before) || got["state"] != "queued" || got["nonce"] != "" {
				t.Errorf("record %s after the promotion %v; want it queued, without a nonce, as before: %v", k, got, before)
			}
		}
		if next := rdb.HGet(ctx, m.k.sender(), "next").Val(); next != "3" {
			t.Errorf("sender's next nonce %s; want 3", next)
		}
		// The next promotion reads the head again: q/2 and q/3 get 3 and 4.
		head, err = rdb.ZRange(ctx, m.k.queue(), 0, int64(m.cfg.MaxInFlight)-1).Result()
		if err != nil {
			t.Fatal(err)
		}
		rep = TickReport{}
		if err := m.promote(ctx, token, head, &rep); err != nil || rep.Promoted != 2 {
			t.Fatalf("second promotion: %d promoted, %v; want 2", rep.Promoted, err)
		}
		nonces(map[string]uint64{"q/2": 3, "q/3": 4})
		if n := rdb.ZCard(ctx, m.k.queue()).Val(); n != 0 {
			t.Errorf("%d keys still queued; want 0", n)
		}
		if next := rdb.HGet(ctx, m.k.sender(), "next").Val(); next != "5" {
			t.Errorf("sender's next nonce %s; want 5", next)
		}
		keys := []string{"p", "q/0", "q/1", "q/2", "q/3"}
		f.exactlyOnce(m.Sender(), f.settle(m, false, keys...))
	})
}
