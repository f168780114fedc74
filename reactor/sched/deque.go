package sched

import "sync/atomic"

// deque is a Chase-Lev work-stealing deque of *T. One goroutine, the owner,
// pushes and pops at the bottom (LIFO); any goroutine may steal from the
// top (FIFO) with a compare-and-swap. The items live in a growable circular
// buffer published through an atomic pointer.
//
// Top and bottom share one 64-bit word (bottom in the high half, top in the
// low half, both wrapping uint32 indices). The owner changes bottom with a
// single atomic add — no lock and no CAS — and thieves claim items by a CAS
// of the whole word. That is what makes stealHalfInto correct: a thief that
// claims k items computed k from a bottom it read earlier, and with top and
// bottom in separate words the owner could pop into the claimed range between
// that read and the thief's CAS (Chase-Lev resolves the conflict only for the
// last item, which is all a single steal can collide on). With one word the
// CAS fails whenever the owner moved bottom in between. The owner's add of
// bottom and its read of top are one atomic step, so a pop that leaves
// bottom >= top owns its item outright.
//
// The owner must not call push, pop or grow from two goroutines at once;
// steal, stealHalfInto's victim side and size are safe from any goroutine.
type deque[T any] struct {
	// word holds bottom<<32 | top.
	word atomic.Uint64
	buf  atomic.Pointer[dequeBuffer[T]]
}

type dequeBuffer[T any] struct {
	mask  uint32
	slots []atomic.Pointer[T]
}

func newDequeBuffer[T any](size uint32) *dequeBuffer[T] {
	return &dequeBuffer[T]{mask: size - 1, slots: make([]atomic.Pointer[T], size)}
}

func (b *dequeBuffer[T]) get(i uint32) *T    { return b.slots[i&b.mask].Load() }
func (b *dequeBuffer[T]) put(i uint32, v *T) { b.slots[i&b.mask].Store(v) }
func (b *dequeBuffer[T]) capacity() uint32   { return b.mask + 1 }
func unpack(w uint64) (top, bottom uint32)   { return uint32(w), uint32(w >> 32) }
func pack(top, bottom uint32) uint64         { return uint64(bottom)<<32 | uint64(top) }
func count(top, bottom uint32) int32         { return int32(bottom - top) }
func (d *deque[T]) buffer() *dequeBuffer[T]  { return d.buf.Load() }

// bottomOne is 1 in the bottom half of the word; adding bottomMinusOne
// subtracts one from bottom without touching top (the borrow falls off the
// high end).
const (
	bottomOne      = uint64(1) << 32
	bottomMinusOne = ^(bottomOne - 1)
)

// minDequeSize is the initial capacity; it must be a power of two.
const minDequeSize = 64

// newDeque returns an empty deque with room for size items before it grows
// (size must be a power of two).
func newDeque[T any](size uint32) *deque[T] {
	d := new(deque[T])
	d.buf.Store(newDequeBuffer[T](size))
	return d
}

// size is the number of items at the time of the call (a snapshot).
func (d *deque[T]) size() int {
	n := count(unpack(d.word.Load()))
	if n < 0 {
		return 0
	}
	return int(n)
}

// push adds v at the bottom. Owner only.
func (d *deque[T]) push(v *T) {
	top, bottom := unpack(d.word.Load())
	b := d.buffer()
	if uint32(count(top, bottom)) >= b.capacity() {
		b = d.grow(b, top, bottom)
	}
	b.put(bottom, v)
	d.word.Add(bottomOne)
}

// grow doubles the buffer, copying the items [top, bottom), and publishes
// it. Thieves still reading the old buffer find the same items at the same
// indices: the owner never writes to a buffer after replacing it. Owner only.
func (d *deque[T]) grow(old *dequeBuffer[T], top, bottom uint32) *dequeBuffer[T] {
	nb := newDequeBuffer[T](old.capacity() * 2)
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
	top, bottom := unpack(d.word.Add(bottomMinusOne))
	if count(top, bottom) < 0 {
		// Thieves took the last item between the load and the add.
		d.word.Add(bottomOne)
		return nil
	}
	// Every thief's CAS from now on carries this bottom, so no thief can
	// claim index bottom any more, and every successful claim so far ended
	// at or before top <= bottom.
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
		if d.word.CompareAndSwap(w, pack(top+1, bottom)) {
			return v
		}
	}
}

// stealHalfInto moves half of d's items (rounded up) from its top into the
// bottom of dst with a single CAS on d, and returns how many it moved. The
// caller must be dst's owner; d may be any other deque.
func (d *deque[T]) stealHalfInto(dst *deque[T]) int {
	for {
		w := d.word.Load()
		top, bottom := unpack(w)
		n := count(top, bottom)
		if n <= 0 {
			return 0
		}
		k := uint32(n - n/2)
		src := d.buffer()
		// Copy into dst's free slots past its bottom: invisible to dst's
		// thieves until bottom moves, so a failed CAS costs nothing.
		dtop, dbottom := unpack(dst.word.Load())
		db := dst.buffer()
		for uint32(count(dtop, dbottom))+k > db.capacity() {
			db = dst.grow(db, dtop, dbottom)
			dtop, dbottom = unpack(dst.word.Load())
		}
		for i := uint32(0); i < k; i++ {
			db.put(dbottom+i, src.get(top+i))
		}
		if d.word.CompareAndSwap(w, pack(top+k, bottom)) {
			dst.word.Add(uint64(k) << 32)
			return int(k)
		}
	}
}
