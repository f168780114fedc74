package joinstore

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// A fresh session started with its start step's limits is adopted in one
// round trip: the root lease, what Open reads, and its root process
// claimed under a lease of its own, which commits like any claim's.
func TestAdoptClaimsAFreshSession(t *testing.T) {
	backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := newStore(rdb), context.Background()
		root := start(t, s, StartRequest{StartLimits: &StepLimits{Reserve: 2}, Payload: json.RawMessage(`{"n":12345678901234567890}`)}).Root
		a, err := s.Adopt(ctx, root, "r1", 10*time.Second, 30*time.Second, t0, t0.Add(10*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if a.Token != 1 || a.Meta.Status != SessionLive || a.Meta.StartStep != "A1" || len(a.Due) != 0 || a.NextOK {
			t.Fatalf("adoption: %+v", a)
		}
		if len(a.Claims) != 1 {
			t.Fatalf("claims %+v, want the root process", a.Claims)
		}
		c := a.Claims[0]
		if c.Pid != "1:1" || c.Iter != 1 || c.Token != 2 || c.FirstChild != 2 || c.Reserve != 2 || c.ResumeStep != "A1" ||
			string(c.ResumePlain) != `{"n":12345678901234567890}` || c.JoinGroupID != "0" || c.ThreadHeadPid != "1:1" ||
			!c.LeaseUntil.Equal(t0.Add(30*time.Second)) {
			t.Fatalf("claim: %+v", c)
		}
		p, _ := s.Process(ctx, root, 1)
		if l := p.Lease; p.Status != StatusRunning || l == nil || l.Token != 2 || l.FirstChild != 2 || l.Reserved != 2 || l.Holder != "r1" {
			t.Fatalf("claimed process: %+v %+v", p, p.Lease)
		}
		if z := rdb.ZScore(ctx, rootShardKey(root), root.String()).Val(); z != float64(t0.Add(10*time.Second).UnixMilli()) {
			t.Fatalf("root index score %v, want the lease's end", z)
		}
		// Another replica is refused; the holder keeps its token and
		// claims nothing twice.
		if _, err := s.Adopt(ctx, root, "r2", 10*time.Second, 30*time.Second, t0, t0); !errors.Is(err, ErrRootHeld) {
			t.Fatalf("second replica: %v", err)
		}
		again, err := s.Adopt(ctx, root, "r1", 10*time.Second, 30*time.Second, t0, t0)
		if err != nil || again.Token != 1 || len(again.Claims) != 0 {
			t.Fatalf("adopting again: %+v %v", again, err)
		}
		res, err := s.Commit(ctx, c, t0.Add(time.Second), Commit{Status: "done", Children: []Child{{Iter: 2, ResumeStep: "B1", JoinGroupID: "0"}}})
		if err != nil || res.Live != 1 {
			t.Fatalf("commit of the adopted claim: %+v %v", res, err)
		}
		if again, _ := s.Adopt(ctx, root, "r1", 10*time.Second, 30*time.Second, t0.Add(2*time.Second), t0); len(again.Claims) != 0 || len(again.Due) != 1 || again.Due[0] != 2 {
			t.Fatalf("a session that ran is not claimed by adoption: %+v", again)
		}
	})
}

// Adopt claims nothing it must not: a session started without limits, a
// root process not due yet, a paused one, a killed session, a session with
// an expired lease to recover first, and one whose window is full. A
// finished session is refused.
func TestAdoptClaimsOnlyWhatIsSafe(t *testing.T) {
	backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := newStore(rdb), context.Background()
		lim := &StepLimits{Reserve: 1}
		adopt := func(root Root, now time.Time) Adoption {
			t.Helper()
			a, err := s.Adopt(ctx, root, "r1", 10*time.Second, 30*time.Second, now, now)
			if err != nil {
				t.Fatal(err)
			}
			return a
		}
		if a := adopt(start(t, s, StartRequest{}).Root, t0); len(a.Claims) != 0 || len(a.Due) != 1 {
			t.Errorf("without limits: %+v", a)
		}
		later := start(t, s, StartRequest{StartLimits: lim, WakeAt: t0.Add(time.Minute)}).Root
		if a := adopt(later, t0); len(a.Claims) != 0 || !a.NextOK || !a.Next.Equal(t0.Add(time.Minute)) {
			t.Errorf("not due yet: %+v", a)
		}
		if a := adopt(start(t, s, StartRequest{StartLimits: lim, Paused: true}).Root, t0); len(a.Claims) != 0 {
			t.Errorf("paused: %+v", a)
		}
		killed := start(t, s, StartRequest{StartLimits: lim}).Root
		rdb.HSet(ctx, keysOf(killed).meta(), "killedAt", ms(t0))
		if a := adopt(killed, t0); len(a.Claims) != 0 || a.Meta.KilledAt.IsZero() {
			t.Errorf("killed: %+v", a)
		}
		expired := start(t, s, StartRequest{StartLimits: lim}).Root
		rdb.ZAdd(ctx, keysOf(expired).run(), redis.Z{Score: float64(t0.UnixMilli() - 1), Member: 7})
		if a := adopt(expired, t0); len(a.Claims) != 0 || len(a.Expired) != 1 || a.Expired[0] != 7 {
			t.Errorf("expired lease to recover: %+v", a)
		}
		full := start(t, s, StartRequest{StartLimits: lim, Window: 1}).Root
		rdb.ZAdd(ctx, keysOf(full).run(), redis.Z{Score: float64(t0.Add(time.Minute).UnixMilli()), Member: 9})
		if a := adopt(full, t0); len(a.Claims) != 0 {
			t.Errorf("window full: %+v", a)
		}
		bypass := start(t, s, StartRequest{StartLimits: &StepLimits{Bypass: true}, Window: 1}).Root
		rdb.ZAdd(ctx, keysOf(bypass).run(), redis.Z{Score: float64(t0.Add(time.Minute).UnixMilli()), Member: 9})
		if a := adopt(bypass, t0); len(a.Claims) != 1 {
			t.Errorf("a join-creating start step bypasses the window: %+v", a)
		}
		done := start(t, s, StartRequest{StartLimits: lim}).Root
		c := adopt(done, t0).Claims[0]
		if _, err := s.Commit(ctx, c, t0, Commit{Status: "done"}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Adopt(ctx, done, "r2", time.Second, time.Second, t0, t0); !errors.Is(err, ErrFinished) {
			t.Errorf("finished session: %v", err)
		}
		if _, err := s.Adopt(ctx, Root{Owner: owner, RootPid: 999}, "r1", time.Second, time.Second, t0, t0); !errors.Is(err, ErrFinished) {
			t.Errorf("no such session: %v", err)
		}
	})
}
