package chain

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// eventsIn decodes every log of receipt r emitted by addr that unpack
// accepts (the generated Unpack…Event functions reject logs of other events).
func eventsIn[T any](r *types.Receipt, addr common.Address, unpack func(*types.Log) (*T, error)) []*T {
	var out []*T
	for _, l := range r.Logs {
		if l.Address != addr {
			continue
		}
		if ev, err := unpack(l); err == nil {
			out = append(out, ev)
		}
	}
	return out
}

// firstEvent is the first event eventsIn finds, or nil.
func firstEvent[T any](r *types.Receipt, addr common.Address, unpack func(*types.Log) (*T, error)) *T {
	if evs := eventsIn(r, addr, unpack); len(evs) > 0 {
		return evs[0]
	}
	return nil
}

// u64 converts a contract counter to uint64, saturating (a version counter
// past 2^64 cannot happen on a real chain).
func u64(v *big.Int) uint64 {
	if v == nil || v.Sign() < 0 {
		return 0
	}
	if !v.IsUint64() {
		return ^uint64(0)
	}
	return v.Uint64()
}
