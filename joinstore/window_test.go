package joinstore

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// A commit claims its ready children only within the session's window,
// also when join-creating steps, which bypass the window, run beyond it:
// the room left is then none, not the "no window" of an unlimited session.
// (Window 1, two join-creating steps running and a plain step committing
// two children: the commit claimed both. Found by the differential test of
// the drivers, reactor/difftest.)
func TestCommitClaimsWithinAWindowOverfullByBypass(t *testing.T) {
	backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		s, ctx := newStore(rdb), context.Background()
		root := start(t, s, StartRequest{Window: 1}).Root
		c := claimAll(t, s, root, t0, 3)[0]
		if _, err := s.Commit(ctx, c, t0, Commit{Status: "done", Children: []Child{
			{Iter: 2, ResumeStep: "P1"}, {Iter: 3, ResumeStep: "J1"}, {Iter: 4, ResumeStep: "J2"}}}); err != nil {
			t.Fatal(err)
		}
		steps := StepTable{"P1": {Reserve: 2}, "J1": {Bypass: true}, "J2": {Bypass: true}}
		plain, err := s.Claim(ctx, root, t0, time.Minute, "w", steps, []int64{2})
		if err != nil || len(plain) != 1 {
			t.Fatalf("claim P1: %+v %v", plain, err)
		}
		if bypass, err := s.Claim(ctx, root, t0, time.Minute, "w", steps, []int64{3, 4}); err != nil || len(bypass) != 2 {
			t.Fatalf("the join-creating steps bypass the window: %+v %v", bypass, err)
		}
		p := plain[0]
		cr, err := s.Commit(ctx, p, t0, Commit{Status: "done", ClaimLease: time.Minute, Children: []Child{
			{Iter: p.FirstChild, ResumeStep: "C1"}, {Iter: p.FirstChild + 1, ResumeStep: "C2"}}})
		if err != nil {
			t.Fatal(err)
		}
		if len(cr.Claims) != 0 {
			t.Fatalf("window 1 with two join-creating steps running: the commit claimed %d children, want none", len(cr.Claims))
		}
		due, err := s.DueIters(ctx, root, t0, 10)
		if err != nil || len(due) != 2 {
			t.Fatalf("the children wait in the due set: %v %v", due, err)
		}
	})
}
