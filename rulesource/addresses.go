package rulesource

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"go.yaml.in/yaml/v3"

	"github.com/xgr-sidecar/xgr/internal/yamlsection"

	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/rule"
)

// Addresses binds the rule references an orchestration writes as
// ${addr:ALIAS} or <NAME> (the forms of the public test-suite bundles and
// examples) to the XRC-137 contracts that hold those rules on the chain the
// sidecar follows, by name (ALIAS, NAME). It is the "addresses:" section of
// the operator's config file (see ParseAddresses).
type Addresses map[string]common.Address

// ErrUnbound: a ${addr:ALIAS} or <NAME> reference that neither the rule
// directory nor Addresses binds. It comes wrapped together with
// ErrNotCovered, so that scripted outcomes may still run such a step.
var ErrUnbound = errors.New("rule reference is not bound to an address")

// AliasName is the name a ${addr:ALIAS} or <NAME> reference binds (ALIAS,
// NAME) and whether ref is such a reference with a usable name (letters,
// digits, '.', '_', '-', not starting with '.').
func AliasName(ref string) (string, bool) {
	var name string
	switch {
	case strings.HasPrefix(ref, "${addr:") && strings.HasSuffix(ref, "}"):
		name = ref[len("${addr:") : len(ref)-1]
	case strings.HasPrefix(ref, "<") && strings.HasSuffix(ref, ">"):
		name = ref[1 : len(ref)-1]
	default:
		return "", false
	}
	return name, validName(name)
}

// unbound is the refusal for an alias reference nothing binds.
func unbound(ref, name string) error {
	return fmt.Errorf("%w: %w: %q names %q, which the addresses: section of the config (--config) does not bind; add it, e.g. addresses: {%s: \"0x…\"}",
		ErrNotCovered, ErrUnbound, ref, name, name)
}

// AddressesKey is the config file's section that ParseAddresses reads.
const AddressesKey = "addresses"

// ParseAddresses reads the "addresses:" section of a YAML config file:
//
//	addresses:
//	  FEED: "0x5FbDB2315678afecb367f032d93F642f64180aa3"      # ${addr:FEED}
//	  Iterationstep-Addr: "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512"  # <Iterationstep-Addr>
//
// Keys are the names inside ${addr:NAME} or <NAME> (or the reference
// written in full); values are 0x addresses. It returns the bindings and
// the file with the section's lines blanked, line numbers kept, for the
// rest of the config to be read by its own parser. A file that is not a
// YAML mapping is returned unchanged (its parser reports it). A bad entry
// is an error naming file:line:column, the key and what is allowed.
func ParseAddresses(file string, raw []byte) (Addresses, []byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, raw, nil
	}
	top := doc.Content[0]
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		if k.Value != AddressesKey {
			continue
		}
		if top.Style&yaml.FlowStyle != 0 {
			return nil, nil, fmt.Errorf("%s:%d:%d: %s: write the addresses section as a block of its own (addresses: on its own line, one NAME: 0x… per line below)", file, k.Line, k.Column, AddressesKey)
		}
		addrs, err := parseAddressMap(file, v)
		if err != nil {
			return nil, nil, err
		}
		return addrs, yamlsection.Blank(raw, top, i), nil
	}
	return nil, raw, nil
}

func parseAddressMap(file string, v *yaml.Node) (Addresses, error) {
	var problems []string
	bad := func(n *yaml.Node, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("%s:%d:%d: %s", file, n.Line, n.Column, fmt.Sprintf(format, args...)))
	}
	out := Addresses{}
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return out, nil
	}
	if v.Kind != yaml.MappingNode {
		bad(v, "%s: expected a mapping of rule names to 0x addresses, e.g. FEED: \"0x…\"", AddressesKey)
		return nil, errors.New(strings.Join(problems, "\n"))
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, a := v.Content[i], v.Content[i+1]
		path := AddressesKey + "." + k.Value
		name := k.Value
		if n, ok := AliasName(name); ok {
			name = n
		}
		switch {
		case !validName(name):
			bad(k, "%s: %q is not a rule name: use the NAME of ${addr:NAME} or <NAME> (letters, digits, '.', '_', '-', not starting with '.')", path, k.Value)
		case a.Kind != yaml.ScalarNode || !rule.IsAddress(a.Value):
			bad(a, "%s: expected a 0x address (40 hex digits), found %q", path, a.Value)
		default:
			if _, dup := out[name]; dup {
				bad(k, "%s: %q is bound twice", path, name)
				continue
			}
			out[name] = common.HexToAddress(a.Value)
		}
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("invalid %s section in %s:\n  %s", AddressesKey, file, strings.Join(problems, "\n  "))
	}
	return out, nil
}

// Names lists the bound names, sorted.
func (a Addresses) Names() []string {
	out := make([]string, 0, len(a))
	for n := range a {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Link is the binding of each step of o whose rule is a ${addr:ALIAS} or
// <NAME> reference (step id → address, as `xgr ostc link` writes it into
// the text), and the references nothing binds (sorted, each once). Steps
// whose rule is an address already, or another form, are left out.
func (a Addresses) Link(o *registry.Orchestration) (bound map[string]common.Address, unboundRefs []string) {
	bound = map[string]common.Address{}
	seen := map[string]bool{}
	for _, s := range o.Steps {
		name, ok := AliasName(s.Rule)
		if !ok {
			continue
		}
		addr, found := a[name]
		if !found {
			addr, found = a[s.Rule]
		}
		if found {
			bound[s.ID] = addr
		} else if !seen[s.Rule] {
			seen[s.Rule] = true
			unboundRefs = append(unboundRefs, s.Rule)
		}
	}
	sort.Strings(unboundRefs)
	return bound, unboundRefs
}
