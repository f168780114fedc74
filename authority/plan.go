package authority

import (
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/registry"
)

// Kind is what a contract is to a session.
type Kind string

// The two kinds of contract a runner needs authority on.
const (
	// KindRegistry is the XRC-729 registry the session's orchestration is
	// recorded under.
	KindRegistry Kind = "registry"
	// KindRule is an XRC-137 rule contract a step references.
	KindRule Kind = "rule"
)

// Standard names the contract standard of the kind, for messages.
func (k Kind) Standard() string {
	if k == KindRegistry {
		return "XRC-729 registry"
	}
	return "XRC-137 rule contract"
}

// Use is where a rule contract is referenced: the steps of one
// orchestration, in document order.
type Use struct {
	OstcID string   `json:"ostcId"`
	Steps  []string `json:"steps"`
}

// Ref is one rule contract a session needs authority on, with every place
// that references it.
type Ref struct {
	Contract common.Address
	Uses     []Use
}

// Unresolved is a step's rule reference that names no contract address (a
// ${addr:ALIAS} alias or a deployer placeholder): no authority can be read
// for it on chain.
type Unresolved struct {
	OstcID string `json:"ostcId"`
	Step   string `json:"step"`
	Rule   string `json:"rule"`
}

// Plan is what a session, or a coverage check, needs authority on.
type Plan struct {
	// Registry is the XRC-729 registry; nil for sessions of a local file,
	// which are recorded under no registry.
	Registry *common.Address
	// Rules are the rule contracts the orchestrations reference, each once,
	// in the order of first reference.
	Rules []Ref
	// Unresolved are the references that name no address.
	Unresolved []Unresolved
}

// PlanFor lists the contracts a runner of the orchestrations needs
// authority on: the registry (when not nil) and every rule contract a step
// references by address; other references are listed as Unresolved. It
// reads nothing. It serves coverage reports; a start resolves every
// reference as the runtime does (ResolvePlan) and refuses one that does
// not resolve.
func PlanFor(reg *common.Address, orchs ...*registry.Orchestration) Plan {
	p := Plan{Registry: reg}
	for _, o := range orchs {
		if o == nil {
			continue
		}
		for _, s := range o.Steps {
			if !isAddress(s.Rule) {
				p.Unresolved = append(p.Unresolved, Unresolved{OstcID: o.ID, Step: s.ID, Rule: s.Rule})
				continue
			}
			p.addUse(common.HexToAddress(s.Rule), o.ID, s.ID)
		}
	}
	return p
}

// addUse records that step of orchestration ostc references contract c.
func (p *Plan) addUse(c common.Address, ostc, step string) {
	i := slices.IndexFunc(p.Rules, func(r Ref) bool { return r.Contract == c })
	if i < 0 {
		i = len(p.Rules)
		p.Rules = append(p.Rules, Ref{Contract: c})
	}
	r := &p.Rules[i]
	if n := len(r.Uses); n > 0 && r.Uses[n-1].OstcID == ostc {
		r.Uses[n-1].Steps = append(r.Uses[n-1].Steps, step)
	} else {
		r.Uses = append(r.Uses, Use{OstcID: ostc, Steps: []string{step}})
	}
}

// Contracts are the plan's contracts, each once: the registry first, then
// the rule contracts.
func (p Plan) Contracts() []common.Address {
	out := make([]common.Address, 0, len(p.Rules)+1)
	seen := map[common.Address]bool{}
	add := func(c common.Address) {
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	if p.Registry != nil {
		add(*p.Registry)
	}
	for _, r := range p.Rules {
		add(r.Contract)
	}
	return out
}

// isAddress is true for 0x and 40 hex digits: a reference that names a
// contract.
func isAddress(s string) bool {
	return len(s) == 42 && strings.HasPrefix(strings.ToLower(s), "0x") && common.IsHexAddress(s)
}
