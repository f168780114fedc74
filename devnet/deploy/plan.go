package deploy

import (
	"context"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/devnet/solc"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/rule"
	"github.com/xgr-sidecar/xgr/scenario"
)

// CodeReader reads a contract's code (an *ethclient.Client), to reuse a
// setup contract deployed before.
type CodeReader interface {
	CodeAt(ctx context.Context, account common.Address, blockNumber *big.Int) ([]byte, error)
}

// Senders gives the sender of an actor alias (an error for an alias
// without a key).
type Senders func(alias string) (*chain.Sender, error)

// Plan deploys a test plan's bundle: its setup contracts (Setup), its
// XRC-137 rules (each with the setup contracts' addresses substituted) and
// a fresh XRC-729 registry holding its orchestration with every step's
// "rule" pointed at the rule deployed here and the registry's own address
// set (so the orchestration's hash is new), all sent by the plan's owner.
// A rule xgr's evaluator refuses is deployed as written, with a note.
func Plan(ctx context.Context, code CodeReader, senders Senders, p *scenario.Plan) (*scenario.Deployment, error) {
	owner, err := senders(p.OwnerAlias)
	if err != nil {
		return nil, fmt.Errorf("deploy %s: owner: %w", p.Key, err)
	}
	d := &scenario.Deployment{Plan: p.Key, OstcID: p.OstcID, OldHash: p.OldHash, Rules: map[string]string{}, Setup: map[string]string{}}
	for _, s := range p.Setup {
		addr, note, err := Setup(ctx, code, owner, senders, s)
		if err != nil {
			return nil, fmt.Errorf("deploy %s: setup contract %q (%s): %w", p.Key, s.Key, s.Path, err)
		}
		d.Setup[s.Key] = addr
		if note != "" {
			d.Notes = append(d.Notes, note)
		}
	}
	for _, r := range p.Rules {
		text, err := scenario.SubstituteAddrs(r.Text, d.Setup)
		if err != nil {
			return nil, fmt.Errorf("deploy %s: rule %s: %w", p.Key, r.Alias, err)
		}
		if _, perr := rule.Parse(text); perr != nil {
			d.Notes = append(d.Notes, fmt.Sprintf("rule %s (%s) is deployed as written, but xgr's evaluator refuses it, so its step will abort: %s", r.Alias, r.Path, firstLine(perr.Error())))
		}
		addr, err := Rule(ctx, owner, text)
		if err != nil {
			return nil, fmt.Errorf("deploy %s: XRC-137 %s: %w", p.Key, r.Alias, err)
		}
		d.Rules[r.Alias] = addr
	}
	stepRule := map[string]string{}
	for step, i := range p.OSTC.StepRule {
		stepRule[step] = d.Rules[p.Rules[i].Alias]
	}
	reg, _, err := chain.DeployRegistry(ctx, owner, chain.RegistryInit{})
	if err != nil {
		return nil, fmt.Errorf("deploy %s: XRC-729 registry: %w", p.Key, err)
	}
	d.Registry = strings.ToLower(reg.Address.Hex())
	text, err := registry.Rewrite(p.OSTC.Raw, stepRule, d.Registry)
	if err != nil {
		return nil, fmt.Errorf("deploy %s: rewrite the orchestration: %w", p.Key, err)
	}
	hash, err := Register(ctx, reg, owner, p.OstcID, text)
	if err != nil {
		return nil, fmt.Errorf("deploy %s: setOSTC %q: %w", p.Key, p.OstcID, err)
	}
	d.Hash = hash.Hex()
	return d, nil
}

// Setup provides a setup contract's address: a fixed one, one deployed
// before (deployIfMissing, when it holds code), or a fresh deployment of
// its Solidity source compiled with the pinned solc-js, its
// constructorArgs packed for the constructor (chain.PackConstructor), sent
// by owner or by the sender of its "by" alias. note, when not empty, is
// for the report.
func Setup(ctx context.Context, code CodeReader, owner *chain.Sender, senders Senders, s *scenario.SetupContract) (addr, note string, err error) {
	if s.Mode == "fixed" {
		return strings.ToLower(s.Address), "", nil
	}
	if s.Address != "" && !s.Always {
		c, err := code.CodeAt(ctx, common.HexToAddress(s.Address), nil)
		if err == nil && len(c) > 0 {
			return strings.ToLower(s.Address), fmt.Sprintf("setup contract %q: reused %s (deployIfMissing; it holds code)", s.Key, s.Address), nil
		}
	}
	sender := owner
	if s.By != "" && s.By != "owner" {
		if sender, err = senders(s.By); err != nil {
			return "", "", err
		}
	}
	compiled, err := solc.Compile(ctx, s.FileName, s.Source, s.ContractName)
	if err != nil {
		return "", "", err
	}
	if !compiled.Pinned() {
		note = fmt.Sprintf("setup contract %q was compiled with solc-js %s, not the pinned %s (make tools)", s.Key, compiled.Version, solc.Pinned)
	}
	args, err := chain.PackConstructor(compiled.ABI, s.ConstructorArgs)
	if err != nil {
		return "", "", err
	}
	r, err := sender.Deploy(ctx, "deploy "+s.ContractName, compiled.Bytecode, args)
	if err != nil {
		return "", "", err
	}
	return strings.ToLower(r.ContractAddress.Hex()), note, nil
}

// firstLine is the first two lines of a multi-line message, joined.
func firstLine(s string) string {
	lines := strings.Split(s, "\n")
	if len(lines) > 1 {
		return strings.TrimSpace(lines[0]) + " " + strings.TrimSpace(lines[1])
	}
	return s
}
