package execution

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"go.yaml.in/yaml/v3"

	"github.com/xgr-sidecar/xgr/internal/yamlsection"
)

// ConfigKey is the config file's section that ParseConfig reads.
const ConfigKey = "executions"

// Defaults of the executions: section.
const (
	DefaultMaxGasLimit       = 1_000_000
	DefaultSessionGas        = 10_000_000
	DefaultInFlight          = 64
	DefaultBumpPercent       = 10
	DefaultBumpAfterBlocks   = 3
	DefaultMaxTxBytes        = 128 * 1024 // geth's txpool limit (legacypool txMaxSize)
	minMaxTxBytes            = 1024
	maxMaxTxBytes            = 16 << 20
	maxInFlight              = 4096
	maxBumpAfterBlocks       = 1000
	maxTargets               = 1024
	defaultMaxFeePerGasGwei  = 500
	maxFeePerGasCeilingGwei  = 1_000_000_000 // 1e18 wei: a sanity ceiling, not a policy
	maxBumpPercent           = 1000
	weiPerGwei               = 1_000_000_000
	maxFeeDigits             = 40
	configExample            = "executions: {enabled: true, targets: [0x…], maxGasLimit: 500000, maxFeePerGas: 100 gwei, defaultSessionGas: 5000000}"
	configTargetsExplanation = "a list of 0x contract addresses, or any"
)

// Config is the operator's executions: section.
//
//	executions:
//	  enabled: true               # off by default; --executions / XGR_EXECUTIONS turn it on too
//	  targets: [0x…, 0x…]         # the contracts executions may call, or: any
//	  maxGasLimit: 1000000        # gas limit cap per execution; a rule's gas.limit may lower it
//	  maxFeePerGas: 500 gwei      # cap of every fee cap (or legacy gas price): wei, or "<n> gwei"
//	  defaultSessionGas: 10000000 # a session's gas budget when its permit's maxTotalGas is 0
//	  inflight: 64                # unmined transactions of the executor key at once
//	  bumpPercent: 10             # fee rise per bump (at least 10)
//	  bumpAfterBlocks: 3          # blocks unmined before a bump
//	  maxTxBytes: 131072          # the node's limit of a signed transaction's size (preflight)
//	  preflightEstimate: false    # also ask the node's eth_estimateGas before a nonce is reserved
type Config struct {
	Enabled bool
	// Policy holds targets, maxGasLimit and defaultSessionGas.
	Policy Policy
	// MaxFeePerGas is passed to the transaction manager (wei).
	MaxFeePerGas    *big.Int
	InFlight        int
	BumpPercent     uint64
	BumpAfterBlocks uint64
	// MaxTxBytes is the node's limit of a signed transaction's size; the
	// preflight refuses a call whose transaction may exceed it. 0 means
	// DefaultMaxTxBytes.
	MaxTxBytes int
	// PreflightEstimate makes the preflight ask the node's eth_estimateGas
	// for every new execution (one more RPC call each).
	PreflightEstimate bool
}

// DefaultConfig is the section's values when the file gives none:
// executions off, no target allowed.
func DefaultConfig() Config {
	return Config{
		Policy:          Policy{MaxGasLimit: DefaultMaxGasLimit, DefaultSessionGas: DefaultSessionGas},
		MaxFeePerGas:    new(big.Int).Mul(big.NewInt(defaultMaxFeePerGasGwei), big.NewInt(weiPerGwei)),
		InFlight:        DefaultInFlight,
		BumpPercent:     DefaultBumpPercent,
		BumpAfterBlocks: DefaultBumpAfterBlocks,
		MaxTxBytes:      DefaultMaxTxBytes,
	}
}

// Check reports what makes an enabled config unusable: no target allowed.
// (ParseConfig checks every value's range; this is for a config enabled
// by a flag after parsing.)
func (c Config) Check() error {
	if c.Enabled && !c.Policy.AnyTarget && len(c.Policy.Targets) == 0 {
		return fmt.Errorf("executions are enabled but %s allows no contract: list them (%s: [0x…]) or write %s: any", LimitTargets, "targets", "targets")
	}
	return nil
}

// ParseConfig reads the executions: section of a YAML config file. It
// returns the section (DefaultConfig when there is none), and the file
// with the section's lines blanked, line numbers kept, for the rest of the
// config to be read by its own parser. Every problem names
// file:line:column, the YAML path (e.g. executions.maxGasLimit) and what
// is allowed; a file that is not a YAML mapping is returned unchanged.
func ParseConfig(file string, raw []byte) (Config, []byte, error) {
	c := DefaultConfig()
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return c, raw, nil
	}
	top := doc.Content[0]
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		if k.Value != ConfigKey {
			continue
		}
		if top.Style&yaml.FlowStyle != 0 {
			return c, nil, fmt.Errorf("%s:%d:%d: %s: write the executions section as a block of its own (executions: on its own line, one setting per line below)", file, k.Line, k.Column, ConfigKey)
		}
		p := &cfgParser{file: file}
		p.section(v, &c)
		if len(p.problems) > 0 {
			return c, nil, fmt.Errorf("invalid %s section in %s:\n  %s", ConfigKey, file, strings.Join(p.problems, "\n  "))
		}
		return c, yamlsection.Blank(raw, top, i), nil
	}
	return c, raw, nil
}

type cfgParser struct {
	file     string
	problems []string
}

func (p *cfgParser) bad(n *yaml.Node, path, format string, args ...any) {
	p.problems = append(p.problems, fmt.Sprintf("%s:%d:%d: %s: %s", p.file, n.Line, n.Column, path, fmt.Sprintf(format, args...)))
}

var settings = []string{"enabled", "targets", "maxGasLimit", "maxFeePerGas", "defaultSessionGas", "inflight", "bumpPercent", "bumpAfterBlocks", "maxTxBytes", "preflightEstimate"}

func (p *cfgParser) section(v *yaml.Node, c *Config) {
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return
	}
	if v.Kind != yaml.MappingNode {
		p.bad(v, ConfigKey, "expected a mapping of settings (%s), e.g. %s", strings.Join(settings, ", "), configExample)
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, n := v.Content[i], v.Content[i+1]
		path := ConfigKey + "." + k.Value
		if seen[k.Value] {
			p.bad(k, path, "given twice")
			continue
		}
		seen[k.Value] = true
		switch k.Value {
		case "enabled":
			if n.Kind != yaml.ScalarNode || (n.Value != "true" && n.Value != "false") {
				p.bad(n, path, "expected true or false, found %q", n.Value)
				continue
			}
			c.Enabled = n.Value == "true"
		case "targets":
			p.targets(n, path, c)
		case "maxGasLimit":
			c.Policy.MaxGasLimit = p.uint(n, path, 21_000, MaxGas)
		case "defaultSessionGas":
			c.Policy.DefaultSessionGas = p.uint(n, path, 0, MaxGas)
		case "maxFeePerGas":
			if fee := p.wei(n, path); fee != nil {
				c.MaxFeePerGas = fee
			}
		case "inflight":
			c.InFlight = int(p.uint(n, path, 1, maxInFlight))
		case "bumpPercent":
			c.BumpPercent = p.uint(n, path, 10, maxBumpPercent)
		case "bumpAfterBlocks":
			c.BumpAfterBlocks = p.uint(n, path, 1, maxBumpAfterBlocks)
		case "maxTxBytes":
			c.MaxTxBytes = int(p.uint(n, path, minMaxTxBytes, maxMaxTxBytes))
		case "preflightEstimate":
			if n.Kind != yaml.ScalarNode || (n.Value != "true" && n.Value != "false") {
				p.bad(n, path, "expected true or false, found %q", n.Value)
				continue
			}
			c.PreflightEstimate = n.Value == "true"
		default:
			p.bad(k, path, "unknown setting %q (known here: %s)", k.Value, strings.Join(settings, ", "))
		}
	}
	if c.Enabled && !c.Policy.AnyTarget && len(c.Policy.Targets) == 0 {
		p.bad(v, ConfigKey+".targets", "executions are enabled but no target is allowed: give %s", configTargetsExplanation)
	}
}

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
		p.bad(n, path, "%d targets; at most %d are allowed (write any to allow every contract)", len(n.Content), maxTargets)
		return
	}
	seen := map[common.Address]bool{}
	for i, a := range n.Content {
		ip := fmt.Sprintf("%s[%d]", path, i)
		if a.Kind != yaml.ScalarNode || len(a.Value) != 42 || !strings.HasPrefix(a.Value, "0x") || !common.IsHexAddress(a.Value) {
			p.bad(a, ip, "expected a 0x address (40 hex digits), found %q", a.Value)
			continue
		}
		addr := common.HexToAddress(a.Value)
		if addr == (common.Address{}) {
			p.bad(a, ip, "the zero address is never a target")
			continue
		}
		if seen[addr] {
			p.bad(a, ip, "%s is listed twice", addr.Hex())
			continue
		}
		seen[addr] = true
		c.Policy.Targets = append(c.Policy.Targets, addr)
	}
}

func (p *cfgParser) uint(n *yaml.Node, path string, lo, hi uint64) uint64 {
	v, err := strconv.ParseUint(strings.ReplaceAll(n.Value, "_", ""), 10, 64)
	if n.Kind != yaml.ScalarNode || err != nil || v < lo || v > hi {
		p.bad(n, path, "expected a whole number in [%d, %d], found %q", lo, hi, n.Value)
		return 0
	}
	return v
}

// wei reads a fee: a whole number of wei, or "<n> gwei" (n may have up to
// 9 decimals).
func (p *cfgParser) wei(n *yaml.Node, path string) *big.Int {
	fail := func() *big.Int {
		p.bad(n, path, "expected a fee per gas in wei (a whole number) or as \"<n> gwei\", from 1 wei to %d gwei, found %q", maxFeePerGasCeilingGwei, n.Value)
		return nil
	}
	s := strings.TrimSpace(n.Value)
	if n.Kind != yaml.ScalarNode || len(s) > maxFeeDigits+5 {
		return fail()
	}
	var wei *big.Int
	if num, ok := strings.CutSuffix(s, "gwei"); ok {
		num = strings.TrimSpace(num)
		whole, frac, _ := strings.Cut(num, ".")
		if len(frac) > 9 || whole == "" || !digits(whole) || (frac != "" && !digits(frac)) {
			return fail()
		}
		w, _ := new(big.Int).SetString(whole+frac+strings.Repeat("0", 9-len(frac)), 10)
		wei = w
	} else {
		s = strings.TrimSpace(strings.TrimSuffix(s, "wei"))
		if !digits(s) {
			return fail()
		}
		wei, _ = new(big.Int).SetString(s, 10)
	}
	ceiling := new(big.Int).Mul(big.NewInt(maxFeePerGasCeilingGwei), big.NewInt(weiPerGwei))
	if wei == nil || wei.Sign() <= 0 || wei.Cmp(ceiling) > 0 {
		return fail()
	}
	return wei
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
