package rulesource

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/rule"
)

// Loaded is a rule document and where it came from.
type Loaded struct {
	// Ref is the step's "rule" as written in the orchestration.
	Ref string
	Doc *rule.Document
	// Origin names the source for messages: the file path, or
	// "XRC-137 0x…".
	Origin string
	// File is set for rules read from a file, Address for rules read from
	// a contract.
	File    string
	Address common.Address
	// Hash is keccak256 of the exact rule text the document was parsed
	// from: the contract's ruleHash for a rule read from chain or from the
	// indexer's cache (for an encrypted rule, the hash of its envelope as
	// stored), keccak256 of the file's bytes for a rule read from a file.
	Hash common.Hash
}

// Source loads the rule a reference names.
type Source interface {
	Load(ctx context.Context, ref string) (*Loaded, error)
}

// Errors a load can wrap.
var (
	// ErrNotCovered: no source knows the reference (not in the file map,
	// and not an address to read from chain). An executor may run such a
	// step another way.
	ErrNotCovered = errors.New("no rule source covers this reference")
	// ErrEncrypted: the rule is an XGR1 envelope and the source has no
	// Opener to open it.
	ErrEncrypted = errors.New("encrypted rules (XGR1 envelopes) are not supported")
	// ErrHashMismatch: keccak256 of the text read differs from the
	// recorded ruleHash.
	//
	// A load that failed because the node or the rule cache gave no answer
	// (down, timeout, rate limit, server error) wraps rule.ErrUnavailable:
	// it may succeed later. Every other failure is a definite answer.
	ErrHashMismatch = errors.New("ruleHash does not match keccak256(ruleJson)")
)

// Error is a failed load: which reference, from where, and why. A rejected
// document unwraps to a *rule.ValidationError with every problem.
type Error struct {
	Ref string
	// Origin is the file or contract tried ("" when none was).
	Origin string
	Err    error
}

func (e *Error) Error() string {
	if e.Origin == "" {
		return fmt.Sprintf("rule %q: %v", e.Ref, e.Err)
	}
	return fmt.Sprintf("rule %q (%s): %v", e.Ref, e.Origin, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// xgr1Prefix starts an encrypted rule envelope.
const xgr1Prefix = "XGR1."

// checkPlain refuses an XGR1 envelope.
func checkPlain(text []byte) error {
	if strings.HasPrefix(strings.TrimSpace(string(text[:min(len(text), 64)])), xgr1Prefix) {
		return fmt.Errorf("%w: the text is an XGR1 envelope; deploy or map the plain JSON document instead", ErrEncrypted)
	}
	return nil
}

// Loader resolves references through the file map first, then
// ${addr:ALIAS} and <NAME> references through Addresses and 0x addresses
// from chain. Any part may be nil.
type Loader struct {
	Files *Dir
	Chain *Chain
	// Addresses binds alias references to rule contracts (the config's
	// addresses: section); an alias reference it does not bind is refused
	// with ErrUnbound (wrapped with ErrNotCovered).
	Addresses Addresses
}

// Resolve binds ref as Load reads it, without reading anything: the rule
// file or the XRC-137 contract the file map names (rules.json, then a file
// named after the reference), else for a ${addr:ALIAS} or <NAME> reference
// the contract Addresses binds, else for a 0x address that contract. A
// reference nothing binds is an *Error wrapping ErrNotCovered (and
// ErrUnbound for an alias Addresses does not bind). It is the one
// resolution of rule references: Load uses it, and so does the start-time
// authority check (package authority), so a session is authorized on the
// very contracts its steps will read.
func (l *Loader) Resolve(ref string) (Target, error) {
	if l.Files != nil {
		if t, ok := l.Files.Resolve(ref); ok {
			return t, nil
		}
	}
	if name, ok := AliasName(ref); ok {
		if addr, bound := l.Addresses[name]; bound {
			return Target{Address: addr, Via: viaConfig}, nil
		}
		if l.Addresses != nil {
			err := unbound(ref, name)
			if l.Files != nil {
				err = fmt.Errorf("%w (and %s)", err, l.Files.explain(ref))
			}
			return Target{}, &Error{Ref: ref, Err: err}
		}
	}
	if rule.IsAddress(ref) {
		return Target{Address: common.HexToAddress(ref), Via: viaAddress}, nil
	}
	var tried []string
	if l.Files != nil {
		tried = append(tried, l.Files.explain(ref))
	}
	tried = append(tried, "not a 0x address to read from chain")
	return Target{}, &Error{Ref: ref, Err: fmt.Errorf("%w (%s)", ErrNotCovered, strings.Join(tried, "; "))}
}

// Load implements Source: it reads the rule Resolve binds ref to.
func (l *Loader) Load(ctx context.Context, ref string) (*Loaded, error) {
	t, err := l.Resolve(ref)
	switch {
	case err != nil:
		return nil, err
	case t.File != "":
		return l.Files.load(ref, t.File)
	case l.Chain != nil:
		return l.Chain.load(ctx, ref, t.Address)
	case t.Via == viaAddress:
		var tried []string
		if l.Files != nil {
			tried = append(tried, l.Files.explain(ref))
		}
		tried = append(tried, "no chain backend to read the address from")
		return nil, &Error{Ref: ref, Err: fmt.Errorf("%w (%s)", ErrNotCovered, strings.Join(tried, "; "))}
	case t.Via == viaConfig:
		return nil, &Error{Ref: ref, Origin: t.Via, Err: fmt.Errorf("bound to XRC-137 %s, but no chain backend is configured to read it", t.Address.Hex())}
	}
	return nil, &Error{Ref: ref, Origin: t.Via, Err: fmt.Errorf("mapped to XRC-137 %s, but no chain backend is configured to read it", t.Address.Hex())}
}

// How Resolve found a contract outside the file map (Target.Via).
const (
	viaConfig  = "config " + AddressesKey
	viaAddress = "the reference is the address"
)
