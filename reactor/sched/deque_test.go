package sched

import (
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func items(n int) []*int {
	out := make([]*int, n)
	for i := range out {
		v := i
		out[i] = &v
	}
	return out
}

// dequeAt returns an empty deque whose indices start at start, to test the
// wrap-around of the 16-bit indices.
func dequeAt(size int, start uint16) *deque[int] {
	d := newDeque[int](size)
	d.word.Store(uint64(start)<<16 | uint64(start))
	return d
}

func TestDequeOwnerLIFOThiefFIFO(t *testing.T) {
	for _, start := range []uint16{0, 1<<16 - 5} {
		d := dequeAt(2, start) // grows twice on the way
		it := items(6)
		for _, v := range it {
			d.push(v)
		}
		if d.size() != 6 {
			t.Fatalf("start %d: size %d, want 6", start, d.size())
		}
		if got := *d.pop(); got != 5 {
			t.Fatalf("start %d: pop %d, want 5 (LIFO)", start, got)
		}
		if got := *d.steal(); got != 0 {
			t.Fatalf("start %d: steal %d, want 0 (FIFO)", start, got)
		}
		want := []int{4, 3, 2, 1}
		for _, w := range want {
			if got := *d.pop(); got != w {
				t.Fatalf("start %d: pop %d, want %d", start, got, w)
			}
		}
		if v := d.pop(); v != nil {
			t.Fatalf("start %d: pop on empty gave %d", start, *v)
		}
		if v := d.steal(); v != nil {
			t.Fatalf("start %d: steal on empty gave %d", start, *v)
		}
		if d.size() != 0 {
			t.Fatalf("start %d: size %d after draining", start, d.size())
		}
	}
}

func TestDequeStealHalfInto(t *testing.T) {
	for _, tc := range []struct{ have, moved int }{{0, 0}, {1, 1}, {2, 1}, {3, 2}, {10, 5}, {17, 9}} {
		src, dst := dequeAt(4, 1<<16-3), newDeque[int](2)
		it := items(tc.have + 1)
		dst.push(it[tc.have]) // dst keeps what it had at its top
		for _, v := range it[:tc.have] {
			src.push(v)
		}
		if got := src.stealHalfInto(dst); got != tc.moved {
			t.Fatalf("%d items: moved %d, want %d", tc.have, got, tc.moved)
		}
		if src.size() != tc.have-tc.moved || dst.size() != tc.moved+1 {
			t.Fatalf("%d items: sizes src %d dst %d", tc.have, src.size(), dst.size())
		}
		// The oldest items moved, in order: dst's thieves see them FIFO
		// after what dst had, and dst's owner pops the newest stolen first.
		if got := *dst.steal(); got != tc.have {
			t.Fatalf("%d items: dst top is %d, want its own item %d", tc.have, got, tc.have)
		}
		for i := 0; i < tc.moved; i++ {
			if got := *dst.steal(); got != i {
				t.Fatalf("%d items: stolen item %d is %d", tc.have, i, got)
			}
		}
		for i := tc.have - 1; i >= tc.moved; i-- {
			if got := *src.pop(); got != i {
				t.Fatalf("%d items: src kept %d, want %d", tc.have, got, i)
			}
		}
	}
}

// TestDequeStaleThiefLoses replays the interleaving that breaks a steal
// whose CAS checks only top and bottom: the thief reads the word and the
// item, the owner pops that item and pushes another to the same bottom, and
// the thief's CAS must fail rather than take the popped item again.
func TestDequeStaleThiefLoses(t *testing.T) {
	for _, start := range []uint16{0, 1, 1<<16 - 1} {
		d := dequeAt(4, start)
		it := items(2)
		d.push(it[0])
		w := d.word.Load()
		top, _ := unpack(w)
		stale := d.buffer().get(top)
		if got := d.pop(); got != it[0] || stale != it[0] {
			t.Fatalf("start %d: setup went wrong", start)
		}
		d.push(it[1])
		if top2, bottom2 := unpack(d.word.Load()); top2 != top || count(top2, bottom2) != 1 {
			t.Fatalf("start %d: indices differ after pop+push", start)
		}
		if d.word.CompareAndSwap(w, withTop(w, top+1)) {
			t.Fatalf("start %d: a thief with a stale word took a popped item", start)
		}
		if got := d.steal(); got != it[1] {
			t.Fatalf("start %d: steal after the replay got the wrong item", start)
		}
	}
}

// TestDequeBounded: push refuses beyond maxDequeSize, and a steal takes no
// more than the thief's deque has room for.
func TestDequeBounded(t *testing.T) {
	src, dst := newDeque[int](minDequeSize), newDeque[int](minDequeSize)
	v := new(int)
	for i := range maxDequeSize {
		if !src.push(v) {
			t.Fatalf("push %d refused below the limit", i)
		}
		if i < maxDequeSize-10 {
			dst.push(v)
		}
	}
	if src.push(v) || src.size() != maxDequeSize || src.room() != 0 {
		t.Fatalf("push beyond the limit: size %d, room %d", src.size(), src.room())
	}
	if n := src.stealHalfInto(dst); n != 10 || dst.size() != maxDequeSize || src.size() != maxDequeSize-10 {
		t.Fatalf("steal into a nearly full deque moved %d (dst %d, src %d)", n, dst.size(), src.size())
	}
	if n := src.stealHalfInto(dst); n != 0 {
		t.Fatalf("steal into a full deque moved %d", n)
	}
	for dst.pop() != nil {
	}
	if n := src.stealHalfInto(dst); n != (maxDequeSize-10+1)/2 {
		t.Fatalf("steal into an empty deque moved %d", n)
	}
}

func TestDequeGrowKeepsOrder(t *testing.T) {
	d := newDeque[int](2)
	it := items(1000)
	for i, v := range it {
		d.push(v)
		if i%3 == 0 {
			if got := *d.steal(); got != i/3 {
				t.Fatalf("steal %d, want %d", got, i/3)
			}
		}
	}
	next := 334
	for v := d.steal(); v != nil; v = d.steal() {
		if *v != next {
			t.Fatalf("steal %d, want %d", *v, next)
		}
		next++
	}
	if next != 1000 {
		t.Fatalf("stole up to %d, want 1000", next)
	}
}

// TestDequeConcurrentExactlyOnce runs one owner that pushes and pops against
// thieves that steal single items and halves (into their own deques, which
// the others steal from in turn) and checks that every item is taken exactly
// once. A small initial buffer makes the owner grow it while thieves read,
// and the steal hook sometimes yields between a thief's read and its CAS.
func TestDequeConcurrentExactlyOnce(t *testing.T) {
	var hooked atomic.Uint32
	testHookSteal = func() {
		if hooked.Add(1)%4 == 0 {
			runtime.Gosched()
		}
	}
	t.Cleanup(func() { testHookSteal = nil })
	const total, rounds = 50_000, 8
	thieves := 4
	if testing.Short() {
		thieves = 2
	}
	for round := range rounds {
		start := uint16(round * (1<<16 - 1000) % (1 << 16)) // all rounds but the first cross the index wrap
		owner := dequeAt(2, start)
		all := []*deque[int]{owner}
		for range thieves {
			all = append(all, newDeque[int](2))
		}
		it := items(total)
		taken := make([]atomic.Int32, total)
		deadline := time.Now().Add(30 * time.Second) // a lost item fails, not hangs
		var done atomic.Int64
		take := func(v *int) {
			taken[*v].Add(1)
			done.Add(1)
		}
		var wg sync.WaitGroup
		for i := 1; i <= thieves; i++ {
			wg.Add(1)
			go func(self int) {
				defer wg.Done()
				mine := all[self]
				r := rand.New(rand.NewPCG(uint64(round), uint64(self)))
				for done.Load() < total && time.Now().Before(deadline) {
					victim := all[r.IntN(len(all))]
					if victim != mine {
						if r.IntN(2) == 0 {
							if v := victim.steal(); v != nil {
								take(v)
							}
						} else {
							victim.stealHalfInto(mine)
						}
					}
					// Keep some items around so others can steal from us.
					for mine.size() > r.IntN(4) {
						if v := mine.pop(); v != nil {
							take(v)
						}
					}
					runtime.Gosched()
				}
			}(i)
		}
		// The owner pushes and pops in short bursts, so bottom keeps
		// returning to values thieves have seen (the ABA a steal must
		// survive).
		r := rand.New(rand.NewPCG(uint64(round), 0))
		for next := 0; next < total; {
			for n := 1 + r.IntN(8); n > 0 && next < total; n-- {
				for !owner.push(it[next]) { // full: work some off
					if v := owner.pop(); v != nil {
						take(v)
					}
				}
				next++
			}
			for n := r.IntN(8); n > 0; n-- {
				if v := owner.pop(); v != nil {
					take(v)
				}
			}
		}
		for v := owner.pop(); v != nil; v = owner.pop() {
			take(v)
		}
		wg.Wait()
		if got := done.Load(); got != total {
			t.Fatalf("round %d: %d takes, want %d", round, got, total)
		}
		for i := range taken {
			if n := taken[i].Load(); n != 1 {
				t.Fatalf("round %d: item %d taken %d times", round, i, n)
			}
		}
	}
}
