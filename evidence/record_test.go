package evidence

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/grant"
	"github.com/xgr-sidecar/xgr/internal/redisstat"
	"github.com/xgr-sidecar/xgr/testenv"
)

// Record stores a plaintext bundle and its owner's and grantees' grants in
// one round trip once the scripts are loaded (the first call loads them
// after a NOSCRIPT and sends again); a second Record of the same process
// writes nothing. An encrypted one still fails closed without a sealer.
// Single Redis and a 3-master Cluster.
func TestRecord(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		s := newStore(t, rdb, nil)
		gs := s.cfg.Grants
		now := time.Now()
		p := Policy{ExpireDays: 2, Grants: []Reader{{Address: auditor, Rights: grant.Read}}}
		st, err := s.Record(ctx, orderBundle(1), p, now)
		if err != nil || !st.Created || st.Encrypted {
			t.Fatalf("first Record: %+v %v", st, err)
		}
		rt := &redisstat.RoundTrips{}
		rdb.AddHook(rt)
		st, err = s.Record(ctx, orderBundle(2), p, now)
		if err != nil || !st.Created {
			t.Fatalf("Record: %+v %v", st, err)
		}
		if rt.N() != 1 {
			t.Fatalf("Record took %d round trips, want 1", rt.N())
		}
		for _, it := range []int64{1, 2} {
			body, err := s.Body(ctx, owner, 7, it)
			var b Bundle
			if err != nil || json.Unmarshal([]byte(body), &b) != nil || b.Iter != it {
				t.Fatalf("bundle %d: %v %s", it, err, body)
			}
			if ttl, _ := s.TTL(ctx, owner, 7, it); ttl < 47*time.Hour || ttl > 48*time.Hour {
				t.Fatalf("bundle %d TTL %s", it, ttl)
			}
			rid := LogRID(owner, 7, it)
			og, err1 := gs.Get(ctx, rid, grant.ScopeLog, owner)
			ag, err2 := gs.Get(ctx, rid, grant.ScopeLog, auditor)
			if err1 != nil || err2 != nil || og == nil || !og.IsOwner || ag == nil || !grant.MayRead(ag, auditor, rid, grant.ScopeLog, now) {
				t.Fatalf("bundle %d grants: owner %+v auditor %+v %v %v", it, og, ag, err1, err2)
			}
			page, err := gs.List(ctx, auditor, grant.Filter{}, now)
			if err != nil || len(page.Items) < 1 {
				t.Fatalf("auditor's list: %+v %v", page, err)
			}
		}
		again := orderBundle(2)
		again.Outcome.Result = Invalid
		st, err = s.Record(ctx, again, p, now)
		if err != nil || st.Created {
			t.Fatalf("Record again: %+v %v", st, err)
		}
		if body, _ := s.Body(ctx, owner, 7, 2); json.Valid([]byte(body)) && !containsValid(body) {
			t.Fatalf("the second Record replaced the bundle: %s", body)
		}
		if _, err := s.Record(ctx, orderBundle(3), Policy{Encrypt: true}, now); err == nil {
			t.Fatal("an encrypted Record without a sealer stored something")
		}
		if _, err := s.Head(ctx, owner, 7, 3); err != ErrNotFound {
			t.Fatalf("refused encrypted bundle: %v", err)
		}
	})
}

func containsValid(body string) bool {
	var b Bundle
	return json.Unmarshal([]byte(body), &b) == nil && b.Outcome.Result == Valid
}
