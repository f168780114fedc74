package chain

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/rule"
)

// Reads performs the contractReads of XRC-137 rules with eth_call at the
// latest block: it implements rule.ContractReader. The function signature
// is parsed into an ABI method (parsed signatures are cached), the
// arguments are converted from their XRC values to the parameter types and
// packed by go-ethereum, and the return data is decoded with the declared
// return types or, when the signature has none, slot by slot with the types
// saveAs gives (one head word per slot, so dynamic values are found through
// their offsets). Set the fields before the first read; it is then safe for
// concurrent use.
type Reads struct {
	// Default serves reads without "rpc"; nil fails them.
	Default ethereum.ContractCaller
	// Backends serve reads whose "rpc" selector names them. A selector
	// that is not configured fails the read: a rule document cannot make
	// the sidecar dial a node of its choosing.
	Backends map[string]ethereum.ContractCaller
	// From is the eth_call sender (the zero address when unset).
	From common.Address

	mu   sync.Mutex
	sigs map[string]*Signature
}

// maxCachedSignatures bounds the signature cache (cleared when full).
const maxCachedSignatures = 4096

// ErrEmptyReturn is a call that returned no data although values were
// expected: no contract at the address, or no such function.
var ErrEmptyReturn = errors.New("empty return data (no contract at this address on this backend, or no such function)")

// ReadContract implements rule.ContractReader.
func (r *Reads) ReadContract(ctx context.Context, req rule.ReadRequest) ([]any, error) {
	sig, err := r.signature(req.Function)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", rule.ErrInvalidRead, err)
	}
	data, err := sig.Calldata(req.Args)
	if err != nil {
		return nil, err
	}
	caller, err := r.backend(req.RPC)
	if err != nil {
		return nil, err
	}
	if !common.IsHexAddress(req.To) {
		return nil, fmt.Errorf("%w: to %q is not an address", rule.ErrInvalidRead, req.To)
	}
	to := common.HexToAddress(req.To)
	out, err := caller.CallContract(ctx, ethereum.CallMsg{From: r.From, To: &to, Data: data}, nil)
	if err != nil {
		err = readError(to, "eth_call "+req.Function, err)
		if IsTransient(err) {
			// The node, not the call, failed: no default applies.
			return nil, fmt.Errorf("%w: %w", rule.ErrUnavailable, err)
		}
		return nil, err
	}
	if len(out) == 0 && (len(req.Returns) > 0 || len(sig.Method.Outputs) > 0) {
		return nil, fmt.Errorf("eth_call %s at %s: %w", req.Function, to.Hex(), ErrEmptyReturn)
	}
	if sig.HasReturns {
		vals, err := sig.Method.Outputs.Unpack(out)
		if err != nil {
			return nil, fmt.Errorf("eth_call %s at %s: decode the return data as %s: %v", req.Function, to.Hex(), typeList(sig.Method.Outputs), err)
		}
		for i, v := range vals {
			vals[i] = plain(v)
		}
		return vals, nil
	}
	return decodeSlots(out, req.Returns), nil
}

// decodeSlots decodes each saveAs slot on its own, so one slot that does
// not decode (its element is then the error) leaves the others intact.
// Slots past the returned tuple are left out, so they take their defaults
// (rule spec §6.4): the tuple ends where the return data ends or, when a
// string or bytes slot is declared, where its data begins (the head of an
// ABI encoding is followed by the dynamic values' data, which a slot index
// must not read as a value).
func decodeSlots(data []byte, slots []rule.ReturnSlot) []any {
	words := headWords(data, slots)
	n := 0
	for _, s := range slots {
		if s.Index < words {
			n = s.Index + 1
		}
	}
	vals := make([]any, n)
	if n == 0 {
		return vals
	}
	filler, _ := abi.NewType("bytes32", "", nil)
	args := make(abi.Arguments, n)
	for i := range args {
		args[i] = abi.Argument{Type: filler}
	}
	for _, s := range slots {
		if s.Index >= n {
			break
		}
		t := slotType(s.Type)
		args[s.Index].Type = t
		got, err := args[:s.Index+1].Unpack(data)
		args[s.Index].Type = filler
		if err != nil {
			vals[s.Index] = fmt.Errorf("return slot %d as ABI %s: %v", s.Index, t.String(), err)
			continue
		}
		vals[s.Index] = plain(got[s.Index])
	}
	return vals
}

// headWords is the length of the returned tuple's head in words: the data's
// words, cut at the first dynamic offset a declared string or bytes slot
// holds (an offset points past the head, to the value's length word).
func headWords(data []byte, slots []rule.ReturnSlot) int {
	words := len(data) / 32
	head := words
	for _, s := range slots {
		if s.Index >= words || !dynamicSlot(s.Type) {
			continue
		}
		off := new(big.Int).SetBytes(data[32*s.Index : 32*s.Index+32])
		if !off.IsUint64() {
			continue
		}
		o := off.Uint64()
		if o%32 != 0 || o < uint64(32*(s.Index+1)) || o+32 > uint64(len(data)) {
			continue // not an offset into this data: the slot fails to decode
		}
		head = min(head, int(o/32))
	}
	return head
}

// dynamicSlot tells whether a slot of type t is decoded as a dynamic ABI
// type (see slotType).
func dynamicSlot(t rule.Type) bool {
	return t == rule.TypeString || t == rule.TypeUUID || t == rule.TypeBytes
}

func typeList(args abi.Arguments) string {
	names := make([]string, len(args))
	for i, a := range args {
		names[i] = a.Type.String()
	}
	return "(" + strings.Join(names, ",") + ")"
}

func (r *Reads) signature(fn string) (*Signature, error) {
	r.mu.Lock()
	s, ok := r.sigs[fn]
	r.mu.Unlock()
	if ok {
		return s, nil
	}
	s, err := ParseSignature(fn)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	if r.sigs == nil || len(r.sigs) >= maxCachedSignatures {
		r.sigs = map[string]*Signature{}
	}
	r.sigs[fn] = s
	r.mu.Unlock()
	return s, nil
}

func (r *Reads) backend(name string) (ethereum.ContractCaller, error) {
	if name == "" {
		if r.Default == nil {
			return nil, errors.New("no chain backend for contract reads (configure a node, e.g. --rpc URL)")
		}
		return r.Default, nil
	}
	if c, ok := r.Backends[name]; ok && c != nil {
		return c, nil
	}
	names := make([]string, 0, len(r.Backends))
	for n := range r.Backends {
		names = append(names, n)
	}
	sort.Strings(names)
	have := "none are configured"
	if len(names) > 0 {
		have = "configured: " + strings.Join(names, ", ")
	}
	return nil, fmt.Errorf("contract read backend %q is not configured (%s; map it with --rpc-backend %s=URL)", name, have, name)
}
