package contracts_test

import (
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/xgr-sidecar/xgr/chain"
)

// eventsOf decodes the logs of r emitted by addr that unpack accepts.
func eventsOf[T any](t *testing.T, r *types.Receipt, addr common.Address, unpack func(*types.Log) (*T, error)) []*T {
	t.Helper()
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

// one is eventsOf that expects exactly one event.
func one[T any](t *testing.T, r *types.Receipt, addr common.Address, unpack func(*types.Log) (*T, error)) *T {
	t.Helper()
	evs := eventsOf(t, r, addr, unpack)
	if len(evs) != 1 {
		var zero T
		t.Fatalf("receipt %s: %d %T events, want 1", r.TxHash.Hex(), len(evs), zero)
	}
	return evs[0]
}

// topicsOf lists topic0 of every log of r, in order.
func topicsOf(r *types.Receipt) []common.Hash {
	var out []common.Hash
	for _, l := range r.Logs {
		out = append(out, l.Topics[0])
	}
	return out
}

// sig is the topic0 of an event signature.
func sig(s string) common.Hash { return crypto.Keccak256Hash([]byte(s)) }

// wantRevert fails unless err is a revert with exactly this reason.
func wantRevert(t *testing.T, what string, err error, reason string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: succeeded, want revert %q", what, reason)
	}
	var re *chain.RevertError
	if !errors.As(err, &re) {
		t.Fatalf("%s: error %v is not a revert, want revert %q", what, err, reason)
	}
	if re.Reason != reason {
		t.Fatalf("%s: reverted with %q, want %q", what, re.Reason, reason)
	}
}

// must(f())(t) returns the value of f, failing the test if f returned an
// error.
func must[T any](v T, err error) func(t *testing.T) T {
	return func(t *testing.T) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}
