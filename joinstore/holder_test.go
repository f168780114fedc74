package joinstore

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// A replica that adopts a session after the previous holder's root lease
// expired learns who held it (meta prevHolder) and which processes it left
// running (Expired): what the takeover log and metric report.
func TestAdoptNamesThePreviousHolder(t *testing.T) {
	backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := newStore(rdb), context.Background()
		root := start(t, s, StartRequest{StartLimits: &StepLimits{Reserve: 2}}).Root
		first, err := s.Adopt(ctx, root, "r1", 100*time.Millisecond, 100*time.Millisecond, t0, t0)
		if err != nil || len(first.Claims) != 1 {
			t.Fatalf("r1: %+v %v", first, err)
		}
		if first.Meta.Holder != "r1" || first.Meta.PrevHolder != "" {
			t.Fatalf("first adoption: holder %q, prevHolder %q", first.Meta.Holder, first.Meta.PrevHolder)
		}
		// r1 "crashes": its root lease expires (Redis's TTL) and so does its
		// process's lease (its score in the run set, judged at now).
		time.Sleep(150 * time.Millisecond)
		later := t0.Add(time.Second)
		second, err := s.Adopt(ctx, root, "r2", 10*time.Second, 30*time.Second, later, later)
		if err != nil {
			t.Fatal(err)
		}
		if second.Meta.Holder != "r2" || second.Meta.PrevHolder != "r1" || len(second.Expired) != 1 || second.Token <= first.Token {
			t.Fatalf("takeover: holder %q, prevHolder %q, expired %v, token %d after %d",
				second.Meta.Holder, second.Meta.PrevHolder, second.Expired, second.Token, first.Token)
		}
	})
}

// A lease taken through AcquireRoot (a replica's claim round) records its
// holder too, so that the replica that adopts the session after it died
// names it.
func TestAcquireRecordsTheHolder(t *testing.T) {
	backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := newStore(rdb), context.Background()
		root := start(t, s, StartRequest{}).Root
		if _, err := s.AcquireRoot(ctx, root, "r1", 100*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		time.Sleep(150 * time.Millisecond)
		later := t0.Add(time.Second)
		ad, err := s.Adopt(ctx, root, "r2", 10*time.Second, 30*time.Second, later, later)
		if err != nil {
			t.Fatal(err)
		}
		if ad.Meta.Holder != "r2" || ad.Meta.PrevHolder != "r1" {
			t.Fatalf("adoption after an acquired lease: holder %q, prevHolder %q", ad.Meta.Holder, ad.Meta.PrevHolder)
		}
	})
}
