package execution

import (
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"go.yaml.in/yaml/v3"
)

// targets reads executions.targets: any, or a list whose entries are a
// bare address (AllowContract) or a mapping {address, functions,
// plainTransfer, value}.
func (p *cfgParser) targets(n *yaml.Node, path string, c *Config) {
	if n.Kind == yaml.ScalarNode && n.Value == "any" {
		c.Policy.AnyTarget = true
		return
	}
	if n.Kind != yaml.SequenceNode {
		p.bad(n, path, "expected %s, found %q", configTargetsExplanation, n.Value)
		return
	}
	if len(n.Content) > maxTargets {
		p.bad(n, path, "%d targets; at most %d are allowed", len(n.Content), maxTargets)
		return
	}
	seen := map[common.Address]bool{}
	for i, e := range n.Content {
		ip := fmt.Sprintf("%s[%d]", path, i)
		var t Target
		var ok bool
		if e.Kind == yaml.MappingNode {
			t, ok = p.target(e, ip)
		} else {
			var addr common.Address
			if addr, ok = p.address(e, ip); ok {
				t = AllowContract(addr)
			}
		}
		if !ok {
			continue
		}
		if seen[t.Address] {
			p.bad(e, ip, "%s is listed twice", t.Address.Hex())
			continue
		}
		seen[t.Address] = true
		c.Policy.Targets = append(c.Policy.Targets, t)
	}
}

func (p *cfgParser) address(n *yaml.Node, path string) (common.Address, bool) {
	if n.Kind != yaml.ScalarNode || len(n.Value) != 42 || !strings.HasPrefix(n.Value, "0x") || !common.IsHexAddress(n.Value) {
		p.bad(n, path, "expected a 0x address (40 hex digits), or a mapping {address: 0x…, functions: [...]}, found %q", n.Value)
		return common.Address{}, false
	}
	addr := common.HexToAddress(n.Value)
	if addr == (common.Address{}) {
		p.bad(n, path, "the zero address is never a target")
		return addr, false
	}
	return addr, true
}

var targetSettings = []string{"address", "functions", "plainTransfer", "value"}

// target reads one mapping entry of executions.targets.
func (p *cfgParser) target(n *yaml.Node, path string) (Target, bool) {
	var t Target
	before := len(p.problems)
	var hasAddress, hasFunctions bool
	var valueNode *yaml.Node
	p.mapping(n, path, targetSettings, func(k, v *yaml.Node, kp string) {
		switch k.Value {
		case "address":
			hasAddress = true
			t.Address, _ = p.address(v, kp)
		case "functions":
			hasFunctions = true
			p.functions(v, kp, &t)
		case "plainTransfer":
			t.PlainTransfer, _ = p.bool(v, kp)
		case "value":
			valueNode = v
			p.targetValue(v, kp, &t)
		}
	})
	switch {
	case !hasAddress:
		p.bad(n, path+".address", "missing: every target names its 0x address")
	case !hasFunctions && !t.PlainTransfer && len(p.problems) == before:
		p.bad(n, path+".functions", "missing: the target allows no call; list its functions (signatures such as settle(uint256,address), or selectors 0x12345678), functions: any, or plainTransfer: true")
	case t.Value && valueNode != nil && (t.MaxValue == nil || t.MaxValue.Sign() == 0) && len(p.problems) == before:
		p.bad(valueNode, path+".value.maxPerExecution", "missing: a target that allows value caps it per execution, e.g. value: {allowed: true, maxPerExecution: 0.1 ether}")
	}
	return t, len(p.problems) == before
}

// functions reads a target's functions: any, or a list of signatures and
// selectors.
func (p *cfgParser) functions(n *yaml.Node, path string, t *Target) {
	if n.Kind == yaml.ScalarNode && n.Value == "any" {
		t.AnyFunction = true
		return
	}
	if n.Kind != yaml.SequenceNode {
		p.bad(n, path, "expected a list of function signatures (settle(uint256,address)) and selectors (0x12345678), or any, found %q", n.Value)
		return
	}
	if len(n.Content) > maxFunctions {
		p.bad(n, path, "%d functions; at most %d are allowed (write any to allow every function)", len(n.Content), maxFunctions)
		return
	}
	seen := map[[4]byte]string{}
	for i, e := range n.Content {
		ip := fmt.Sprintf("%s[%d]", path, i)
		if e.Kind != yaml.ScalarNode {
			p.bad(e, ip, "expected a function signature or a 0x selector")
			continue
		}
		f, err := ParseFunction(e.Value)
		if err != nil {
			p.bad(e, ip, "%v", err)
			continue
		}
		if prev, dup := seen[f.Selector]; dup {
			p.bad(e, ip, "%s has the selector 0x%x of %s, listed before", f.Text, f.Selector, prev)
			continue
		}
		seen[f.Selector] = f.Text
		t.Functions = append(t.Functions, f)
	}
}

// targetValue reads a target's value: {allowed, maxPerExecution}.
func (p *cfgParser) targetValue(n *yaml.Node, path string, t *Target) {
	var capNode *yaml.Node
	p.mapping(n, path, []string{"allowed", "maxPerExecution"}, func(k, v *yaml.Node, kp string) {
		switch k.Value {
		case "allowed":
			t.Value, _ = p.bool(v, kp)
		case "maxPerExecution":
			capNode = v
			t.MaxValue = p.amount(v, kp)
		}
	})
	if capNode != nil && !t.Value {
		p.bad(capNode, path+".maxPerExecution", "given while value.allowed is not true: the target allows no value; write allowed: true to allow it")
	}
}
