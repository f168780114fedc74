package sched

import "sync/atomic"

// deque is a Chase-Lev work-stealing deque of *T. One goroutine, the owner,
// pushes and pops at the bottom (LIFO); any goroutine may steal from the
// top (FIFO) with a compare-and-swap. The items live in a growable circular
// buffer published through an atomic pointer.
//
// Top, bottom and a version tag share one 64-bit word:
//
//	bits 63..32 tag | 31..16 bottom | 15..0 top
//
// The owner changes bottom with a single atomic add — no lock, no CAS — and
// thieves claim items with a CAS of the whole word. That is what makes
// stealHalfInto, which claims many items in one CAS, correct:
//
//   - With top and bottom in separate words (classic Chase-Lev) a thief
//     computes its claim from a bottom it read earlier, and the owner may
//     pop into the claimed range before the thief's CAS on top; Chase-Lev
//     arbitrates only the last item, all a single steal can collide on.
//     In one word, the thief's CAS fails if bottom moved.
//   - Bottom alone is not enough: the owner may pop items and push new ones
//     back to the same bottom, leaving the word as the thief read it but
//     the slots changed. Every pop therefore advances the tag (the add that
//     lowers bottom also adds one to the tag), so the word never returns to
//     a value a thief read unless 2^32 pops happen inside one steal.
//
// The owner's add of bottom and its read of top are one atomic step, so a
// pop that leaves bottom >= top owns its item outright. Indices are 16-bit
// and wrap; a deque holds at most maxDequeSize items, after which push
// refuses and the caller overflows to the global queue.
//
// push, pop and the destination side of stealHalfInto are for the owner
// only; steal, the victim side of stealHalfInto and size are safe from any
// goroutine.
type deque[T any] struct {
	word atomic.Uint64
	buf  atomic.Pointer[dequeBuffer[T]]
}

const (
	// minDequeSize is the initial capacity (a power of two); the buffer
	// doubles up to 2^15 slots. maxDequeSize is the most items a deque
	// holds: their count must stay positive as a 16-bit index difference.
	minDequeSize = 64
	maxDequeSize = 1<<15 - 1

	topMask   = uint64(0xffff)
	bottomOne = uint64(1) << 16
	tagOne    = uint64(1) << 32
	// popDelta lowers bottom by one and raises the tag by one in one add.
	// A borrow out of bottom (bottom 0 → 0xffff) cancels the tag's
	// increment, and the push that crosses back carries into the tag, so a
	// pop followed by a push always leaves the tag advanced.
	popDelta = tagOne - bottomOne
)

// testHookSteal, when set (by tests, before any deque is used), runs in
// steal and stealHalfInto between reading the items and the CAS, to widen
// the window in which the owner can interfere.
var testHookSteal func()

type dequeBuffer[T any] struct {
	mask  uint16
	slots []atomic.Pointer[T]
}

func newDequeBuffer[T any](size int) *dequeBuffer[T] {
	return &dequeBuffer[T]{mask: uint16(size - 1), slots: make([]atomic.Pointer[T], size)}
}

func (b *dequeBuffer[T]) get(i uint16) *T    { return b.slots[i&b.mask].Load() }
func (b *dequeBuffer[T]) put(i uint16, v *T) { b.slots[i&b.mask].Store(v) }
func (b *dequeBuffer[T]) capacity() int      { return len(b.slots) }

func unpack(w uint64) (top, bottom uint16) { return uint16(w), uint16(w >> 16) }
func count(top, bottom uint16) int         { return int(int16(bottom - top)) }
func withTop(w uint64, top uint16) uint64  { return w&^topMask | uint64(top) }

// newDeque returns an empty deque with room for size items before it grows
// (size must be a power of two no larger than maxDequeSize).
func newDeque[T any](size int) *deque[T] {
	d := new(deque[T])
	d.buf.Store(newDequeBuffer[T](size))
	return d
}

func (d *deque[T]) buffer() *dequeBuffer[T] { return d.buf.Load() }

// size is the number of items at the time of the call (a snapshot).
func (d *deque[T]) size() int {
	return max(0, count(unpack(d.word.Load())))
}

// room is how many more items push accepts now. Owner only.
func (d *deque[T]) room() int {
	return maxDequeSize - d.size()
}

// push adds v at the bottom; it reports false, and does nothing, when the
// deque holds maxDequeSize items. Owner only.
func (d *deque[T]) push(v *T) bool {
	top, bottom := unpack(d.word.Load())
	n := count(top, bottom)
	if n >= maxDequeSize {
		return false
	}
	b := d.buffer()
	if n >= b.capacity() {
		b = d.grow(b, top, bottom)
	}
	b.put(bottom, v)
	d.word.Add(bottomOne)
	return true
}

// grow doubles the buffer, copying the items [top, bottom), and publishes
// it. Thieves still reading the old buffer find the same items at the same
// indices: the owner never writes to a buffer after replacing it. Owner only.
func (d *deque[T]) grow(old *dequeBuffer[T], top, bottom uint16) *dequeBuffer[T] {
	nb := newDequeBuffer[T](2 * old.capacity())
	for i := top; i != bottom; i++ {
		nb.put(i, old.get(i))
	}
	d.buf.Store(nb)
	return nb
}

// pop removes the item at the bottom, or returns nil when the deque is
// empty. Owner only.
func (d *deque[T]) pop() *T {
	if count(unpack(d.word.Load())) <= 0 {
		return nil // only the owner adds items: empty stays empty until it pushes
	}
	top, bottom := unpack(d.word.Add(popDelta))
	if count(top, bottom) < 0 {
		// Thieves took the last item between the load and the add.
		d.word.Add(bottomOne)
		return nil
	}
	// Every thief's CAS from now on carries this bottom, so none can claim
	// index bottom any more, and every successful claim so far ended at or
	// before top <= bottom.
	b := d.buffer()
	v := b.get(bottom)
	b.put(bottom, nil) // drop the reference for the garbage collector
	return v
}

// steal removes the item at the top. It returns nil when the deque is empty.
// Safe from any goroutine; it retries while other thieves or the owner win
// the race for the word.
func (d *deque[T]) steal() *T {
	for {
		w := d.word.Load()
		top, bottom := unpack(w)
		if count(top, bottom) <= 0 {
			return nil
		}
		v := d.buffer().get(top)
		if testHookSteal != nil {
			testHookSteal()
		}
		if d.word.CompareAndSwap(w, withTop(w, top+1)) {
			return v
		}
	}
}

// stealHalfInto moves half of d's items (rounded up, at most what dst has
// room for) from its top into the bottom of dst with a single CAS on d, and
// returns how many it moved. The caller must be dst's owner; d may be any
// other deque.
func (d *deque[T]) stealHalfInto(dst *deque[T]) int {
	for {
		w := d.word.Load()
		top, bottom := unpack(w)
		n := count(top, bottom)
		if n <= 0 {
			return 0
		}
		k := min(n-n/2, dst.room())
		if k <= 0 {
			return 0
		}
		src := d.buffer()
		// Copy into dst's free slots past its bottom: invisible to dst's
		// thieves until bottom moves, so a failed CAS costs nothing.
		dtop, dbottom := unpack(dst.word.Load())
		db := dst.buffer()
		for count(dtop, dbottom)+k > db.capacity() {
			db = dst.grow(db, dtop, dbottom)
			dtop, dbottom = unpack(dst.word.Load())
		}
		for i := range uint16(k) {
			db.put(dbottom+i, src.get(top+i))
		}
		if testHookSteal != nil {
			testHookSteal()
		}
		if d.word.CompareAndSwap(w, withTop(w, top+uint16(k))) {
			dst.word.Add(uint64(k) * bottomOne)
			return k
		}
	}
}
