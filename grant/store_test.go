package grant

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/testenv"
)

// TestStore: grants written by the owner are read, listed and paged;
// revoked and expired grants read nothing and leave no key behind; a
// decision made on a view that changed is refused (stale); single Redis
// and a 3-master Cluster.
func TestStore(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		s := New(rdb)
		now := time.Now()
		r := RID{0xab, 1}
		// The rule contract (other) holds r; its owner() is owner, who
		// owns r and writes its first grants.
		rf := &RuleFacts{Contract: other, Owner: owner, RID: r}
		boot := Change{RID: r, Scope: ScopeRule, Actor: owner, SessionID: "7", RefAddr: other, Entries: []Entry{
			{Grantee: owner, Rights: All, ExpireAt: now.Add(time.Hour), IsOwner: true, EncDEK: "XGRK2.P256HKDFGCM.00ff"},
			{Grantee: reader, Rights: Read, ExpireAt: now.Add(time.Hour), EncDEK: "0x0304"},
			{Grantee: manager, Rights: Read | Manage, ExpireAt: now.Add(30 * time.Minute)},
		}}
		if p, err := s.ApplyRule(ctx, boot, rf, now); err != nil || p.Bootstrap || len(p.Writes) != 3 {
			t.Fatalf("bootstrap: %+v %v", p, err)
		}
		// Anyone else taking it is refused: the RID is the contract owner's.
		steal := Change{RID: r, Scope: ScopeRule, Actor: other, Entries: []Entry{{Grantee: other, Rights: All, ExpireAt: now.Add(time.Hour), IsOwner: true}}}
		var ref *Refusal
		if _, err := s.ApplyRule(ctx, steal, rf, now); !errors.As(err, &ref) || ref.Reason != "not-manager" {
			t.Fatalf("second bootstrap: %v", err)
		}
		got, err := s.Get(ctx, r, ScopeRule, reader)
		if err != nil || !MayRead(got, reader, r, ScopeRule, now) || got.EncDEK != "0x0304" || got.Owner != owner || got.SessionID != "7" || got.RefAddr != other {
			t.Fatalf("reader's grant: %+v %v", got, err)
		}
		// Wrong scope: nothing.
		if g, err := s.Get(ctx, r, ScopeLog, reader); err != nil || g != nil || MayRead(g, reader, r, ScopeLog, now) {
			t.Fatalf("scope 2: %+v %v", g, err)
		}
		// The manager grants onward within its rights; not beyond.
		if _, err := s.ApplyRule(ctx, Change{RID: r, Scope: ScopeRule, Actor: manager, Entries: []Entry{{Grantee: other, Rights: Read, ExpireAt: now.Add(10 * time.Minute)}}}, rf, now); err != nil {
			t.Fatalf("manager: %v", err)
		}
		if _, err := s.ApplyRule(ctx, Change{RID: r, Scope: ScopeRule, Actor: manager, Entries: []Entry{{Grantee: other, Rights: All, ExpireAt: now.Add(10 * time.Minute)}}}, rf, now); !errors.As(err, &ref) || ref.Reason != "rights-exceed" {
			t.Fatalf("manager beyond its rights: %v", err)
		}
		// Listing: the reader sees its own grant; the owner sees every grant
		// of the RID in RID mode.
		page, err := s.List(ctx, reader, Filter{}, now)
		if err != nil || len(page.Items) != 1 || page.Items[0].RID != r || page.NextCursor != 0 {
			t.Fatalf("reader's list: %+v %v", page, err)
		}
		page, err = s.List(ctx, owner, Filter{RID: &r, Scope: ScopeRule}, now)
		if err != nil || len(page.Items) != 4 {
			t.Fatalf("owner's RID list: %+v %v", page, err)
		}
		page, err = s.List(ctx, reader, Filter{RID: &r, Scope: ScopeRule}, now)
		if err != nil || len(page.Items) != 1 || page.Items[0].Grantee != reader {
			t.Fatalf("reader's RID list (not a manager: its own only): %+v %v", page, err)
		}
		// Revoke: the grant and its list entry are gone.
		if _, err := s.ApplyRule(ctx, Change{RID: r, Scope: ScopeRule, Actor: owner, Entries: []Entry{{Grantee: reader}}}, rf, now); err != nil {
			t.Fatal(err)
		}
		if g, err := s.Get(ctx, r, ScopeRule, reader); err != nil || g != nil || MayRead(g, reader, r, ScopeRule, now) {
			t.Fatalf("revoked: %+v %v", g, err)
		}
		if n, _ := rdb.Exists(ctx, Key(r, ScopeRule, reader)).Result(); n != 0 {
			t.Fatal("a revoked grant's key is still there")
		}
		if page, err := s.List(ctx, reader, Filter{}, now); err != nil || len(page.Items) != 0 {
			t.Fatalf("revoked grant listed: %+v %v", page, err)
		}
		// Stale: a plan decided before the manager's grant changed.
		c := Change{RID: r, Scope: ScopeRule, Actor: manager, Entries: []Entry{{Grantee: reader, Rights: Read, ExpireAt: now.Add(time.Minute)}}}
		v, _ := s.View(ctx, c, now)
		v.Rule = rf
		plan, err := Decide(c, v, now)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.ApplyRule(ctx, Change{RID: r, Scope: ScopeRule, Actor: owner, Entries: []Entry{{Grantee: manager}}}, rf, now); err != nil {
			t.Fatal(err)
		}
		if err := s.write(ctx, r, ScopeRule, plan.Writes, Key(r, ScopeRule, manager), plan.ActorPrint, false, now); !errors.Is(err, ErrStale) {
			t.Fatalf("stale plan applied: %v", err)
		}
		if g, _ := s.Get(ctx, r, ScopeRule, reader); g != nil {
			t.Fatal("a stale plan wrote a grant")
		}
	})
}

// TestGrantsExpire: a grant's key lives until its expiry; after it, the
// grant reads nothing, is not listed, and the RID and list indexes are
// gone once their last grant expired.
func TestGrantsExpire(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		s := New(rdb)
		now := time.Now()
		r := RID{0xee}
		if err := s.Put(ctx, r, ScopeLog, []Grant{
			{RID: r, Scope: ScopeLog, Grantee: owner, Rights: All, IsOwner: true, Owner: owner, ExpireAt: now.Add(1500 * time.Millisecond)},
			{RID: r, Scope: ScopeLog, Grantee: reader, Rights: Read, Owner: owner, ExpireAt: now.Add(800 * time.Millisecond)},
		}, now); err != nil {
			t.Fatal(err)
		}
		ttl, _ := rdb.PTTL(ctx, Key(r, ScopeLog, reader)).Result()
		if ttl <= 0 || ttl > 800*time.Millisecond {
			t.Fatalf("grant TTL %s, want its expiry (<= 800ms)", ttl)
		}
		if g, _ := s.Get(ctx, r, ScopeLog, reader); !MayRead(g, reader, r, ScopeLog, time.Now()) {
			t.Fatal("the grant reads nothing before its expiry")
		}
		time.Sleep(time.Second)
		if g, err := s.Get(ctx, r, ScopeLog, reader); err != nil || g != nil {
			t.Fatalf("expired grant still there: %+v %v", g, err)
		}
		if page, err := s.List(ctx, reader, Filter{}, time.Now()); err != nil || len(page.Items) != 0 {
			t.Fatalf("expired grant listed: %+v %v", page, err)
		}
		time.Sleep(800 * time.Millisecond)
		for _, k := range append(listKeys(owner), granteesKey(r, ScopeLog), Key(r, ScopeLog, owner)) {
			if n, _ := rdb.Exists(ctx, k).Result(); n != 0 {
				t.Errorf("%s outlives every grant", k)
			}
		}
	})
}

// TestListPages: a grantee's list pages with the cursor, every grant once,
// with the filters applied.
func TestListPages(t *testing.T) {
	rdb := testenv.StartRedis(t).Client()
	ctx := context.Background()
	s := New(rdb)
	now := time.Now()
	const n = 23
	for i := 0; i < n; i++ {
		r := RID{byte(i), 7}
		scope := ScopeLog
		if i%2 == 0 {
			scope = ScopeRule
		}
		if err := s.Put(ctx, r, scope, []Grant{{RID: r, Scope: scope, Grantee: reader, Rights: Read, ExpireAt: now.Add(time.Duration(i+1) * time.Hour)}}, now); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[RID]bool{}
	var cursor int64
	for pages := 0; ; pages++ {
		if pages > n {
			t.Fatal("the cursor does not end")
		}
		p, err := s.List(ctx, reader, Filter{Limit: 5, Cursor: cursor}, now)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Items) > 5 {
			t.Fatalf("page of %d, limit 5", len(p.Items))
		}
		for _, it := range p.Items {
			if seen[it.RID] {
				t.Fatalf("%s listed twice", it.RID)
			}
			seen[it.RID] = true
		}
		if p.NextCursor == 0 {
			break
		}
		cursor = p.NextCursor
	}
	if len(seen) != n {
		t.Fatalf("listed %d grants, want %d", len(seen), n)
	}
	to := now.Add(10*time.Hour + time.Minute)
	p, err := s.List(ctx, reader, Filter{Scope: ScopeRule, ExpireTo: &to}, now)
	if err != nil {
		t.Fatal(err)
	}
	// Scope 1: even i; expiring by 10h: i+1 <= 10 -> i in 0,2,4,6,8.
	if len(p.Items) != 5 {
		t.Fatalf("filtered: %d items, want 5: %v", len(p.Items), fmt.Sprint(p.Items))
	}
}
