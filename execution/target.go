package execution

import (
	"encoding/hex"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// Target is one entry of executions.targets: a contract (or account) the
// executor key may call, and how.
//
// A bare address in the config's list is AllowContract(address): every
// function of that contract but the ones that move or approve tokens
// (TokenMoves), never a plain transfer and never value. The richer form
// lists the functions and opts into plain transfers and value one by one.
type Target struct {
	Address common.Address
	// AnyFunction allows every function selector but those in Except.
	// Functions is then empty.
	AnyFunction bool
	Except      []Function
	// Functions are the allowed functions (ignored with AnyFunction).
	Functions []Function
	// PlainTransfer allows a call without calldata (a transfer to the
	// address, or its receive/fallback function).
	PlainTransfer bool
	// Value allows calls to carry value, at most MaxValue each (and within
	// the section's value caps). Without it any value is refused.
	Value    bool
	MaxValue *big.Int
}

// AllowContract is a target as a bare address in executions.targets:
// every function of addr but TokenMoves, no plain transfer, no value.
func AllowContract(addr common.Address) Target {
	return Target{Address: addr, AnyFunction: true, Except: tokenMoves}
}

// TokenMoves are the functions a bare address (and targets: any) does not
// allow: the standard ones that move or approve tokens the caller holds
// (ERC-20, ERC-721, ERC-1155, ERC-677, ERC-777). Called by the executor
// key they would move the operator's tokens. A target that needs one lists
// it under functions.
func TokenMoves() []Function { return append([]Function(nil), tokenMoves...) }

var tokenMoves = func() []Function {
	var out []Function
	for _, sig := range []string{
		"transfer(address,uint256)",
		"transferFrom(address,address,uint256)",
		"approve(address,uint256)",
		"increaseAllowance(address,uint256)",
		"safeTransferFrom(address,address,uint256)",
		"safeTransferFrom(address,address,uint256,bytes)",
		"setApprovalForAll(address,bool)",
		"safeTransferFrom(address,address,uint256,uint256,bytes)",
		"safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)",
		"transferAndCall(address,uint256,bytes)",
		"send(address,uint256,bytes)",
		"authorizeOperator(address)",
	} {
		f, err := ParseFunction(sig)
		if err != nil {
			panic(err)
		}
		out = append(out, f)
	}
	return out
}()

// Targets is AllowContract of each address.
func Targets(addrs ...common.Address) []Target {
	out := make([]Target, len(addrs))
	for i, a := range addrs {
		out[i] = AllowContract(a)
	}
	return out
}

// Function is one allowed function of a target: its 4-byte selector and
// what the operator wrote (a signature such as "settle(uint256,address)",
// canonical, or the selector as 0x and 8 hex digits).
type Function struct {
	Selector [4]byte
	Text     string
}

// String is the function as the operator wrote it, canonical.
func (f Function) String() string { return f.Text }

// allows tells whether t allows the selector sel; excluded tells whether
// it is refused because AnyFunction excepts it.
func (t Target) allows(sel []byte) (ok, excluded bool) {
	if t.AnyFunction {
		return !has(t.Except, sel), has(t.Except, sel)
	}
	return has(t.Functions, sel), false
}

func has(fs []Function, sel []byte) bool {
	for _, f := range fs {
		if string(f.Selector[:]) == string(sel) {
			return true
		}
	}
	return false
}

// functionNames lists t's functions for a refusal.
func (t Target) functionNames() string {
	if t.AnyFunction && len(t.Except) > 0 {
		return "any function but those that move or approve tokens"
	}
	if t.AnyFunction {
		return "any"
	}
	if len(t.Functions) == 0 {
		return "none"
	}
	names := make([]string, len(t.Functions))
	for i, f := range t.Functions {
		names[i] = f.Text
	}
	return strings.Join(names, ", ")
}

// ParseFunction reads one entry of a target's functions: a 4-byte
// selector (0x and 8 hex digits) or a function signature name(type,...)
// with elementary or array parameter types (uint and int are read as
// uint256 and int256; spaces are dropped; a return list such as "(bool)"
// after the parameters is ignored). The selector of a signature is the
// first 4 bytes of keccak256 of its canonical form.
func ParseFunction(s string) (Function, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		b, err := hex.DecodeString(s[2:])
		if err != nil || len(b) != 4 {
			return Function{}, fmt.Errorf("selector %q: want 0x and 8 hex digits", s)
		}
		f := Function{Text: "0x" + hex.EncodeToString(b)}
		copy(f.Selector[:], b)
		return f, nil
	}
	canon, err := canonicalSignature(s)
	if err != nil {
		return Function{}, err
	}
	f := Function{Text: canon}
	copy(f.Selector[:], crypto.Keccak256([]byte(canon))[:4])
	return f, nil
}

func canonicalSignature(s string) (string, error) {
	s = strings.Join(strings.Fields(s), "")
	open := strings.IndexByte(s, '(')
	close := strings.IndexByte(s, ')')
	if open <= 0 || close < open {
		return "", fmt.Errorf("function %q: want a signature name(type,...) such as settle(uint256,address), or a selector 0x12345678", s)
	}
	if strings.Contains(s[open+1:close], "(") {
		return "", fmt.Errorf("function %q: tuple parameters are not read here; give the function by its selector, 0x12345678", s)
	}
	name, params, rest := s[:open], s[open+1:close], s[close+1:]
	if !isIdent(name) {
		return "", fmt.Errorf("function %q: %q is not a Solidity function name (a letter, _ or $, then letters, digits, _ or $)", s, name)
	}
	if rest != "" && (!strings.HasPrefix(rest, "(") || !strings.HasSuffix(rest, ")") || strings.ContainsAny(rest[1:len(rest)-1], "()")) {
		return "", fmt.Errorf("function %q: after the parameters only a return list such as (bool) may follow", s)
	}
	if params == "" {
		return name + "()", nil
	}
	types := strings.Split(params, ",")
	for i, t := range types {
		c, ok := canonicalType(t)
		if !ok {
			return "", fmt.Errorf("function %q: parameter %d %q is not an ABI type (uintN, intN, address, bool, string, bytes, bytesN, or an array of them); tuples are written by selector, 0x12345678", s, i, t)
		}
		types[i] = c
	}
	return name + "(" + strings.Join(types, ",") + ")", nil
}

func isIdent(s string) bool {
	for i, r := range s {
		letter := r == '_' || r == '$' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !letter && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return s != ""
}

// canonicalType is t with uint/int widened to 256 bits, if t is an
// elementary type or an array of one.
func canonicalType(t string) (string, bool) {
	base, arrays, _ := strings.Cut(t, "[")
	if arrays != "" {
		arrays = "[" + arrays
		for _, dim := range strings.Split(arrays[1:], "[") {
			n, ok := strings.CutSuffix(dim, "]")
			if !ok || (n != "" && !digits(n)) {
				return "", false
			}
		}
	}
	switch {
	case base == "uint" || base == "int":
		return base + "256" + arrays, true
	case base == "address" || base == "bool" || base == "string" || base == "bytes":
		return base + arrays, true
	}
	for _, p := range []struct {
		prefix       string
		lo, hi, step int
	}{{"uint", 8, 256, 8}, {"int", 8, 256, 8}, {"bytes", 1, 32, 1}} {
		n, ok := strings.CutPrefix(base, p.prefix)
		if !ok || !digits(n) || n[0] == '0' {
			continue
		}
		v, err := strconv.Atoi(n)
		if err == nil && v >= p.lo && v <= p.hi && v%p.step == 0 {
			return base + arrays, true
		}
	}
	return "", false
}
