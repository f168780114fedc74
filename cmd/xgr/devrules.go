package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/internal/chain"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/rule"
	"github.com/xgr-sidecar/xgr/rulesource"
	"github.com/xgr-sidecar/xgr/scenario"
)

// devRules is which XRC-137 rule file every step of every orchestration
// xgr dev registers runs, found and validated before anything starts.
type devRules struct {
	dir string
	// files are the distinct rule files, in order of first use; each
	// becomes one contract.
	files []string
	// steps maps an orchestration id and a step id to its rule file.
	steps map[string]map[string]string
	// addrs maps a rule file to its deployed contract (lower-case hex),
	// once deployed.
	addrs map[string]string
}

// planDevRules resolves the rule of every step in the rule directory
// (rulesource.Dir: rules.json, then ALIAS.json for "${addr:ALIAS}") and
// parses it. A step without a rule file, a rule that maps to a contract
// address instead of a file, or an invalid rule document is a usage error
// (exit 2) naming the orchestration, the step and the rule.
func planDevRules(ctx context.Context, dir string, orchs []*registry.Orchestration) (*devRules, error) {
	d, err := rulesource.OpenDir(dir)
	if err != nil {
		return nil, cli.Exit(fmt.Sprintf("dev: --rules-dir: %v; give the directory of the orchestrations' XRC-137 rule files, or run scripted outcomes with --outcomes FILE", err), 2)
	}
	p := &devRules{dir: dir, steps: map[string]map[string]string{}, addrs: map[string]string{}}
	seen := map[string]bool{}
	for _, o := range orchs {
		p.steps[o.ID] = map[string]string{}
		var uncovered []string
		for _, s := range o.Steps {
			l, err := d.Load(ctx, s.Rule)
			var ve *rule.ValidationError
			var le *rulesource.Error
			switch {
			case errors.Is(err, rulesource.ErrNotCovered):
				uncovered = append(uncovered, fmt.Sprintf("%s (rule %q)", s.ID, s.Rule))
				continue
			case errors.As(err, &ve) && errors.As(err, &le):
				return nil, cli.Exit(invalidRule(fmt.Sprintf("dev: %s: step %s: rule %q (%s) is not a valid rule document:", o.ID, s.ID, s.Rule, le.Origin), le.Origin, ve), 2)
			case err != nil:
				return nil, cli.Exit(fmt.Sprintf("dev: %s: step %s: %v", o.ID, s.ID, err), 2)
			case l.File == "":
				return nil, cli.Exit(fmt.Sprintf("dev: %s: step %s: rule %q maps to contract %s in %s; xgr dev deploys rule files only: map it to a file", o.ID, s.ID, s.Rule, l.Address.Hex(), dir), 2)
			}
			p.steps[o.ID][s.ID] = l.File
			if !seen[l.File] {
				seen[l.File] = true
				p.files = append(p.files, l.File)
			}
		}
		if len(uncovered) > 0 {
			return nil, cli.Exit(fmt.Sprintf("dev: %s: no rule file in --rules-dir %s for step(s) %s: add ALIAS.json for a rule \"${addr:ALIAS}\" or an entry in %s, or run scripted outcomes with --outcomes FILE",
				o.ID, dir, strings.Join(uncovered, ", "), rulesource.IndexFile), 2)
		}
	}
	return p, nil
}

// deploy deploys every rule file as its own XRC-137 contract.
func (p *devRules) deploy(ctx context.Context, s *chain.Sender) error {
	for _, f := range p.files {
		text, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("dev: rule %s: %w", f, err)
		}
		c, _, err := chain.DeployRule(ctx, s, text)
		if err != nil {
			return fmt.Errorf("dev: deploy rule %s: %w", f, err)
		}
		p.addrs[f] = strings.ToLower(c.Address.Hex())
	}
	return nil
}

// rewrite is the orchestration's text with every step's "rule" set to its
// deployed contract (scenario.RewriteOSTC keeps everything else).
func (p *devRules) rewrite(o *registry.Orchestration) ([]byte, error) {
	byStep := map[string]string{}
	for step, f := range p.steps[o.ID] {
		byStep[step] = p.addrs[f]
	}
	text, err := scenario.RewriteOSTC(o.Raw(), byStep, "")
	if err != nil {
		return nil, fmt.Errorf("dev: rewrite %s to the deployed rules: %w", o.ID, err)
	}
	return text, nil
}

// contract is the deployed contract of a step's rule ("" when unknown).
func (p *devRules) contract(ostcID, step string) string {
	return p.addrs[p.steps[ostcID][step]]
}
