package joinstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/testenv"
)

// The typed meta holds every field the scripts write to a session's meta
// hash: through a session's life — started with a window, an allow list
// and a gas budget, adopted by two replicas, paused and resumed, its steps
// committed (an invalid end, a hard error), killed — SessionMeta read back
// as stored (Fields) is the hash as Redis holds it. The one difference: a
// resumed session's "paused" "0", which the typed record keeps as false,
// as it keeps a session never paused.
func TestSessionMetaHoldsEveryStoredField(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour}), context.Background()
		res, err := s.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: "A1", Now: t0, Window: 3, IdempotencyKey: "order-1", MaxTotalGas: 500000,
			Payload: json.RawMessage(`{"a":1,"__wakeUp":{"default":{"rpc":["0x00000000000000000000000000000000000000AB"]}}}`)})
		if err != nil {
			t.Fatal(err)
		}
		root := res.Root
		metaKey := "xgr:{" + root.Owner + ":" + strconv.FormatInt(root.RootPid, 10) + "}:meta"
		check := func(when string) joinstore.SessionMeta {
			t.Helper()
			stored, err := rdb.HGetAll(ctx, metaKey).Result()
			if err != nil {
				t.Fatal(err)
			}
			if stored["paused"] == "0" {
				delete(stored, "paused")
			}
			meta, err := s.SessionMeta(ctx, root)
			if err != nil {
				t.Fatalf("%s: %v", when, err)
			}
			if got := meta.Fields(); !maps.Equal(got, stored) {
				t.Fatalf("%s: the typed meta as stored:\n%v\nthe hash:\n%v", when, got, stored)
			}
			if again, err := joinstore.ParseSessionMeta(meta.Fields()); err != nil || !reflect.DeepEqual(again, meta) {
				t.Fatalf("%s: ParseSessionMeta(Fields()) = %+v, %v; want %+v", when, again, err, meta)
			}
			return meta
		}
		if m := check("started"); m.Window != 3 || m.StartKey != "order-1" || m.MaxTotalGas != "500000" || m.WakeUp == "" {
			t.Errorf("started: %+v", m)
		}
		for _, replica := range []string{"r1", "r2"} {
			token, err := s.AcquireRoot(ctx, root, replica, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			check("adopted by " + replica)
			if _, err := s.ReleaseRoot(ctx, root, replica, token); err != nil {
				t.Fatal(err)
			}
		}
		if m := check("handed over"); m.Holder != "r2" || m.PrevHolder != "r1" || m.Fence == 0 {
			t.Errorf("handed over: holder %q, prevHolder %q, fence %d", m.Holder, m.PrevHolder, m.Fence)
		}
		if _, err := s.Pause(ctx, root, t0, true); err != nil {
			t.Fatal(err)
		}
		if m := check("paused"); !m.Paused {
			t.Errorf("paused: the typed meta is not")
		}
		if _, err := s.Pause(ctx, root, t0, false); err != nil {
			t.Fatal(err)
		}
		if m := check("resumed"); m.Paused {
			t.Errorf("resumed: the typed meta is still paused")
		}
		table := joinstore.StepTable{"A1": {Reserve: 2}}
		a, err := s.Claim(ctx, root, t0, time.Minute, "w", table, []int64{1})
		if err != nil || len(a) != 1 {
			t.Fatalf("claim: %v %v", a, err)
		}
		ch := []joinstore.Child{
			{Iter: a[0].FirstChild, ResumeStep: "B1", JoinGroupID: "0"},
			{Iter: a[0].FirstChild + 1, ResumeStep: "C1", JoinGroupID: "0", NextWakeAt: t0.Add(time.Hour)},
		}
		if _, err := s.Commit(ctx, a[0], t0, joinstore.Commit{Status: "done", Children: ch}); err != nil {
			t.Fatal(err)
		}
		check("a step committed")
		b, err := s.Claim(ctx, root, t0, time.Minute, "w", table, []int64{a[0].FirstChild})
		if err != nil || len(b) != 1 {
			t.Fatalf("claim: %v %v", b, err)
		}
		invalid := false
		if _, err := s.Commit(ctx, b[0], t0, joinstore.Commit{Status: "done", Valid: &invalid}); err != nil {
			t.Fatal(err)
		}
		if m := check("an invalid end"); m.InvalidEnds != 1 {
			t.Errorf("an invalid end: invalidEnds %d", m.InvalidEnds)
		}
		if _, err := s.KillSession(ctx, root, t0.Add(time.Second), "stop it"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Reap(ctx, root, t0.Add(time.Second), 10); err != nil {
			t.Fatal(err)
		}
		if m := check("killed"); m.KilledAt.IsZero() || m.KillReason != "stop it" || m.KillKind != joinstore.KillKindKill || m.Status != joinstore.SessionFinished || m.FinishedAt.IsZero() {
			t.Errorf("killed: %+v", m)
		}
	})
}

// CheckSession tells whether a session exists without reading it; a
// missing one is ErrNotFound, as SessionMeta says.
func TestCheckSession(t *testing.T) {
	s, ctx := joinstore.New(testenv.StartRedis(t).Client(), joinstore.Config{SessionTTL: time.Hour}), context.Background()
	res, err := s.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: "A1", Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CheckSession(ctx, res.Root); err != nil {
		t.Errorf("an existing session: %v", err)
	}
	missing := joinstore.Root{Owner: owner, RootPid: 99}
	if err := s.CheckSession(ctx, missing); !errors.Is(err, joinstore.ErrNotFound) {
		t.Errorf("a missing session: %v, want ErrNotFound", err)
	}
	if _, err := s.SessionMeta(ctx, missing); !errors.Is(err, joinstore.ErrNotFound) {
		t.Errorf("SessionMeta of a missing session: %v, want ErrNotFound", err)
	}
}
