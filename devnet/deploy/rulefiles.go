package deploy

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/rule"
	"github.com/xgr-sidecar/xgr/rulesource"
)

// RuleFiles is which XRC-137 rule file every step of a set of
// orchestrations runs, found and validated before anything is deployed,
// and the contracts Deploy made of them.
type RuleFiles struct {
	// Dir is the rule directory.
	Dir string
	// Files are the distinct rule files, in order of first use; each
	// becomes one contract.
	Files []string
	// steps maps an orchestration id and a step id to its rule file.
	steps map[string]map[string]string
	// addrs maps a rule file to its deployed contract (lower-case hex),
	// once deployed.
	addrs map[string]string
}

// RuleFileError is why a step has no usable rule file. Exactly one of
// Uncovered, Invalid, Address and Err says what.
type RuleFileError struct {
	// Ostc is the orchestration; Step and Rule the step and its reference
	// (empty with Uncovered).
	Ostc, Step, Rule string
	// Uncovered lists the steps no file covers, as `ID (rule "REF")`.
	Uncovered []string
	// Invalid is the rule document's problems, Origin its file.
	Invalid *rule.ValidationError
	Origin  string
	// Address is the contract the rule maps to instead of a file.
	Address common.Address
	// Err is any other failure to load the rule.
	Err error
}

func (e *RuleFileError) Error() string {
	switch {
	case e.Uncovered != nil:
		return fmt.Sprintf("%s: no rule file for step(s) %v", e.Ostc, e.Uncovered)
	case e.Invalid != nil:
		return fmt.Sprintf("%s: step %s: rule %q (%s) is not a valid rule document: %v", e.Ostc, e.Step, e.Rule, e.Origin, e.Invalid)
	case e.Err != nil:
		return fmt.Sprintf("%s: step %s: %v", e.Ostc, e.Step, e.Err)
	}
	return fmt.Sprintf("%s: step %s: rule %q maps to contract %s, not to a file", e.Ostc, e.Step, e.Rule, e.Address.Hex())
}

func (e *RuleFileError) Unwrap() error { return e.Err }

// PlanRuleFiles resolves the rule of every step of orchs in the rule
// directory (rulesource.Dir: rules.json, then ALIAS.json for
// "${addr:ALIAS}") and parses it. A directory that cannot be opened is
// the rulesource error; a step whose rule fails to load, maps to a
// contract address instead of a file or is not a valid rule document, and
// an orchestration with steps no file covers, are a *RuleFileError.
func PlanRuleFiles(ctx context.Context, dir string, orchs []*registry.Orchestration) (*RuleFiles, error) {
	d, err := rulesource.OpenDir(dir)
	if err != nil {
		return nil, err
	}
	p := &RuleFiles{Dir: dir, steps: map[string]map[string]string{}, addrs: map[string]string{}}
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
				return nil, &RuleFileError{Ostc: o.ID, Step: s.ID, Rule: s.Rule, Invalid: ve, Origin: le.Origin}
			case err != nil:
				return nil, &RuleFileError{Ostc: o.ID, Step: s.ID, Rule: s.Rule, Err: err}
			case l.File == "":
				return nil, &RuleFileError{Ostc: o.ID, Step: s.ID, Rule: s.Rule, Address: l.Address}
			}
			p.steps[o.ID][s.ID] = l.File
			if !seen[l.File] {
				seen[l.File] = true
				p.Files = append(p.Files, l.File)
			}
		}
		if len(uncovered) > 0 {
			return nil, &RuleFileError{Ostc: o.ID, Uncovered: uncovered}
		}
	}
	return p, nil
}

// Deploy deploys every rule file as its own XRC-137 contract.
func (p *RuleFiles) Deploy(ctx context.Context, s *chain.Sender) error {
	for _, f := range p.Files {
		text, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("rule %s: %w", f, err)
		}
		addr, err := Rule(ctx, s, text)
		if err != nil {
			return fmt.Errorf("deploy rule %s: %w", f, err)
		}
		p.addrs[f] = addr
	}
	return nil
}

// Rewrite is the orchestration's text with every step's "rule" set to its
// deployed contract (registry.Rewrite keeps everything else).
func (p *RuleFiles) Rewrite(o *registry.Orchestration) ([]byte, error) {
	byStep := map[string]string{}
	for step, f := range p.steps[o.ID] {
		byStep[step] = p.addrs[f]
	}
	text, err := registry.Rewrite(o.Raw(), byStep, "")
	if err != nil {
		return nil, fmt.Errorf("rewrite %s to the deployed rules: %w", o.ID, err)
	}
	return text, nil
}

// Contract is the deployed contract of a step's rule ("" when unknown).
func (p *RuleFiles) Contract(ostcID, step string) string {
	return p.addrs[p.steps[ostcID][step]]
}

// UseContract makes a step of an orchestration run the rule contract addr
// instead of its rule file (xgr dev's settlement rule); call it before
// Rewrite. A step the plan does not hold is an error.
func (p *RuleFiles) UseContract(ostcID, step, addr string) error {
	if _, ok := p.steps[ostcID][step]; !ok {
		return fmt.Errorf("orchestration %q has no step %q with a rule file", ostcID, step)
	}
	key := "contract " + strings.ToLower(addr)
	p.steps[ostcID][step] = key
	p.addrs[key] = strings.ToLower(addr)
	return nil
}
