package rulesource

import (
	"fmt"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/registry"
)

// Linked is an orchestration text whose rule references are bound to
// their contracts (Addresses.LinkText).
type Linked struct {
	// Text is the rewritten orchestration (registry.Rewrite); Hash is its
	// keccak256, the one a registry records and a SessionPermit signs.
	Text []byte
	Hash common.Hash
	// Steps are the rewritten steps: step id → contract address (0x hex).
	Steps map[string]string
}

// LinkText writes the bindings of Link into o's text: every step whose
// rule is a ${addr:ALIAS} or <NAME> reference gets its contract's address;
// everything else is kept as written. When a reference is not bound,
// nothing is written: unbound lists those references (sorted, each once).
// The linked text must validate (an error says why not).
func (a Addresses) LinkText(o *registry.Orchestration) (l Linked, unbound []string, err error) {
	bound, unbound := a.Link(o)
	if len(unbound) > 0 {
		return Linked{}, unbound, nil
	}
	l.Steps = map[string]string{}
	for step, addr := range bound {
		l.Steps[step] = addr.Hex()
	}
	if l.Text, err = registry.Rewrite(o.Raw(), l.Steps, ""); err != nil {
		return Linked{}, nil, err
	}
	if _, err := registry.Parse(l.Text); err != nil {
		return Linked{}, nil, fmt.Errorf("the linked text does not validate: %w", err)
	}
	l.Hash = registry.Hash(l.Text)
	return l, nil, nil
}
