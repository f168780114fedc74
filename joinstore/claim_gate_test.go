package joinstore_test

import (
	"context"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/testenv"
)

// A waiting producer whose group's join closed with kill is aborted instead
// of run (the dispatch gate), also before the kill reached the group: an
// operator's kill of a kill-policy join target closes its join at once, and
// the group's waiting members are killed by a second transition
// (reactor.Kill's cascade), which the killer may not get to run. claim used
// to run them meanwhile.
func TestClaimGatesAKillClosedGroup(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx, root, table, a := startClaimedRoot(t, rdb, 3)
		// A creates the join J (policy kill, iter 2) over P1 and P2 (iters 3
		// and 4, in J's fresh group "2").
		valid := true
		if _, err := s.Commit(ctx, a, t0, joinstore.Commit{Status: "done", Valid: &valid, Payload: []byte(`{}`), Children: killJoin(2, "J", "P1", "P2")}); err != nil {
			t.Fatal(err)
		}
		kr, err := s.Kill(ctx, root, t0, 2)
		if err != nil || kr.Results[2] != "aborted" || len(kr.FollowUps) != 1 || !kr.FollowUps[0].Kill {
			t.Fatalf("kill the target: %+v %v", kr, err)
		}
		// The cascade (a join step on J that kills its group) has not run.
		got, err := s.Claim(ctx, root, t0, time.Minute, "w", table, []int64{3, 4})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 0 {
			t.Fatalf("claim ran %d producers of a group whose join closed with kill", len(got))
		}
		for _, it := range []int64{3, 4} {
			p, err := s.Process(ctx, root, it)
			if err != nil || p.Status != joinstore.StatusAborted || p.AbortReason != "gated" {
				t.Errorf("producer %d: status %q, reason %q (%v), want aborted, gated", it, p.Status, p.AbortReason, err)
			}
		}
		if m, _ := s.SessionMeta(ctx, root); m.Live != 0 || m.Status != joinstore.SessionFinished {
			t.Errorf("session live %d, status %q: want 0, finished", m.Live, m.Status)
		}
	})
}

// claim.lua reaches declared keys only: the dispatch gate of a candidate
// in a group with a join target reads the target's record and, for a gated
// candidate, removes it from the group's member hash, keys Go does not know
// before the script read the candidate. The first call writes nothing and
// names them ("need"); Store.Claim repeats the claim once with them
// declared. Here one claim holds producers of a group whose join closed
// with kill (gated) and a producer of a group whose join is open (claimed).
func TestClaimRepeatsWithTheGateKeysDeclared(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx, root, table, a := startClaimedRoot(t, rdb, 6)
		// A creates the join J (policy kill, iter 2) over P1 and P2 (iters 3
		// and 4, group "2") and the join K (policy kill, iter 5) over Q1 and
		// Q2 (iters 6 and 7, group "5").
		valid := true
		if _, err := s.Commit(ctx, a, t0, joinstore.Commit{Status: "done", Valid: &valid, Payload: []byte(`{}`), Children: append(killJoin(2, "J", "P1", "P2"), killJoin(5, "K", "Q1", "Q2")...)}); err != nil {
			t.Fatal(err)
		}
		// An operator kills J: its join closes with kill; the cascade that
		// kills its group has not run.
		kr, err := s.Kill(ctx, root, t0, 2)
		if err != nil || kr.Results[2] != "aborted" {
			t.Fatalf("kill the target: %+v %v", kr, err)
		}
		groupMembers := func(g string) map[string]string {
			m, err := rdb.HGetAll(ctx, joinstore.KeyOf(root, "g:"+g)).Result()
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		dueOf := func() []string {
			d, err := rdb.ZRange(ctx, joinstore.KeyOf(root, "due"), 0, -1).Result()
			if err != nil {
				t.Fatal(err)
			}
			return d
		}
		cands := []int64{3, 6, 4}

		// The first call alone: it names every candidate's gate keys and
		// writes nothing.
		dueBefore, g2Before, metaBefore := dueOf(), groupMembers("2"), mustSession(t, s, root)
		need, err := s.ClaimFirstCall(ctx, root, t0, time.Minute, "w", table, cands)
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"need", "3", "2", "2", "6", "5", "5", "4", "2", "2"}; !reflect.DeepEqual(need, want) {
			t.Fatalf("first call replied %q, want %q", need, want)
		}
		if d, g, m := dueOf(), groupMembers("2"), mustSession(t, s, root); !reflect.DeepEqual(d, dueBefore) || !reflect.DeepEqual(g, g2Before) || !reflect.DeepEqual(m, metaBefore) {
			t.Fatalf("the first call wrote: due %v -> %v, g:2 %v -> %v, meta %v -> %v", dueBefore, d, g2Before, g, metaBefore, m)
		}
		for _, it := range cands {
			if p, err := s.Process(ctx, root, it); err != nil || p.Status != joinstore.StatusWaiting {
				t.Fatalf("after the first call %d is %q (%v), want waiting", it, p.Status, err)
			}
		}

		// Through Store.Claim: the repeat gates P1, P2 and claims Q1.
		got, err := s.Claim(ctx, root, t0, time.Minute, "w", table, cands)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].Iter != 6 || got[0].JoinGroupID != "5" || got[0].GroupTarget != 5 || got[0].ResumeStep != "Q1" {
			t.Fatalf("claimed %+v, want Q1 (iter 6, group 5, target 5)", got)
		}
		for _, it := range []int64{3, 4} {
			p, err := s.Process(ctx, root, it)
			if err != nil || p.Status != joinstore.StatusAborted || p.AbortReason != "gated" {
				t.Errorf("producer %d: status %q, reason %q (%v), want aborted, gated", it, p.Status, p.AbortReason, err)
			}
		}
		if g := groupMembers("2"); len(g) != 0 {
			t.Errorf("gated producers still members of group 2: %v", g)
		}
		if g := groupMembers("5"); g["6"] == "" || g["7"] == "" {
			t.Errorf("group 5 lost a member: %v", g)
		}
		if d := dueOf(); !reflect.DeepEqual(d, []string{"7"}) {
			t.Errorf("due set %v, want [7]", d)
		}
		// live: A done, J aborted; P1, P2 gated; K, Q1, Q2 live.
		if m := mustSession(t, s, root); m.Live != 3 || m.Status == joinstore.SessionFinished {
			t.Errorf("session live %d, status %q: want 3, not finished", m.Live, m.Status)
		}
	})
}

func mustSession(t *testing.T, s *joinstore.Store, root joinstore.Root) joinstore.SessionMeta {
	t.Helper()
	m, err := s.SessionMeta(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// startClaimedRoot starts a session at step A (whose claim reserves
// reserve child iters) and claims its root process.
func startClaimedRoot(t *testing.T, rdb redis.UniversalClient, reserve int) (*joinstore.Store, context.Context, joinstore.Root, joinstore.StepTable, joinstore.Claim) {
	t.Helper()
	s, ctx := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour}), context.Background()
	res, err := s.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: "A", Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	table := joinstore.StepTable{"A": {Reserve: reserve, Bypass: true}}
	a, err := s.Claim(ctx, res.Root, t0, time.Minute, "w", table, []int64{1})
	if err != nil || len(a) != 1 {
		t.Fatalf("claim the root: %v %v", a, err)
	}
	return s, ctx, res.Root, table, a[0]
}

// killJoin are the children that create join target step at iter (policy
// kill, k=2, in the root group) and its two producers p1 and p2 at the
// next iters, in the target's fresh group.
func killJoin(iter int64, step, p1, p2 string) []joinstore.Child {
	g := strconv.FormatInt(iter, 10)
	return []joinstore.Child{
		{Iter: iter, ResumeStep: step, JoinGroupID: "0", ResumePlain: []byte(`{}`),
			Join: &joinstore.JoinSpec{FromGroup: g, From: []registry.From{{Node: p1}, {Node: p2}}, K: 2, Policy: registry.PolicyKill}},
		{Iter: iter + 1, ResumeStep: p1, JoinGroupID: g},
		{Iter: iter + 2, ResumeStep: p2, JoinGroupID: g},
	}
}
