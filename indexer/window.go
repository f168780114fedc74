package indexer

import (
	"fmt"

	"github.com/ethereum/go-ethereum/common"
)

// Block is a block's number, hash and parent hash.
type Block struct {
	Number uint64
	Hash   common.Hash
	Parent common.Hash
}

// Window holds the hashes of the most recent indexed blocks, oldest first,
// so that a reorg can be detected from a new block's parent hash and rewound
// to the common ancestor.
type Window struct {
	Blocks []Block
	// Size is how many blocks are kept (default 128).
	Size int
}

// Head returns the newest indexed block (ok false when empty).
func (w *Window) Head() (Block, bool) {
	if len(w.Blocks) == 0 {
		return Block{}, false
	}
	return w.Blocks[len(w.Blocks)-1], true
}

// Extends reports whether b continues the window's head (b's parent is the
// head), or starts an empty window.
func (w *Window) Extends(b Block) bool {
	h, ok := w.Head()
	return !ok || (b.Number == h.Number+1 && b.Parent == h.Hash)
}

// Push appends b (which must extend the head) and drops the oldest blocks
// beyond Size.
func (w *Window) Push(b Block) error {
	if !w.Extends(b) {
		h, _ := w.Head()
		return fmt.Errorf("block %d (%s) does not extend the indexed head %d (%s)", b.Number, b.Hash.Hex(), h.Number, h.Hash.Hex())
	}
	w.Blocks = append(w.Blocks, b)
	size := w.Size
	if size <= 0 {
		size = 128
	}
	if n := len(w.Blocks) - size; n > 0 {
		w.Blocks = append(w.Blocks[:0:0], w.Blocks[n:]...)
	}
	return nil
}

// ErrReorgTooDeep means the chain diverged below the oldest block the window
// remembers: the indexer stops rather than serve wrong data.
type ErrReorgTooDeep struct {
	Oldest uint64
}

func (e *ErrReorgTooDeep) Error() string {
	return fmt.Sprintf("reorg deeper than the %s: the chain no longer contains indexed block %d; rebuild the index from an earlier start block",
		"window of recent blocks", e.Oldest)
}

// CommonAncestor finds the newest window block that the canonical chain
// still contains, given the canonical hash at each height (canonical returns
// false when it does not know a height). It returns the ancestor, or
// *ErrReorgTooDeep when none of the window is canonical.
func (w *Window) CommonAncestor(canonical func(number uint64) (common.Hash, bool)) (Block, error) {
	for i := len(w.Blocks) - 1; i >= 0; i-- {
		b := w.Blocks[i]
		if h, ok := canonical(b.Number); ok && h == b.Hash {
			return b, nil
		}
	}
	var oldest uint64
	if len(w.Blocks) > 0 {
		oldest = w.Blocks[0].Number
	}
	return Block{}, &ErrReorgTooDeep{Oldest: oldest}
}

// Rewind drops every block above number.
func (w *Window) Rewind(number uint64) {
	for len(w.Blocks) > 0 && w.Blocks[len(w.Blocks)-1].Number > number {
		w.Blocks = w.Blocks[:len(w.Blocks)-1]
	}
}
