package execution

import (
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/xgr-sidecar/xgr/internal/yamlsection"
)

// ConfigKey is the config file's section that ParseConfig reads.
const ConfigKey = "executions"

// Defaults of the executions: section.
const (
	DefaultMaxGasLimit          = 1_000_000
	DefaultMaxSessionGas        = 10_000_000
	DefaultMaxGasPerOwnerPerDay = 1_000_000_000
	DefaultInFlight             = 64
	DefaultBumpPercent          = 10
	DefaultBumpAfterBlocks      = 3
	// AllowAnyTargetAck is the one value of allowAnyTarget that lets
	// targets: any through.
	AllowAnyTargetAck        = "i-understand-the-risk"
	DefaultMaxTxBytes        = 128 * 1024 // geth's txpool limit (legacypool txMaxSize)
	minMaxTxBytes            = 1024
	maxMaxTxBytes            = 16 << 20
	maxInFlight              = 4096
	maxBumpAfterBlocks       = 1000
	minSenderLease           = time.Second
	maxSenderLease           = 5 * time.Minute
	maxTargets               = 1024
	maxFunctions             = 256
	defaultMaxFeePerGasGwei  = 500
	maxFeePerGasCeilingGwei  = 1_000_000_000 // 1e18 wei: a sanity ceiling, not a policy
	maxAmountCeilingEther    = 1_000_000_000 // 1e27 wei: a sanity ceiling of value and spend caps
	maxBumpPercent           = 1000
	weiPerGwei               = 1_000_000_000
	maxFeeDigits             = 40
	configExample            = "executions: {enabled: true, targets: [0x…], maxGasLimit: 500000, maxFeePerGas: 100 gwei, maxSessionGas: 5000000}"
	configTargetsExplanation = "a list of targets (a 0x address, or {address: 0x…, functions: [...], plainTransfer: false, value: {allowed: false}}), or any with allowAnyTarget: " + AllowAnyTargetAck
)

// Config is the operator's executions: section.
//
//	executions:
//	  enabled: true               # off by default; --executions / XGR_EXECUTIONS turn it on too
//	  targets:                    # who the executor key may call; a bare address: every function, no value, no plain transfer
//	    - 0x…
//	    - address: 0x…
//	      functions: ["settle(uint256,address)", "0xa9059cbb"]
//	      plainTransfer: false
//	      value: {allowed: true, maxPerExecution: 0.1 ether}
//	  maxGasLimit: 1000000        # gas limit cap per execution; a rule's gas.limit may lower it
//	  maxFeePerGas: 500 gwei      # cap of every fee cap (or legacy gas price): wei, or "<n> gwei"
//	  maxSessionGas: 10000000     # ceiling of a session's gas; the permit's maxTotalGas may lower it
//	  maxGasPerOwnerPerDay: 1000000000
//	  maxSpendPerOwnerPerDay: 1 ether # gas limit × maxFeePerGas + value, per owner per UTC day
//	  value: {maxPerExecution: 0.1 ether, maxPerSession: 0.5 ether, maxPerOwnerPerDay: 1 ether}
//	  inflight: 64                # unmined transactions of the executor key at once
//	  bumpPercent: 10             # fee rise per bump (at least 10)
//	  bumpAfterBlocks: 3          # blocks unmined before a bump
//	  maxTxBytes: 131072          # the node's limit of a signed transaction's size (preflight)
//	  preflightEstimate: false    # also ask the node's eth_estimateGas before a nonce is reserved
//	  senderLease: 10s            # a dead replica's hold on the executor key ends after it (default --root-lease)
//
// targets: any needs allowAnyTarget: i-understand-the-risk.
type Config struct {
	Enabled bool
	// Policy holds the targets and the gas, value and spend limits.
	Policy Policy
	// MaxFeePerGas is passed to the transaction manager (wei); it is also
	// the fee a worst-case spend is counted at.
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
	// SenderLease is how long the executor key's sender lease lasts
	// without renewal: after a replica holding it dies, another replica
	// takes over the key's bumps, gap fills and receipts after at most
	// this long. 0 means xgr run's --root-lease (a sender's takeover takes
	// no longer than a session's), else the transaction manager's 10 s.
	SenderLease time.Duration
}

// DefaultConfig is the section's values when the file gives none:
// executions off, no target allowed, no value.
func DefaultConfig() Config {
	return Config{
		Policy:          Policy{MaxGasLimit: DefaultMaxGasLimit, MaxSessionGas: DefaultMaxSessionGas, MaxGasPerOwnerPerDay: DefaultMaxGasPerOwnerPerDay},
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
		return fmt.Errorf("executions are enabled but %s allows no contract: list them (%s: [0x…]), or write %s: any with allowAnyTarget: %s", LimitTargets, "targets", "targets", AllowAnyTargetAck)
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

var settings = []string{"enabled", "targets", "allowAnyTarget", "maxGasLimit", "maxFeePerGas", "maxSessionGas", "maxGasPerOwnerPerDay",
	"maxSpendPerOwnerPerDay", "value", "inflight", "bumpPercent", "bumpAfterBlocks", "maxTxBytes", "preflightEstimate", "senderLease"}

func (p *cfgParser) section(v *yaml.Node, c *Config) {
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return
	}
	if v.Kind != yaml.MappingNode {
		p.bad(v, ConfigKey, "expected a mapping of settings (%s), e.g. %s", strings.Join(settings, ", "), configExample)
		return
	}
	seen := map[string]bool{}
	var targetsNode, ackNode *yaml.Node
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
			if b, ok := p.bool(n, path); ok {
				c.Enabled = b
			}
		case "targets":
			targetsNode = n
			p.targets(n, path, c)
		case "allowAnyTarget":
			ackNode = n
			if n.Kind != yaml.ScalarNode || n.Value != AllowAnyTargetAck {
				p.bad(n, path, "the only value is %s (it lets targets: any through), found %q", AllowAnyTargetAck, n.Value)
			}
		case "maxGasLimit":
			c.Policy.MaxGasLimit = p.uint(n, path, 21_000, MaxGas)
		case "maxSessionGas":
			c.Policy.MaxSessionGas = p.uint(n, path, 0, MaxGas)
		case "defaultSessionGas":
			p.bad(k, path, "renamed to maxSessionGas, and it is now a ceiling: a SessionPermit's maxTotalGas may lower a session's gas budget below it, never raise it; write maxSessionGas: %s", n.Value)
		case "maxGasPerOwnerPerDay":
			c.Policy.MaxGasPerOwnerPerDay = p.uint(n, path, 0, MaxGas)
		case "maxSpendPerOwnerPerDay":
			c.Policy.MaxSpendPerOwnerPerDay = p.amount(n, path)
		case "value":
			p.valueCaps(n, path, &c.Policy.Value)
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
		case "senderLease":
			d, err := time.ParseDuration(n.Value)
			if n.Kind != yaml.ScalarNode || err != nil || d < minSenderLease || d > maxSenderLease {
				p.bad(n, path, "expected a duration from %s to %s (e.g. 10s), found %q", minSenderLease, maxSenderLease, n.Value)
				continue
			}
			c.SenderLease = d
		default:
			p.bad(k, path, "unknown setting %q (known here: %s)", k.Value, strings.Join(settings, ", "))
		}
	}
	switch {
	case c.Policy.AnyTarget && ackNode == nil:
		p.bad(targetsNode, ConfigKey+".targets", "targets: any lets every session owner make the executor key call any contract with any function "+
			"(an ERC-20 transfer of the executor's tokens, an approve, ...); list the targets and their functions, or, to accept that, add allowAnyTarget: %s", AllowAnyTargetAck)
	case ackNode != nil && !c.Policy.AnyTarget && len(p.problems) == 0:
		p.bad(ackNode, ConfigKey+".allowAnyTarget", "only goes with targets: any; the targets here are listed, so remove it")
	}
	if c.Enabled && !c.Policy.AnyTarget && len(c.Policy.Targets) == 0 {
		p.bad(v, ConfigKey+".targets", "executions are enabled but no target is allowed: give %s", configTargetsExplanation)
	}
	for i, t := range c.Policy.Targets {
		if !t.Value {
			continue
		}
		for _, need := range []struct {
			v    *big.Int
			name string
		}{{c.Policy.Value.MaxPerSession, LimitSessionValue}, {c.Policy.Value.MaxPerOwnerPerDay, LimitOwnerValue}} {
			if need.v == nil || need.v.Sign() == 0 {
				p.bad(targetsNode, TargetLimit(i, "value"), "%s allows value but %s is not set (no value passes without it): give executions.value: {maxPerSession: …, maxPerOwnerPerDay: …}",
					t.Address.Hex(), need.name)
			}
		}
	}
}

func (p *cfgParser) bool(n *yaml.Node, path string) (bool, bool) {
	if n.Kind != yaml.ScalarNode || (n.Value != "true" && n.Value != "false") {
		p.bad(n, path, "expected true or false, found %q", n.Value)
		return false, false
	}
	return n.Value == "true", true
}

// valueCaps reads executions.value.
func (p *cfgParser) valueCaps(n *yaml.Node, path string, v *ValueCaps) {
	known := []string{"maxPerExecution", "maxPerSession", "maxPerOwnerPerDay"}
	p.mapping(n, path, known, func(k, n *yaml.Node, path string) {
		amount := p.amount(n, path)
		switch k.Value {
		case "maxPerExecution":
			v.MaxPerExecution = amount
		case "maxPerSession":
			v.MaxPerSession = amount
		case "maxPerOwnerPerDay":
			v.MaxPerOwnerPerDay = amount
		}
	})
}

// mapping walks a mapping of known settings, reporting unknown and
// repeated ones, and calls set for each known one.
func (p *cfgParser) mapping(n *yaml.Node, path string, known []string, set func(k, v *yaml.Node, path string)) {
	if n.Kind != yaml.MappingNode {
		p.bad(n, path, "expected a mapping of %s, found %q", strings.Join(known, ", "), n.Value)
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		kp := path + "." + k.Value
		switch {
		case seen[k.Value]:
			p.bad(k, kp, "given twice")
		case !slices.Contains(known, k.Value):
			p.bad(k, kp, "unknown setting %q (known here: %s)", k.Value, strings.Join(known, ", "))
		default:
			seen[k.Value] = true
			set(k, v, kp)
		}
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
	ceiling := new(big.Int).Mul(big.NewInt(maxFeePerGasCeilingGwei), big.NewInt(weiPerGwei))
	wei, ok := parseWei(n)
	if !ok || wei.Sign() <= 0 || wei.Cmp(ceiling) > 0 {
		p.bad(n, path, "expected a fee per gas in wei (a whole number) or as \"<n> gwei\", from 1 wei to %d gwei, found %q", maxFeePerGasCeilingGwei, n.Value)
		return nil
	}
	return wei
}

// amount reads an amount of ether: a whole number of wei, or "<n> gwei"
// or "<n> ether" (up to 9 and 18 decimals), from 0 to 10^9 ether.
func (p *cfgParser) amount(n *yaml.Node, path string) *big.Int {
	ceiling := new(big.Int).Mul(big.NewInt(maxAmountCeilingEther), new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil))
	wei, ok := parseWei(n)
	if !ok || wei.Cmp(ceiling) > 0 {
		p.bad(n, path, "expected an amount in wei (a whole number) or as \"<n> gwei\" or \"<n> ether\", from 0 to %d ether, found %q", maxAmountCeilingEther, n.Value)
		return nil
	}
	return wei
}

// parseWei reads "<n>", "<n> wei", "<n> gwei" or "<n> ether" as wei; the
// decimals may not go below 1 wei.
func parseWei(n *yaml.Node) (*big.Int, bool) {
	s := strings.TrimSpace(n.Value)
	if n.Kind != yaml.ScalarNode || len(s) > maxFeeDigits+8 {
		return nil, false
	}
	decimals := 0
	for _, u := range []struct {
		suffix   string
		decimals int
	}{{"gwei", 9}, {"ether", 18}, {"wei", 0}} {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			s, decimals = strings.TrimSpace(num), u.decimals
			break
		}
	}
	whole, frac, _ := strings.Cut(strings.ReplaceAll(s, "_", ""), ".")
	if len(frac) > decimals || !digits(whole) || (frac != "" && !digits(frac)) {
		return nil, false
	}
	wei, ok := new(big.Int).SetString(whole+frac+strings.Repeat("0", decimals-len(frac)), 10)
	return wei, ok
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
