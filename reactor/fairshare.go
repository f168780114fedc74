package reactor

import (
	"container/heap"

	"github.com/xgr-sidecar/xgr/joinstore"
)

// fairPick decides which due sessions a replica starts in its free slots,
// and in which order: the replica's capacity is divided between the
// owners with due sessions by weight. due are the sessions the root index
// named (earliest due first; none already running here), running how many
// sessions each owner runs on this replica now, weight each owner's weight
// (at least 1; below 1 counts as 1), slots how many may start (< 0: no
// cap, every due session is picked, in the fair order).
//
// Each pick goes to the owner with work whose sessions (running plus
// picked) per weight are fewest, ties to the owner whose oldest due
// session came first in due; an owner's own sessions go in due order. So
// an owner with thousands of due sessions takes no slot ahead of an owner
// with one while it runs more than its share, and, as slots free, owners
// with work converge on shares proportional to their weights: after every
// pick, an owner with sessions left over runs at most one session per
// weight fewer than any other owner (fairshare_test.go, the property).
func fairPick(due []joinstore.Root, running map[string]int, weight func(owner string) int, slots int) []joinstore.Root {
	if slots == 0 || len(due) == 0 {
		return nil
	}
	var h ownerHeap
	at := map[string]int{} // owner → its index in h.owners
	for _, r := range due {
		i, ok := at[r.Owner]
		if !ok {
			i = len(h.owners)
			at[r.Owner] = i
			h.owners = append(h.owners, &ownerQueue{owner: r.Owner, first: i, runs: running[r.Owner], weight: max(weight(r.Owner), 1)})
		}
		h.owners[i].due = append(h.owners[i].due, r)
	}
	heap.Init(&h)
	n := len(due)
	if slots > 0 {
		n = min(n, slots)
	}
	out := make([]joinstore.Root, 0, n)
	for len(out) < n {
		q := h.owners[0]
		out = append(out, q.due[0])
		q.due = q.due[1:]
		q.runs++
		if len(q.due) == 0 {
			heap.Pop(&h)
		} else {
			heap.Fix(&h, 0)
		}
	}
	return out
}

// ownerQueue is one owner's due sessions in fairPick.
type ownerQueue struct {
	owner  string
	due    []joinstore.Root
	runs   int // running plus picked
	weight int
	first  int // order of its oldest due session in due
}

// ownerHeap orders owners by runs/weight, then by first.
type ownerHeap struct{ owners []*ownerQueue }

func (h ownerHeap) Len() int { return len(h.owners) }
func (h ownerHeap) Less(i, j int) bool {
	a, b := h.owners[i], h.owners[j]
	// a.runs/a.weight < b.runs/b.weight without division.
	if x, y := a.runs*b.weight, b.runs*a.weight; x != y {
		return x < y
	}
	return a.first < b.first
}
func (h ownerHeap) Swap(i, j int) { h.owners[i], h.owners[j] = h.owners[j], h.owners[i] }
func (h *ownerHeap) Push(x any)   { h.owners = append(h.owners, x.(*ownerQueue)) }
func (h *ownerHeap) Pop() any {
	q := h.owners[len(h.owners)-1]
	h.owners = h.owners[:len(h.owners)-1]
	return q
}
