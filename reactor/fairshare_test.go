package reactor

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/xgr-sidecar/xgr/joinstore"
)

// fairRoots makes due roots from "owner:n" words, e.g. "f:3 v:1" is three
// roots of owner f then one of owner v (owners are short names here:
// fairPick does not parse them).
func fairRoots(spec string) []joinstore.Root {
	var out []joinstore.Root
	pid := int64(0)
	for _, w := range strings.Fields(spec) {
		var o string
		var n int
		if _, err := fmt.Sscanf(strings.Replace(w, ":", " ", 1), "%s %d", &o, &n); err != nil {
			panic(w)
		}
		for range n {
			pid++
			out = append(out, joinstore.Root{Owner: o, RootPid: pid})
		}
	}
	return out
}

func ownersOf(roots []joinstore.Root) string {
	var b strings.Builder
	for _, r := range roots {
		b.WriteString(r.Owner)
	}
	return b.String()
}

func TestFairPick(t *testing.T) {
	weights := func(ws map[string]int) func(string) int {
		return func(o string) int { return ws[o] }
	}
	for _, tc := range []struct {
		name    string
		due     string
		running map[string]int
		weights map[string]int
		slots   int
		want    string // the picked roots' owners, in order
	}{
		{name: "nothing due", due: "", slots: 4, want: ""},
		{name: "no free slot", due: "f:3 v:1", slots: 0, want: ""},
		{name: "one owner keeps due order", due: "f:3", slots: 2, want: "ff"},
		{name: "a flood's backlog does not go first", due: "f:100 v:1", slots: 1, want: "f"},
		{name: "the victim gets the second slot", due: "f:100 v:1", slots: 2, want: "fv"},
		{name: "round robin between equal weights", due: "f:5 g:5 v:1", slots: 7, want: "fgvfgfg"},
		{name: "an owner running more than its share waits", due: "f:100 v:2", running: map[string]int{"f": 31}, slots: 1, want: "v"},
		{name: "until the shares are equal", due: "f:100 v:5", running: map[string]int{"f": 3}, slots: 6, want: "vvvfvf"},
		{name: "weights divide the slots", due: "f:10 v:10", weights: map[string]int{"v": 3}, slots: 8, want: "fvvvfvvv"},
		{name: "weight below 1 counts as 1", due: "f:2 v:2", weights: map[string]int{"f": -5, "v": 0}, slots: 4, want: "fvfv"},
		{name: "no cap: every due root, fair order", due: "f:3 v:1", slots: -1, want: "fvff"},
		{name: "fewer due than slots", due: "f:1 v:1", slots: 5, want: "fv"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			due := fairRoots(tc.due)
			got := fairPick(due, tc.running, weights(tc.weights), tc.slots)
			if ownersOf(got) != tc.want {
				t.Fatalf("picked owners %q, want %q", ownersOf(got), tc.want)
			}
			// An owner's own roots go in due order.
			last := map[string]int64{}
			for _, r := range got {
				if r.RootPid < last[r.Owner] {
					t.Fatalf("owner %s: root %d picked after %d", r.Owner, r.RootPid, last[r.Owner])
				}
				last[r.Owner] = r.RootPid
			}
		})
	}
}

// TestFairPickProperty checks fairPick on random due lists, running
// counts, weights and slots: it picks min(slots, due) distinct due roots;
// no owner with work starves (when there are at least as many slots as
// owners with due roots and none runs anything yet, each gets one); and
// the shares follow the weights: an owner given a pick ran, before its
// last pick, at most as many sessions per weight as any owner left with
// due roots runs after all picks.
func TestFairPickProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 2))
	for round := range 2000 {
		owners := 1 + rng.IntN(6)
		var due []joinstore.Root
		weight := map[string]int{}
		running := map[string]int{}
		idle := rng.IntN(3) == 0
		for i := range owners {
			o := string(rune('a' + i))
			weight[o] = 1 + rng.IntN(4)
			if !idle {
				running[o] = rng.IntN(20)
			}
		}
		for i := range rng.IntN(200) {
			due = append(due, joinstore.Root{Owner: string(rune('a' + rng.IntN(owners))), RootPid: int64(i + 1)})
		}
		slots := rng.IntN(60) - 5
		got := fairPick(due, running, func(o string) int { return weight[o] }, slots)
		ctx := fmt.Sprintf("round %d: %d due, slots %d, weights %v, running %v", round, len(due), slots, weight, running)

		want := len(due)
		if slots >= 0 {
			want = min(slots, len(due))
		}
		if len(got) != want {
			t.Fatalf("%s: picked %d, want %d", ctx, len(got), want)
		}
		inDue := map[joinstore.Root]bool{}
		dueOf := map[string]int{}
		for _, r := range due {
			inDue[r] = true
			dueOf[r.Owner]++
		}
		picked := map[string]int{}
		seen := map[joinstore.Root]bool{}
		for _, r := range got {
			if !inDue[r] || seen[r] {
				t.Fatalf("%s: picked %v twice or not due", ctx, r)
			}
			seen[r] = true
			picked[r.Owner]++
		}
		if idle && slots >= len(dueOf) {
			for o := range dueOf {
				if picked[o] == 0 {
					t.Fatalf("%s: owner %s with %d due starved", ctx, o, dueOf[o])
				}
			}
		}
		for j, pj := range picked {
			for i := range dueOf {
				if picked[i] == dueOf[i] {
					continue // no work left over
				}
				// (running_j + picked_j - 1)/w_j <= (running_i + picked_i)/w_i
				if (running[j]+pj-1)*weight[i] > (running[i]+picked[i])*weight[j] {
					t.Fatalf("%s: owner %s got its %dth pick while owner %s (left with due roots) ran %d: shares %v", ctx, j, pj, i, running[i]+picked[i], picked)
				}
			}
		}
	}
}

// The weighted shares in the long run: two owners with endless due
// roots, weights 1 and 3, a slot freed at a time (the oldest running
// session ends) take slots in the ratio 1:3 within one slot.
func TestFairPickSharesFollowWeights(t *testing.T) {
	weight := map[string]int{"f": 1, "v": 3}
	due := fairRoots("f:1000 v:1000")
	var runs []string // owners of the running sessions, oldest first
	running := map[string]int{}
	for range 400 {
		if len(runs) == 32 {
			running[runs[0]]--
			runs = runs[1:]
		}
		got := fairPick(due, running, func(o string) int { return weight[o] }, 32-len(runs))
		for _, r := range got {
			runs = append(runs, r.Owner)
			running[r.Owner]++
			due = slices.DeleteFunc(due, func(x joinstore.Root) bool { return x == r })
		}
	}
	if running["f"] < 7 || running["f"] > 9 || running["v"] < 23 || running["v"] > 25 {
		t.Fatalf("32 slots ran %v, want 8 and 24 within one", running)
	}
}
