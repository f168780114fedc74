package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/ethereum/go-ethereum/common"
	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/authority"
	"github.com/xgr-sidecar/xgr/registry"
)

// ostcCoverageCommand is `xgr ostc coverage`: the OPS panel's rule executor
// coverage for one runner.
func ostcCoverageCommand() *cli.Command {
	return &cli.Command{
		Name:  "coverage",
		Usage: "check that a runner may run a registry's orchestrations: owner or executor of the registry and of every rule contract they use",
		Description: `Reads every orchestration of the registry (or the one --ostc names), collects
the XRC-137 rule contracts their steps reference by address, and reads owner()
and getExecutorList() of the registry and of each rule contract at one block.
Each contract is reported as the OPS "Rule Executor Coverage" panel does:
"has executor" (the runner is on its executor list), "owner (implicit)" (the
runner is its owner) or "missing". A contract without getExecutorList() is
owner-only. These are the checks a session start makes (XRC-729 §4.2).

Exit status: 0 when the runner is covered everywhere, 1 when a contract is
missing or an orchestration cannot be read.

Example:
   xgr ostc coverage --registry 0x5FbD… --runner 0x7099…
   xgr ostc coverage --registry 0x5FbD… --ostc minimal_join --runner 0x7099… --json`,
		Flags: readFlags(
			&cli.StringFlag{Name: "registry", EnvVars: []string{"XGR_REGISTRY"}, Usage: "address of the XRC-729 registry contract", Required: true},
			&cli.StringFlag{Name: "runner", Usage: "the account that would run the sessions (the SessionPermit signer, a session's owner)", Required: true},
			&cli.StringFlag{Name: "ostc", Usage: "check this orchestration id only (default: every id of the registry)"},
			jsonFlag(),
		),
		Action: ostcCoverageAction,
	}
}

// coverageReport is the --json output of ostc coverage.
type coverageReport struct {
	RegistryAddress common.Address `json:"registryAddress"`
	Orchestrations  []string       `json:"orchestrations"`
	authority.Coverage
	// Problems are orchestrations that could not be checked (their text
	// does not parse).
	Problems []coverageProblem `json:"problems,omitempty"`
	Missing  int               `json:"missing"`
	OK       bool              `json:"ok"`
}

type coverageProblem struct {
	OstcID string `json:"ostcId"`
	Error  string `json:"error"`
}

func ostcCoverageAction(c *cli.Context) error {
	if err := argsExactly(c, 0, ""); err != nil {
		return err
	}
	runner := common.HexToAddress(c.String("runner"))
	n, g, err := openRegistry(c)
	if err != nil {
		return err
	}
	defer n.Close()
	ids := []string{c.String("ostc")}
	if ids[0] == "" {
		if ids, err = g.IDs(n.ctx); err != nil {
			return chainFailure(err)
		}
	}
	rep := coverageReport{RegistryAddress: g.Address, Orchestrations: ids}
	var orchs []*registry.Orchestration
	for _, id := range ids {
		text, err := g.Get(n.ctx, id)
		if err != nil {
			return chainFailure(err)
		}
		o, err := registry.Parse(text)
		if err != nil {
			rep.Problems = append(rep.Problems, coverageProblem{OstcID: id, Error: err.Error()})
			continue
		}
		orchs = append(orchs, o)
	}
	cov, err := authority.NewChecker(authority.NewChainReader(n.client)).Check(n.ctx, runner, authority.PlanFor(&g.Address, orchs...))
	if err != nil {
		return chainFailure(err)
	}
	rep.Coverage = cov
	rep.Missing = len(cov.Missing())
	rep.OK = rep.Missing == 0 && len(rep.Problems) == 0
	if c.Bool(jsonFlag().Name) {
		err = json.NewEncoder(c.App.Writer).Encode(rep)
	} else {
		err = writeCoverage(c, rep)
	}
	if err != nil {
		return err
	}
	switch {
	case rep.Missing > 0:
		return cli.Exit(fmt.Sprintf("ostc coverage: runner %s is missing on %d of %d contracts", runner.Hex(), rep.Missing, len(cov.Rules)+1), 1)
	case len(rep.Problems) > 0:
		return cli.Exit(fmt.Sprintf("ostc coverage: %d orchestration(s) could not be checked", len(rep.Problems)), 1)
	}
	return nil
}

// writeCoverage prints one row per contract, as the OPS panel's table.
func writeCoverage(c *cli.Context, rep coverageReport) error {
	w := tabwriter.NewWriter(c.App.Writer, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "runner %s, registry %s, %d orchestration(s)\n", rep.Runner.Hex(), rep.RegistryAddress.Hex(), len(rep.Orchestrations))
	fmt.Fprintln(w, "KIND\tCONTRACT\tOWNER\tSTATUS\tUSED BY")
	row := func(r authority.Row) {
		owner := "no owner()"
		if r.Owner != nil {
			owner = r.Owner.Hex()
		}
		if !r.ExecutorList {
			owner += " (owner-only)"
		}
		uses := make([]string, len(r.Uses))
		for i, u := range r.Uses {
			uses[i] = u.OstcID + ": " + strings.Join(u.Steps, ", ")
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", r.Kind, r.Contract.Hex(), owner, r.Status.Label(), strings.Join(uses, "; "))
	}
	if rep.Registry != nil {
		row(*rep.Registry)
	}
	for _, r := range rep.Rules {
		row(r)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	for _, u := range rep.Unresolved {
		fmt.Fprintf(c.App.Writer, "not checked: %s step %s: rule %q names no contract address\n", u.OstcID, u.Step, u.Rule)
	}
	for _, p := range rep.Problems {
		fmt.Fprintf(c.App.Writer, "not checked: %s: %s\n", p.OstcID, p.Error)
	}
	counts := map[authority.Status]int{}
	for _, r := range rep.Rules {
		counts[r.Status]++
	}
	_, err := fmt.Fprintf(c.App.Writer, "%d rule contract(s): %d has executor, %d owner (implicit), %d missing; registry: %s\n",
		len(rep.Rules), counts[authority.StatusExecutor], counts[authority.StatusOwner], counts[authority.StatusMissing], rep.Registry.Status.Label())
	return err
}
