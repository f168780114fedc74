package chain

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// access is the ownership and executor-allowlist interface that XRC-729 and
// XRC-137 share (same function names and types). Registry and Rule embed it.
type access struct {
	kind  string // "XRC-729" or "XRC-137", for error messages
	abi   *abi.ABI
	bound *bind.BoundContract
}

func (a access) call(ctx context.Context, method string, args ...any) ([]any, error) {
	data, err := a.abi.Pack(method, args...)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", a.kind, method, err)
	}
	raw, err := a.bound.CallRaw(&bind.CallOpts{Context: ctx}, data)
	if err != nil {
		return nil, readError(a.bound.Address(), method, err)
	}
	out, err := a.abi.Unpack(method, raw)
	if err != nil {
		return nil, fmt.Errorf("%s %s at %s: unexpected answer (is this an %s contract?): %w", a.kind, method, a.bound.Address().Hex(), a.kind, err)
	}
	return out, nil
}

func (a access) send(ctx context.Context, s *Sender, method string, args ...any) (*types.Receipt, error) {
	data, err := a.abi.Pack(method, args...)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", a.kind, method, err)
	}
	return s.Transact(ctx, a.bound, method, data)
}

// Owner is the account allowed to change the contract.
func (a access) Owner(ctx context.Context) (common.Address, error) {
	out, err := a.call(ctx, "owner")
	if err != nil {
		return common.Address{}, err
	}
	return *abi.ConvertType(out[0], new(common.Address)).(*common.Address), nil
}

// Executors is the executor allowlist, in contract order.
func (a access) Executors(ctx context.Context) ([]common.Address, error) {
	out, err := a.call(ctx, "getExecutorList")
	if err != nil {
		return nil, err
	}
	return *abi.ConvertType(out[0], new([]common.Address)).(*[]common.Address), nil
}

// IsExecutor reports whether addr is on the allowlist.
func (a access) IsExecutor(ctx context.Context, addr common.Address) (bool, error) {
	out, err := a.call(ctx, "isExecutor", addr)
	if err != nil {
		return false, err
	}
	return *abi.ConvertType(out[0], new(bool)).(*bool), nil
}

// AddExecutor allows addr (owner only; adding one twice changes nothing).
func (a access) AddExecutor(ctx context.Context, s *Sender, addr common.Address) (*types.Receipt, error) {
	return a.send(ctx, s, "addExecutor", addr)
}

// RemoveExecutor removes addr (owner only; removing an absent one changes
// nothing).
func (a access) RemoveExecutor(ctx context.Context, s *Sender, addr common.Address) (*types.Receipt, error) {
	return a.send(ctx, s, "removeExecutor", addr)
}

// TransferOwnership hands the contract to newOwner (owner only).
func (a access) TransferOwnership(ctx context.Context, s *Sender, newOwner common.Address) (*types.Receipt, error) {
	return a.send(ctx, s, "transferOwnership", newOwner)
}
