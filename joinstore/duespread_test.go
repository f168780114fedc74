package joinstore

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestDueWindows(t *testing.T) {
	for _, tc := range []struct {
		count       int64
		limit, turn int
		want        []int64
	}{
		{0, 256, 0, []int64{0}},
		{256, 256, 3, []int64{0}},
		{300, 256, 0, []int64{0, 256}},        // the newest 44 after the oldest 256
		{512, 256, 0, []int64{0, 256}},        // oldest and newest, nothing between
		{600, 256, 0, []int64{0, 344, 256}},   // 88 between: one window
		{600, 256, 7, []int64{0, 344, 256}},   // the only window between
		{1000, 256, 0, []int64{0, 744, 256}},  // 488 between: two windows
		{1000, 256, 1, []int64{0, 744, 512}},  // the next turn, the next one
		{1000, 256, 2, []int64{0, 744, 256}},  // and round again
		{1000, 256, -1, []int64{0, 744, 256}}, // a negative turn counts as 0
		{1000, 0, 0, []int64{0}},
	} {
		if got := DueWindows(tc.count, tc.limit, tc.turn); !slices.Equal(got, tc.want) {
			t.Errorf("DueWindows(%d, %d, %d) = %v, want %v", tc.count, tc.limit, tc.turn, got, tc.want)
		}
	}
}

// Issue 40 (fair scheduling across owners): thousands of one owner's due
// sessions came due before another owner's two; RootsDue's oldest 256 per
// shard name neither of the other owner's, RootsDueSpread names the newest
// at its first read and the one amid the backlog within a few turns, and
// every session once per read.
func TestRootsDueSpreadReadsPastABacklog(t *testing.T) {
	backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		s := newStore(rdb)
		const flood, victim = "0x00000000000000000000000000000000000000f1", "0x00000000000000000000000000000000000000a1"
		pipe := rdb.Pipeline()
		for i := range 16 * 700 {
			r := Root{Owner: flood, RootPid: int64(i + 1)}
			pipe.ZAdd(ctx, rootShardKey(r), redis.Z{Score: float64(t0.Add(time.Duration(i) * time.Millisecond).UnixMilli()), Member: r.String()})
		}
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatal(err)
		}
		newest, amid := Root{Owner: victim, RootPid: 1}, Root{Owner: victim, RootPid: 2}
		if err := s.MarkRoot(ctx, newest, t0.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if err := s.MarkRoot(ctx, amid, t0.Add(16*350*time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		now := t0.Add(2 * time.Hour)
		old, err := s.RootsDue(ctx, now, 256)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(old, newest) || slices.Contains(old, amid) {
			t.Fatalf("RootsDue's oldest 256 per shard name the victim's sessions: the test's backlog is too small")
		}
		seenAmid := -1
		for turn := range 4 {
			roots, err := s.RootsDueSpread(ctx, now, 256, turn)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(roots, newest) {
				t.Fatalf("turn %d: %d roots read, not the newest victim session", turn, len(roots))
			}
			seen := map[Root]bool{}
			for _, r := range roots {
				if seen[r] {
					t.Fatalf("turn %d: %s named twice", turn, r)
				}
				seen[r] = true
			}
			if seenAmid < 0 && seen[amid] {
				seenAmid = turn
			}
		}
		if seenAmid < 0 {
			t.Fatalf("the victim's session amid the backlog was not read in 4 turns")
		}
		t.Logf("the session amid the backlog was read at turn %d", seenAmid)
	})
}
