package indexstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"
)

// Change is one change a block makes to the index: a cache entry
// (OSTCKey, OwnerKey, …) or a trigger start (StartKey, with Pending set).
type Change struct {
	Block uint64
	// Key is relative to the index (OSTCKey, OwnerKey, StartKey).
	Key string
	// Delete removes the entry; otherwise it becomes Fields.
	Delete bool
	Fields map[string]string
	// Pending adds the entry to the set of trigger starts to run.
	Pending bool
}

// ErrStaleHead: the checkpoint moved under the caller (another writer, or a
// concurrent rewind; for a rewind also: the undo lists it read changed);
// nothing was written.
var ErrStaleHead = errors.New("index checkpoint moved")

// Commit records a batch of blocks (ascending, contiguous with the
// checkpoint prev; the last one becomes the new checkpoint), the cache
// changes they make and the blocks that leave the window, atomically.
func (x *Index) Commit(ctx context.Context, prev common.Hash, empty bool, blocks []Block, pruned []uint64, changes []Change) error {
	if len(blocks) == 0 {
		return nil
	}
	keys := make([]string, 0, 3+len(blocks)+len(pruned)+len(changes))
	keys = append(keys, x.head(), x.blocks(), x.pending())
	args := make([]any, 0, 4+3*len(blocks)+len(pruned)+len(changes)*(3+16))
	args = append(args, nil, len(blocks), len(pruned), len(changes)) // args[0]: the checkpoint, below
	pos := make(map[uint64]int, len(blocks))
	for i, b := range blocks {
		args = append(args, b.Number, b.Hash.Hex(), b.Parent.Hex())
		keys = append(keys, x.undo(b.Number))
		pos[b.Number] = i + 1
	}
	for _, n := range pruned {
		args = append(args, n)
		keys = append(keys, x.undo(n))
	}
	for _, c := range changes {
		i, ok := pos[c.Block]
		if !ok {
			return fmt.Errorf("index commit: a change of block %d, which is not in the batch", c.Block)
		}
		flags := ""
		if c.Delete {
			flags = "d"
		}
		if c.Pending {
			flags += "p"
		}
		args = append(args, i, flags, len(c.Fields))
		for f, v := range c.Fields {
			args = append(args, f, v)
		}
		keys = append(keys, x.prefix+c.Key)
	}
	prevArg := prev.Hex()
	if empty {
		prevArg = ""
	}
	args[0] = prevArg
	keys, args = append(keys, x.lease()), append(args, x.fenceArg())
	if err := scriptCommit.Run(ctx, x.rdb, keys, args...).Err(); err != nil {
		if strings.Contains(err.Error(), "STALE_HEAD") {
			return fmt.Errorf("index commit: %w", ErrStaleHead)
		}
		if strings.Contains(err.Error(), "NOT_HOLDER") {
			return fmt.Errorf("index commit: %w", ErrNotHolder)
		}
		return fmt.Errorf("index commit: %w", err)
	}
	return nil
}

// Rewind undoes the changes of every window block above ancestor and makes
// ancestor the checkpoint. It returns how many changes were undone and how
// many trigger starts were kept because their sessions had started.
func (x *Index) Rewind(ctx context.Context, head common.Hash, ancestor Block) (undone, kept int, err error) {
	keys, args, err := x.readRewind(ctx, head, ancestor)
	if err != nil {
		return 0, 0, err
	}
	return x.runRewind(ctx, keys, args)
}

// readRewind reads the window and the undo lists of its blocks above
// ancestor: the KEYS and ARGV of rewind.lua, which refuses them
// (STALE_HEAD) when the checkpoint or the lists changed since.
func (x *Index) readRewind(ctx context.Context, head common.Hash, ancestor Block) ([]string, []any, error) {
	window, err := x.Window(ctx)
	if err != nil {
		return nil, nil, err
	}
	var rewound []uint64
	for i := len(window) - 1; i >= 0 && window[i].Number > ancestor.Number; i-- {
		rewound = append(rewound, window[i].Number)
	}
	keys := []string{x.head(), x.blocks(), x.pending()}
	named := map[string]bool{}
	var entries []string
	for _, n := range rewound {
		keys = append(keys, x.undo(n))
		list, err := x.rdb.LRange(ctx, x.undo(n), 0, -1).Result()
		if err != nil {
			return nil, nil, err
		}
		for _, u := range list {
			var rec struct {
				K string `json:"k"`
			}
			if err := json.Unmarshal([]byte(u), &rec); err != nil {
				return nil, nil, fmt.Errorf("undo list of block %d holds %q", n, u)
			}
			if !named[rec.K] {
				named[rec.K] = true
				entries = append(entries, rec.K)
			}
		}
	}
	keys = append(append(keys, entries...), x.lease())
	return keys, []any{head.Hex(), ancestor.Number, ancestor.Hash.Hex(), len(rewound), x.fenceArg()}, nil
}

// runRewind runs rewind.lua with what readRewind read.
func (x *Index) runRewind(ctx context.Context, keys []string, args []any) (undone, kept int, err error) {
	res, err := scriptRewind.Run(ctx, x.rdb, keys, args...).Int64Slice()
	if err != nil {
		if strings.Contains(err.Error(), "STALE_HEAD") {
			return 0, 0, fmt.Errorf("index rewind: %w", ErrStaleHead)
		}
		if strings.Contains(err.Error(), "NOT_HOLDER") {
			return 0, 0, fmt.Errorf("index rewind: %w", ErrNotHolder)
		}
		return 0, 0, fmt.Errorf("index rewind: %w", err)
	}
	return int(res[0]), int(res[1]), nil
}
