package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/rpc"
	"github.com/xgr-sidecar/xgr/rule"
)

// ruleGasCommand is "xgr rule gas": the validation gas quote of a rule
// document, as xgr_estimateRuleGas answers it, with its breakdown.
func ruleGasCommand() *cli.Command {
	return &cli.Command{
		Name:      "gas",
		Usage:     "quote a rule's validation gas (heuristic v0.2) and branch totals, component by component",
		ArgsUsage: "FILE|ADDRESS",
		Description: `Prices one step of the rule as the validation gas heuristic v0.2 does (see
docs/authoring.md): base, inputs, contract reads, API calls and extracts, rules,
outcome keys, execution preparation, encryptLogs and waitSec × spawns, clamped
to 15,000..300,000, for each branch. The answer is xgr_estimateRuleGas's;
--json prints it with the full breakdown.

ADDRESS (0x and 40 hex digits, when no such file exists) reads the rule text
of an XRC-137 contract from --rpc. Encrypted rules are not quoted.

Exit status: 0 quoted, 1 the node failed, 2 usage errors or an invalid document.

Examples:
   xgr rule gas rules/step.json
   xgr rule gas --valid-spawns 2 --json rules/step.json | jq .estimate.totalWorstCase
   xgr rule gas --rpc http://127.0.0.1:8545 0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512`,
		Flags: readFlags(
			&cli.IntFlag{Name: "valid-spawns", Usage: fmt.Sprintf("children the step spawns on onValid (0..%d): the wait gas multiplier", registry.MaxSpawnsPerBranch)},
			&cli.IntFlag{Name: "invalid-spawns", Usage: fmt.Sprintf("children the step spawns on onInvalid (0..%d)", registry.MaxSpawnsPerBranch)},
			&cli.BoolFlag{Name: "encrypted", Usage: "price branches that do not set encryptLogs as encrypted"},
			jsonFlag(),
		),
		Action: ruleGasAction,
	}
}

func ruleGasAction(c *cli.Context) error {
	if err := argsExactly(c, 1, "FILE|ADDRESS"); err != nil {
		return err
	}
	arg := c.Args().First()
	text, err := ruleGasText(c, arg)
	if err != nil {
		return err
	}
	req := rpc.RuleGasRequest{JSON: text}
	if c.IsSet("encrypted") {
		v := c.Bool("encrypted")
		req.Encrypted = &v
	}
	if c.IsSet("valid-spawns") {
		v := c.Int("valid-spawns")
		req.ValidSpawns = &v
	}
	if c.IsSet("invalid-spawns") {
		v := c.Int("invalid-spawns")
		req.InvalidSpawns = &v
	}
	opt, doc, err := rpc.ParseRuleGasRequest(req)
	if err != nil {
		var ve *rule.ValidationError
		if _, perr := rule.Parse([]byte(text)); errors.As(perr, &ve) {
			return cli.Exit(ve.Report(arg+" is not a valid rule document:", arg), 2)
		}
		return cli.Exit("rule gas: "+err.Error(), 2)
	}
	est, g := rpc.QuoteRuleGas(doc, opt, time.Now())
	if c.Bool("json") {
		enc := json.NewEncoder(c.App.Writer)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Rule      string               `json:"rule"`
			Estimate  *rpc.RuleGasEstimate `json:"estimate"`
			Breakdown rule.GasBreakdown    `json:"breakdown"`
		}{arg, est, g})
	}
	writeRuleGas(c.App.Writer, arg, est, &g)
	return nil
}

// ruleGasText reads FILE, or the rule text of the contract at ADDRESS.
func ruleGasText(c *cli.Context, arg string) (string, error) {
	raw, err := os.ReadFile(arg)
	if err == nil {
		return string(raw), nil
	}
	if !errors.Is(err, os.ErrNotExist) || !common.IsHexAddress(arg) {
		return "", cli.Exit("rule gas: "+err.Error(), 2)
	}
	n, err := dial(c)
	if err != nil {
		return "", err
	}
	defer n.Close()
	st, err := chain.NewRule(common.HexToAddress(arg), n.client).Stored(n.ctx)
	if err != nil {
		return "", chainFailure(err)
	}
	if st.Encrypted {
		return "", cli.Exit("rule gas: "+arg+" holds an encrypted rule (XGR1); quote the plaintext document file instead", 2)
	}
	return st.Text, nil
}

func writeRuleGas(w io.Writer, name string, est *rpc.RuleGasEstimate, g *rule.GasBreakdown) {
	line := func(gas uint64, what string) { fmt.Fprintf(w, "%9d  %s\n", gas, what) }
	fmt.Fprintf(w, "%s: validation gas %d (heuristic %s; worst case of the two branches)\n", name, est.ValidationGas, g.Version)
	line(g.Base, "base")
	line(g.Inputs.Gas, fmt.Sprintf("inputs: %d required, %d optional", g.Inputs.Required, g.Inputs.Optional))
	for _, r := range g.ContractReads {
		line(r.Gas, fmt.Sprintf("%s: %d args (%s), %d saveAs, %d defaults", r.Path, r.Args, tokens(r.ArgTokens), r.Saves, r.Defaults))
	}
	for _, a := range g.APICalls {
		line(a.Gas, fmt.Sprintf("%s: %d URL/body placeholders, %d extracts", a.Path, a.Placeholders, len(a.Extracts)))
		for _, x := range a.Extracts {
			line(x.Gas, "  "+x.Path+": "+tokens(x.GasTokens))
		}
	}
	for _, r := range g.Rules {
		line(r.Gas, r.Path+": "+tokens(r.GasTokens))
	}
	line(g.Common, "common to both branches")
	for _, b := range []struct {
		name string
		g    *rule.BranchGas
		c    rpc.BranchGasCost
	}{{"onValid", &g.OnValid, est.OnValid}, {"onInvalid", &g.OnInvalid, est.OnInvalid}} {
		for _, o := range b.g.Outcome {
			kind := "template"
			if o.Expression {
				kind = "expression"
			}
			line(o.Gas, fmt.Sprintf("%s (%s): %s", o.Path, kind, tokens(o.GasTokens)))
		}
		if x := b.g.Execution; x != nil {
			line(x.Gas, fmt.Sprintf("%s.execution: %d args (%s), value %v", b.name, x.Args, tokens(x.ArgTokens), x.Value))
		}
		if b.g.Wait.Gas > 0 || b.g.Wait.WaitSec > 0 {
			line(b.g.Wait.Gas, fmt.Sprintf("%s.waitSec %d: %d started hours × %d spawns", b.name, b.g.Wait.WaitSec, b.g.Wait.Hours, b.g.Wait.Spawns))
		}
		if b.g.EncryptLogs {
			line(b.g.EncryptLogsGas, b.name+".encryptLogs")
		}
		clamp := ""
		if b.g.Total != b.g.Unclamped {
			clamp = fmt.Sprintf(", clamped from %d", b.g.Unclamped)
		}
		line(b.g.Total, fmt.Sprintf("%s validation gas%s; total with execution gas limit %d: %d", b.name, clamp, b.c.InnerCalls["execution"], b.c.Total))
	}
	fmt.Fprintf(w, "totalValid %d, totalInvalid %d, totalWorstCase %d\n", est.TotalValid, est.TotalInvalid, est.TotalWorstCase)
}

func tokens(t rule.GasTokens) string {
	s := fmt.Sprintf("%d ops, %d funcs, %d placeholders", t.Ops, t.Funcs, t.Placeholders)
	if t.Regex {
		s += ", regex"
	}
	return s
}
