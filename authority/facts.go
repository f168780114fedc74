package authority

import (
	"context"

	"github.com/ethereum/go-ethereum/common"
)

// Facts is what the chain says about one contract's authority.
type Facts struct {
	Contract common.Address
	// Owner is what owner() returned; the zero address when the contract
	// answers no owner() (no contract at the address, or one without the
	// function) or returned zero: then nobody is its owner.
	Owner common.Address
	// ExecutorList reports whether the contract implements
	// getExecutorList(); without it the contract is owner-only.
	ExecutorList bool
	// Executors is what getExecutorList() returned.
	Executors []common.Address
	// Block is the block the facts were read at (0 when not from a chain).
	Block uint64
}

// HasOwner reports whether the contract named an owner.
func (f Facts) HasOwner() bool { return f.Owner != (common.Address{}) }

// Reader reads the facts of contracts: one Facts per address, in order.
// An error means the facts could not be read (the node failed); a
// contract that lacks a function is a fact, not an error.
type Reader interface {
	Facts(ctx context.Context, contracts []common.Address) ([]Facts, error)
}

// Table is a Reader over fixed facts, for tests and for judging facts
// gathered elsewhere. A contract not in the table answers no owner() and
// has no executor list.
type Table map[common.Address]Facts

// Facts implements Reader.
func (t Table) Facts(_ context.Context, contracts []common.Address) ([]Facts, error) {
	out := make([]Facts, len(contracts))
	for i, c := range contracts {
		f := t[c]
		f.Contract = c
		out[i] = f
	}
	return out, nil
}
