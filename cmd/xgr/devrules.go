package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/devnet/deploy"
	"github.com/xgr-sidecar/xgr/rulesource"
)

// devRulesError is why --rules-dir cannot run the orchestrations' steps
// (deploy.PlanRuleFiles), as a usage error (exit 2) naming the
// orchestration, the step and the rule, and what to do instead.
func devRulesError(dir string, err error) error {
	var re *deploy.RuleFileError
	if !errors.As(err, &re) {
		return cli.Exit(fmt.Sprintf("dev: --rules-dir: %v; give the directory of the orchestrations' XRC-137 rule files, or run scripted outcomes with --outcomes FILE", err), 2)
	}
	switch {
	case re.Uncovered != nil:
		return cli.Exit(fmt.Sprintf("dev: %s: no rule file in --rules-dir %s for step(s) %s: add ALIAS.json for a rule \"${addr:ALIAS}\" or an entry in %s, or run scripted outcomes with --outcomes FILE",
			re.Ostc, dir, strings.Join(re.Uncovered, ", "), rulesource.IndexFile), 2)
	case re.Invalid != nil:
		return cli.Exit(re.Invalid.Report(fmt.Sprintf("dev: %s: step %s: rule %q (%s) is not a valid rule document:", re.Ostc, re.Step, re.Rule, re.Origin), re.Origin), 2)
	case re.Err != nil:
		return cli.Exit(fmt.Sprintf("dev: %s: step %s: %v", re.Ostc, re.Step, re.Err), 2)
	}
	return cli.Exit(fmt.Sprintf("dev: %s: step %s: rule %q maps to contract %s in %s; xgr dev deploys rule files only: map it to a file", re.Ostc, re.Step, re.Rule, re.Address.Hex(), dir), 2)
}
