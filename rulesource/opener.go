package rulesource

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/envelope"
	"github.com/xgr-sidecar/xgr/rule"
)

// Opener opens encrypted rules for Chain: given the rule contract and the
// XGR1 envelope it holds, the plaintext document, or an error that says
// why not. A Chain without an Opener refuses encrypted rules with
// ErrEncrypted.
type Opener interface {
	OpenRule(ctx context.Context, contract common.Address, blob string) ([]byte, error)
}

// ErrNoGrant: xgr's read key holds no live READ grant (scope 1) for the
// rule's RID: none, expired, revoked, or rights without READ.
var ErrNoGrant = errors.New("xgr's read key holds no READ grant for it")

// KeyOpener opens rules with xgr's own read key and a grant lookup.
type KeyOpener struct {
	// Key is xgr's read key (envelope.LoadReadKey).
	Key *envelope.ReadKey
	// Grant returns the DEK wrapped for Key by a live grant with READ on
	// (rid, scope 1) of the rule contract; ok is false when there is none.
	// An error means the lookup gave no answer (the rule may open later).
	Grant GrantLookup
	// Header, when set, is tried when Grant has no key for xgr, gives no
	// answer, or gives one that does not open: the rule contract's own
	// encryption header (HeaderGrant). A grant store entry someone else
	// wrote for xgr's account (a junk key) then cannot stop a rule its
	// owner sealed for xgr's key.
	Header GrantLookup
}

// GrantLookup finds the data key of a rule RID wrapped for xgr's read key
// (see KeyOpener.Grant).
type GrantLookup func(ctx context.Context, contract common.Address, rid envelope.RID) (wrapped string, ok bool, err error)

// OpenRule implements Opener: the grant first, then the header; the first
// that opens the envelope wins. Else the refusal that says most: a lookup
// that gave no answer (rule.ErrUnavailable), then a key that does not open,
// then no key (ErrNoGrant).
func (o *KeyOpener) OpenRule(ctx context.Context, contract common.Address, blob string) ([]byte, error) {
	s, err := envelope.ParseSealed(blob, envelope.MaxRuleBytes)
	if err != nil {
		return nil, fmt.Errorf("rule %s is encrypted, but its envelope is unusable: %w", contract.Hex(), err)
	}
	if o.Key == nil || o.Grant == nil && o.Header == nil {
		return nil, fmt.Errorf("rule %s is encrypted (rid %s) and xgr has no read key (--read-key-file, $%s or $%s)", contract.Hex(), s.RID, envelope.ReadKeyFileEnv, envelope.ReadKeyEnv)
	}
	var worst error
	for _, lookup := range []GrantLookup{o.Grant, o.Header} {
		if lookup == nil {
			continue
		}
		plain, err := o.open(ctx, contract, s, lookup)
		if err == nil {
			return plain, nil
		}
		if worst == nil || weight(err) > weight(worst) {
			worst = err
		}
	}
	return nil, worst
}

// weight ranks why a key did not open a rule, to report the one that says
// most: no answer (it may open later) over a key that does not open over
// no key at all.
func weight(err error) int {
	switch {
	case errors.Is(err, rule.ErrUnavailable):
		return 2
	case errors.Is(err, ErrNoGrant):
		return 0
	}
	return 1
}

// open opens s with the key lookup finds.
func (o *KeyOpener) open(ctx context.Context, contract common.Address, s *envelope.Sealed, lookup GrantLookup) ([]byte, error) {
	wrapped, ok, err := lookup(ctx, contract, s.RID)
	if err != nil {
		return nil, fmt.Errorf("%w: rule %s is encrypted (rid %s): grant lookup: %w", rule.ErrUnavailable, contract.Hex(), s.RID, err)
	}
	if !ok {
		return nil, fmt.Errorf("rule %s is encrypted (rid %s) and %w", contract.Hex(), s.RID, ErrNoGrant)
	}
	w, err := envelope.ParseWrapped(wrapped)
	if err != nil {
		return nil, fmt.Errorf("rule %s is encrypted (rid %s) and the wrapped key of xgr's grant is unusable: %w", contract.Hex(), s.RID, err)
	}
	dek, err := o.Key.Unwrap(w, envelope.ScopeRule, s.RID)
	if err != nil {
		return nil, fmt.Errorf("rule %s is encrypted (rid %s) and xgr's grant does not open: %w", contract.Hex(), s.RID, err)
	}
	defer clear(dek[:])
	plain, err := s.Open(dek)
	if err != nil {
		return nil, fmt.Errorf("rule %s: %w", contract.Hex(), err)
	}
	return plain, nil
}

// HeaderGrant is a grant lookup (KeyOpener.Grant) that takes the data key
// the rule contract itself holds in its encryption header (encrypted():
// rid, suite, encDEK, written with the envelope by setRuleAndEncrypted),
// when the header's rid is the envelope's. It serves rules their owner
// sealed for xgr's read key (xgr rule encrypt --to <xgr's key>); whether
// the key opens is decided by KeyOpener. A header with another rid, or
// none, is no grant.
func HeaderGrant(b chain.Backend) GrantLookup {
	return func(ctx context.Context, contract common.Address, rid envelope.RID) (string, bool, error) {
		enc, err := chain.NewRule(contract, b).Encryption(ctx)
		if err != nil {
			return "", false, err
		}
		if enc.RID != common.Hash(rid) || len(enc.EncDEK) == 0 {
			return "", false, nil
		}
		if len(enc.EncDEK) != envelope.WrappedSize {
			// Text forms (XGRK2.…) stored as bytes are taken as written.
			return string(enc.EncDEK), true, nil
		}
		return "0x" + hex.EncodeToString(enc.EncDEK), true, nil
	}
}
