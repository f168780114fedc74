package indexer

import (
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

func chainOf(n int, salt byte) []Block {
	var out []Block
	parent := common.Hash{}
	for i := 0; i < n; i++ {
		h := common.Hash{salt, byte(i)}
		out = append(out, Block{Number: uint64(i), Hash: h, Parent: parent})
		parent = h
	}
	return out
}

func TestWindowPushAndPrune(t *testing.T) {
	w := Window{Size: 4}
	for _, b := range chainOf(10, 1) {
		if err := w.Push(b); err != nil {
			t.Fatal(err)
		}
	}
	if len(w.Blocks) != 4 || w.Blocks[0].Number != 6 {
		t.Fatalf("window %+v", w.Blocks)
	}
	if err := w.Push(Block{Number: 10, Hash: common.Hash{9}, Parent: common.Hash{7}}); err == nil {
		t.Fatal("a block that does not extend the head was accepted")
	}
}

func TestCommonAncestor(t *testing.T) {
	old := chainOf(10, 1)
	w := Window{Size: 128, Blocks: old}
	// The new chain shares blocks 0..6 and differs from 7 on.
	canonical := func(n uint64) (common.Hash, bool) {
		if n <= 6 {
			return old[n].Hash, true
		}
		return common.Hash{2, byte(n)}, true
	}
	anc, err := w.CommonAncestor(canonical)
	if err != nil || anc.Number != 6 {
		t.Fatalf("ancestor %+v %v", anc, err)
	}
	w.Rewind(anc.Number)
	if h, _ := w.Head(); h.Number != 6 {
		t.Fatalf("head after rewind %d", h.Number)
	}
	// Deeper than the window: refuse to serve.
	short := Window{Blocks: old[7:]}
	var deep *ErrReorgTooDeep
	if _, err := short.CommonAncestor(canonical); !errors.As(err, &deep) || deep.Oldest != 7 {
		t.Fatalf("deep reorg: %v", err)
	}
}

func TestRangeSizer(t *testing.T) {
	r := NewRangeSizer(0, 0)
	if r.Size != 2000 {
		t.Fatalf("start %d", r.Size)
	}
	if !r.Failure(errors.New("query returned more than 10000 results")) || r.Size != 1000 {
		t.Fatalf("after a range error: %d", r.Size)
	}
	if r.Failure(errors.New("connection refused")) || r.Size != 1000 {
		t.Fatalf("other errors do not shrink: %d", r.Size)
	}
	for i := 0; i < growAfter; i++ {
		r.Success()
	}
	if r.Size != 1250 {
		t.Fatalf("growth after %d successes: %d", growAfter, r.Size)
	}
	for i := 0; i < 30; i++ {
		r.Failure(errors.New("block range is too large"))
	}
	if r.Size != 1 {
		t.Fatalf("floor: %d", r.Size)
	}
}
