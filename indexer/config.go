package indexer

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"go.yaml.in/yaml/v3"

	"github.com/xgr-sidecar/xgr/internal/jsondoc"
)

// Config is what the indexer follows and which chain events start sessions.
//
//	registries: [0x…]            # XRC-729 registries to follow
//	discover: false              # also follow every XRC-729 that emits XRC729Deployed
//	start_block: 0               # where an empty index begins
//	finality: auto               # auto (the node's finalized tag if it has one, else confirmations),
//	                             # finalized, safe, or confirmations
//	confirmations: 12            # with finality confirmations: blocks, the trigger's own included
//	window: 128                  # recent blocks kept for reorg detection
//	triggers:
//	  - name: order-placed
//	    contract: 0x…
//	    event: "OrderPlaced(address indexed owner, uint256 amount, string ref)"
//	    topics: {owner: "0x…"}   # optional: only logs whose indexed args equal these
//	    orchestration: {registry: 0x…, id: OrderFlow, hash: 0x…}   # hash pins the text (optional)
//	    start: A1
//	    owner: {arg: owner}      # or a fixed "0x…"
//	    payload:
//	      Amount: {arg: amount}
//	      Ref: {arg: ref}
//	      Block: {log: blockNumber}   # blockNumber, blockHash, txHash, txIndex, logIndex, address
//	      Source: {value: chain}      # a literal (any YAML scalar)
type Config struct {
	Registries    []common.Address
	Discover      bool
	StartBlock    uint64
	Finality      string
	Confirmations uint64
	Window        int
	Triggers      []Trigger
}

// Trigger starts a session for each confirmed log of one event.
type Trigger struct {
	Name     string
	Contract common.Address
	Event    abi.Event
	// Topics filter indexed arguments by value (as the arguments' types read them).
	Topics map[string]string
	// Orchestration to run.
	Registry common.Address
	OstcID   string
	Pin      common.Hash
	Start    string
	// Owner is the session owner: a fixed address, or an argument's value.
	Owner Value
	// Payload maps payload keys to values, in file order.
	Payload []Field
}

// Field is one payload entry.
type Field struct {
	Key   string
	Value Value
}

// Value is where a payload or owner value comes from: exactly one of an
// event argument, a log field or a literal.
type Value struct {
	Arg     string
	Log     string
	Literal any
	literal bool
}

// logFields are the log fields a trigger may copy into a payload.
var logFields = map[string]bool{"blockNumber": true, "blockHash": true, "txHash": true, "txIndex": true, "logIndex": true, "address": true}

// ConfigError lists every problem of a config file.
type ConfigError struct {
	File     string
	Problems []jsondoc.Problem
}

func (e *ConfigError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "invalid config %s: %d problem(s)", e.File, len(e.Problems))
	for _, p := range e.Problems {
		b.WriteString("\n  ")
		b.WriteString(e.File)
		b.WriteString(":")
		b.WriteString(p.String())
	}
	return b.String()
}

type cfgParser struct{ problems []jsondoc.Problem }

func (p *cfgParser) errorf(n *yaml.Node, path string, format string, args ...any) {
	pr := jsondoc.Problem{Path: path, Code: "config", Message: fmt.Sprintf(format, args...)}
	if n != nil {
		pr.Line, pr.Col = n.Line, n.Column
	}
	p.problems = append(p.problems, pr)
}

// fields walks a mapping node, reporting keys outside known.
func (p *cfgParser) fields(n *yaml.Node, path string, known ...string) map[string]*yaml.Node {
	out := map[string]*yaml.Node{}
	if n.Kind != yaml.MappingNode {
		p.errorf(n, path, "expected a mapping")
		return out
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		ok := false
		for _, name := range known {
			ok = ok || name == k.Value
		}
		switch {
		case !ok:
			p.errorf(k, join(path, k.Value), "unknown setting %q (known here: %s)", k.Value, strings.Join(known, ", "))
		case out[k.Value] != nil:
			p.errorf(k, join(path, k.Value), "%q is given twice", k.Value)
		default:
			out[k.Value] = v
		}
	}
	return out
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func (p *cfgParser) address(n *yaml.Node, path string) common.Address {
	if n.Kind != yaml.ScalarNode || !common.IsHexAddress(n.Value) {
		p.errorf(n, path, "expected a 0x address (40 hex digits), found %q", n.Value)
		return common.Address{}
	}
	return common.HexToAddress(n.Value)
}

func (p *cfgParser) uint(n *yaml.Node, path string) uint64 {
	v, err := strconv.ParseUint(n.Value, 10, 64)
	if n.Kind != yaml.ScalarNode || err != nil {
		p.errorf(n, path, "expected a whole number, found %q", n.Value)
	}
	return v
}

func (p *cfgParser) str(n *yaml.Node, path string) string {
	if n.Kind != yaml.ScalarNode || n.Value == "" {
		p.errorf(n, path, "expected a non-empty string")
		return ""
	}
	return n.Value
}

// ConfigKeys are the top-level settings of the index (ParseConfig).
var ConfigKeys = []string{"registries", "discover", "start_block", "finality", "confirmations", "window", "triggers"}

// ParseConfig reads a YAML config; a rejected file is a *ConfigError that
// lists every problem with line:column.
func ParseConfig(file string, raw []byte) (*Config, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, &ConfigError{File: file, Problems: []jsondoc.Problem{{Code: "syntax", Message: err.Error()}}}
	}
	c := DefaultConfig()
	p := &cfgParser{}
	if len(doc.Content) == 0 {
		return c, nil
	}
	top := p.fields(doc.Content[0], "", ConfigKeys...)
	if n := top["finality"]; n != nil {
		switch n.Value {
		case "auto", "finalized", "safe", "confirmations":
			c.Finality = n.Value
		default:
			p.errorf(n, "finality", "finality %q: use auto, finalized, safe or confirmations", n.Value)
		}
	}
	if n := top["registries"]; n != nil {
		if n.Kind != yaml.SequenceNode {
			p.errorf(n, "registries", "expected a list of addresses")
		}
		for i, a := range n.Content {
			c.Registries = append(c.Registries, p.address(a, fmt.Sprintf("registries[%d]", i)))
		}
	}
	if n := top["discover"]; n != nil {
		if n.Value != "true" && n.Value != "false" {
			p.errorf(n, "discover", "expected true or false")
		}
		c.Discover = n.Value == "true"
	}
	if n := top["start_block"]; n != nil {
		c.StartBlock = p.uint(n, "start_block")
	}
	if n := top["confirmations"]; n != nil {
		c.Confirmations = p.uint(n, "confirmations")
	}
	if n := top["window"]; n != nil {
		if c.Window = int(p.uint(n, "window")); c.Window < 2 {
			p.errorf(n, "window", "the window must hold at least 2 blocks")
		}
	}
	if n := top["triggers"]; n != nil {
		if n.Kind != yaml.SequenceNode {
			p.errorf(n, "triggers", "expected a list of triggers")
		}
		names := map[string]bool{}
		for i, tn := range n.Content {
			t := p.trigger(tn, fmt.Sprintf("triggers[%d]", i))
			if t.Name != "" && names[t.Name] {
				p.errorf(tn, fmt.Sprintf("triggers[%d].name", i), "trigger name %q is used twice", t.Name)
			}
			names[t.Name] = true
			c.Triggers = append(c.Triggers, t)
		}
	}
	if len(p.problems) > 0 {
		return nil, &ConfigError{File: file, Problems: p.problems}
	}
	return c, nil
}

func (p *cfgParser) trigger(n *yaml.Node, path string) Trigger {
	var t Trigger
	f := p.fields(n, path, "name", "contract", "event", "topics", "orchestration", "start", "owner", "payload")
	for _, req := range []string{"name", "contract", "event", "orchestration", "start", "owner"} {
		if f[req] == nil {
			p.errorf(n, join(path, req), "missing %q", req)
		}
	}
	if v := f["name"]; v != nil {
		t.Name = p.str(v, join(path, "name"))
	}
	if v := f["contract"]; v != nil {
		t.Contract = p.address(v, join(path, "contract"))
	}
	haveEvent := false
	if v := f["event"]; v != nil {
		ev, err := ParseEvent(v.Value)
		if err != nil {
			p.errorf(v, join(path, "event"), "%v", err)
		} else {
			t.Event, haveEvent = ev, true
		}
	}
	arg := func(name string) (abi.Argument, bool) {
		for _, a := range t.Event.Inputs {
			if a.Name == name {
				return a, true
			}
		}
		return abi.Argument{}, false
	}
	if v := f["topics"]; v != nil && haveEvent {
		t.Topics = map[string]string{}
		for k, val := range p.fields(v, join(path, "topics"), argNames(t.Event, true)...) {
			t.Topics[k] = val.Value
		}
	}
	if v := f["orchestration"]; v != nil {
		o := p.fields(v, join(path, "orchestration"), "registry", "id", "hash")
		if o["registry"] == nil || o["id"] == nil {
			p.errorf(v, join(path, "orchestration"), "needs registry and id")
		}
		if r := o["registry"]; r != nil {
			t.Registry = p.address(r, join(path, "orchestration.registry"))
		}
		if id := o["id"]; id != nil {
			t.OstcID = p.str(id, join(path, "orchestration.id"))
		}
		if h := o["hash"]; h != nil {
			if b := common.FromHex(h.Value); len(b) != 32 {
				p.errorf(h, join(path, "orchestration.hash"), "expected 0x and 64 hex digits")
			} else {
				t.Pin = common.BytesToHash(b)
			}
		}
	}
	if v := f["start"]; v != nil {
		t.Start = p.str(v, join(path, "start"))
	}
	value := func(v *yaml.Node, at string) Value {
		if v.Kind == yaml.ScalarNode {
			var lit any
			v.Decode(&lit)
			return Value{Literal: lit, literal: true}
		}
		m := p.fields(v, at, "arg", "log", "value")
		if len(m) != 1 {
			p.errorf(v, at, "give exactly one of arg, log or value")
			return Value{}
		}
		switch {
		case m["arg"] != nil:
			a, ok := arg(m["arg"].Value)
			if haveEvent && !ok {
				p.errorf(m["arg"], join(at, "arg"), "the event has no argument %q (arguments: %s)", m["arg"].Value, strings.Join(argNames(t.Event, false), ", "))
			}
			if ok && a.Indexed && isDynamic(a.Type) {
				p.errorf(m["arg"], join(at, "arg"), "indexed %s argument %q is only a hash in the log; its value cannot be read", a.Type, a.Name)
			}
			return Value{Arg: m["arg"].Value}
		case m["log"] != nil:
			if !logFields[m["log"].Value] {
				p.errorf(m["log"], join(at, "log"), "log field %q is not one of blockNumber, blockHash, txHash, txIndex, logIndex, address", m["log"].Value)
			}
			return Value{Log: m["log"].Value}
		default:
			var lit any
			m["value"].Decode(&lit)
			return Value{Literal: lit, literal: true}
		}
	}
	if v := f["owner"]; v != nil {
		t.Owner = value(v, join(path, "owner"))
		switch {
		case t.Owner.literal:
			if s, ok := t.Owner.Literal.(string); !ok || !common.IsHexAddress(s) {
				p.errorf(v, join(path, "owner"), "a fixed owner must be a 0x address")
			}
		case t.Owner.Arg != "":
			if a, ok := arg(t.Owner.Arg); ok && a.Type.T != abi.AddressTy {
				p.errorf(v, join(path, "owner"), "owner argument %q is %s; it must be an address", a.Name, a.Type)
			}
		case t.Owner.Log != "" && t.Owner.Log != "address":
			p.errorf(v, join(path, "owner"), "only the log's address can be an owner")
		}
	}
	if v := f["payload"]; v != nil {
		if v.Kind != yaml.MappingNode {
			p.errorf(v, join(path, "payload"), "expected a mapping of payload keys")
		} else {
			for i := 0; i+1 < len(v.Content); i += 2 {
				k := v.Content[i]
				if strings.HasPrefix(k.Value, "_") {
					p.errorf(k, join(path, "payload."+k.Value), "payload keys starting with _ are reserved for the engine")
				}
				t.Payload = append(t.Payload, Field{Key: k.Value, Value: value(v.Content[i+1], join(path, "payload."+k.Value))})
			}
		}
	}
	return t
}

func argNames(ev abi.Event, indexedOnly bool) []string {
	var out []string
	for _, a := range ev.Inputs {
		if !indexedOnly || a.Indexed {
			out = append(out, a.Name)
		}
	}
	return out
}

func isDynamic(t abi.Type) bool {
	switch t.T {
	case abi.StringTy, abi.BytesTy, abi.SliceTy, abi.ArrayTy, abi.TupleTy:
		return true
	}
	return false
}
