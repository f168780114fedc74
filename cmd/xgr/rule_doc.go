package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/internal/jsondoc"
	"github.com/xgr-sidecar/xgr/rule"
)

// ruleDocCommands are the XRC-137 rule document commands: validate and eval.
// They are meant as subcommands of "xgr rule".
func ruleDocCommands() []*cli.Command {
	return []*cli.Command{
		{
			Name:      "validate",
			Usage:     "check XRC-137 rule documents against the rule spec and the XRC-137 limits",
			ArgsUsage: "FILE...",
			Description: `Reports every problem of every file with its line:column and JSON path,
then a summary line per file. Every expression is compiled, so CEL errors and
the evaluator caps are reported here too. Warnings (unknown fields, untyped
extracts, missing "rules") do not fail validation unless --strict is given.

Exit status: 0 when every file is valid, 1 when any is not, 2 on usage errors.

Examples:
   xgr rule validate step.json
   xgr rule validate --json rules/*.json | jq '.[] | select(.ok | not)'`,
			Flags: []cli.Flag{
				&cli.BoolFlag{Name: "json", Usage: "print machine-readable JSON"},
				&cli.BoolFlag{Name: "strict", Usage: "treat warnings as errors"},
			},
			Action: func(c *cli.Context) error {
				files := c.Args().Slice()
				if len(files) == 0 {
					return cli.Exit("rule validate: name at least one FILE", 2)
				}
				return validateFiles(c.App.Writer, files, c.Bool("json"), c.Bool("strict"), validateRule)
			},
		},
		{
			Name:      "eval",
			Usage:     "evaluate one step of a rule document over an input payload",
			ArgsUsage: "FILE",
			Description: `Runs the step as the executor will: inputs (casts, defaults), contract
reads, API calls, rules, branch selection, outcome payload, waitSec. Prints the
selected branch, the output payload, extracted values, why the step is
invalid (soft-invalid reasons, false rules), timings, and what the branch asks
for that is not performed yet (execution, grants, wakeUps, encryptLogs).

API calls go out over HTTP. Hosts that resolve to loopback, private,
link-local or other non-public addresses are refused unless allowed on one
port with --allow-host HOST:PORT; --allow-host HOST=IP:PORT sends HOST's
connections to that address instead (TLS still verifies HOST). A bare
HOST is refused: it would open every port of the host. Contract reads are eth_calls to
the node given with --rpc URL (no default); a read whose "rpc" selector is
NAME goes to --rpc-backend NAME=URL, and selectors not configured fail.
Without a node every read fails and its saveAs defaults apply.

Exit status: 0 when the step was evaluated (valid or invalid), 1 when the
step would abort (a hard error, or an abortStep or cancelSession rule that
holds), 2 on usage errors or an invalid document.

Examples:
   xgr rule eval step.json --payload in.json
   xgr rule eval feed.json --allow-host prices.internal:8080 --json | jq .output
   xgr rule eval balance.json --payload in.json --rpc http://127.0.0.1:8545`,
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "payload", Aliases: []string{"p"}, Usage: "input payload: a JSON object file, - for stdin (default {})"},
				allowHostFlag(), evalRPCFlag(), rpcBackendFlag(),
				&cli.DurationFlag{Name: "timeout", Value: time.Minute, Usage: "bound on the whole evaluation"},
				&cli.BoolFlag{Name: "json", Usage: "print machine-readable JSON"},
			},
			Action: evalRuleAction,
		},
	}
}

// validateRule validates one rule document for validateFiles.
var validateRule = checkWith(func(raw []byte) (string, map[string]any, []jsondoc.Problem, error) {
	d, err := rule.Parse(raw)
	if err != nil {
		return "", nil, nil, err
	}
	fields := map[string]any{"hash": d.Hash.Hex(), "inputs": len(d.Payload), "apiCalls": len(d.APICalls),
		"contractReads": len(d.ContractReads), "rules": len(d.Rules)}
	return fmt.Sprintf("%d inputs, %d apiCalls, %d contractReads, %d rules, hash %s",
		len(d.Payload), len(d.APICalls), len(d.ContractReads), len(d.Rules), d.Hash.Hex()), fields, d.Warnings, nil
})

func evalRuleAction(c *cli.Context) error {
	args := c.Args().Slice()
	if len(args) != 1 {
		return cli.Exit("rule eval: name exactly one FILE", 2)
	}
	file := args[0]
	raw, err := os.ReadFile(file)
	if err != nil {
		return cli.Exit(err.Error(), 2)
	}
	doc, err := rule.Parse(raw)
	if err != nil {
		var ve *rule.ValidationError
		if errors.As(err, &ve) {
			return cli.Exit(invalidRule(file+" is not a valid rule document:", file, ve), 2)
		}
		return cli.Exit(fmt.Sprintf("%s: %v", file, err), 2)
	}
	payload, err := readPayload(c.String("payload"), c.App.Reader)
	if err != nil {
		return cli.Exit("rule eval: --payload: "+err.Error(), 2)
	}
	ctx, cancel := context.WithTimeout(c.Context, c.Duration("timeout"))
	defer cancel()
	wiring, err := wireRules(ctx, c)
	if err != nil {
		return err
	}
	defer wiring.Close()
	src := rule.Sources{API: wiring.API, Reads: wiring.Reads, Clock: time.Now}
	res, evalErr := rule.Evaluate(ctx, doc, payload, src)
	if c.Bool("json") {
		out := struct {
			File   string       `json:"file"`
			Result *rule.Result `json:"result"`
			Error  string       `json:"error,omitempty"`
		}{File: file, Result: res}
		if evalErr != nil {
			out.Error = evalErr.Error()
		}
		enc := json.NewEncoder(c.App.Writer)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return err
		}
	} else {
		writeEvalText(c.App.Writer, file, res, evalErr)
	}
	if evalErr != nil || res != nil && res.Action != nil {
		// A holding abortStep or cancelSession rule ends the step as
		// aborted (rule spec §7.3), as a hard error does.
		return cli.Exit("", 1)
	}
	return nil
}

// readPayload reads a JSON object; numbers keep their text (json.Number).
func readPayload(name string, stdin io.Reader) (map[string]any, error) {
	if name == "" {
		return map[string]any{}, nil
	}
	var raw []byte
	var err error
	if name == "-" {
		raw, err = io.ReadAll(stdin)
	} else {
		raw, err = os.ReadFile(name)
	}
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var p map[string]any
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%s: expected a JSON object: %v", name, err)
	}
	if p == nil {
		p = map[string]any{}
	}
	return p, nil
}

func writeEvalText(w io.Writer, file string, r *rule.Result, evalErr error) {
	switch {
	case evalErr != nil:
		fmt.Fprintf(w, "%s: ABORTED (hard error): %v\n", file, evalErr)
	case r.Action != nil:
		fmt.Fprintf(w, "%s: %s (rules[%d] holds): no branch, no output\n", file, r.Action.Type, r.Action.Rule)
	default:
		state := "valid"
		if !r.Valid {
			state = "invalid"
		}
		if r.MetaOnly {
			state += ", meta-only"
		}
		fmt.Fprintf(w, "%s: %s (%s)\n", file, r.Branch, state)
		out, _ := json.MarshalIndent(r.Output, "  ", "  ")
		fmt.Fprintf(w, "output:\n  %s\n", out)
		fmt.Fprintf(w, "waitSec: %d\n", r.WaitSec)
	}
	if r == nil {
		return
	}
	if len(r.Extracted) > 0 {
		fmt.Fprintln(w, "extracted:")
		keys := make([]string, 0, len(r.Extracted))
		for k := range r.Extracted {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			v, _ := json.Marshal(r.Extracted[k])
			fmt.Fprintf(w, "  %s = %s\n", k, v)
		}
	}
	if len(r.Calls) > 0 {
		fmt.Fprintln(w, "api calls:")
		for _, c := range r.Calls {
			line := fmt.Sprintf("  %s %s %s", c.Name, c.Method, c.URL)
			if c.Status != 0 {
				line += fmt.Sprintf(" -> %d", c.Status)
			}
			if c.Error != "" {
				line += " FAILED: " + c.Error
			}
			line += fmt.Sprintf(" (%s)", c.Duration)
			if len(c.Defaulted) > 0 {
				line += " defaulted: " + strings.Join(c.Defaulted, ", ")
			}
			if len(c.SoftInvalid) > 0 {
				line += " soft-invalid: " + strings.Join(c.SoftInvalid, ", ")
			}
			fmt.Fprintln(w, line)
		}
	}
	if len(r.Reads) > 0 {
		fmt.Fprintln(w, "contract reads:")
		for _, rd := range r.Reads {
			line := fmt.Sprintf("  [%d] %s %s", rd.Index, rd.To, rd.Function)
			if rd.Error != "" {
				line += " FAILED: " + rd.Error
			}
			if len(rd.Defaulted) > 0 {
				line += " defaulted: " + strings.Join(rd.Defaulted, ", ")
			}
			if len(rd.SoftInvalid) > 0 {
				line += " soft-invalid: " + strings.Join(rd.SoftInvalid, ", ")
			}
			fmt.Fprintln(w, line)
		}
	}
	if len(r.Rules) > 0 {
		fmt.Fprintln(w, "rules:")
		for _, rr := range r.Rules {
			switch {
			case rr.Skipped:
				fmt.Fprintf(w, "  [%d] %s skipped\n", rr.Index, rr.Type)
			case len(rr.Missing) > 0:
				fmt.Fprintf(w, "  [%d] %s %v (missing %s)\n", rr.Index, rr.Type, rr.Result, strings.Join(rr.Missing, ", "))
			default:
				fmt.Fprintf(w, "  [%d] %s %v\n", rr.Index, rr.Type, rr.Result)
			}
		}
	}
	if len(r.Reasons) > 0 {
		fmt.Fprintln(w, "reasons:")
		for _, x := range r.Reasons {
			fmt.Fprintf(w, "  %s: %s\n", x.Code, x)
		}
	}
	for i, wu := range r.WakeUps {
		p, _ := json.Marshal(wu.Payload)
		fmt.Fprintf(w, "wake-up %d: runner %s session %d step %s payload %s\n", i, wu.Runner, wu.SessionID, wu.StepID, p)
	}
	if x := r.Execution; x != nil {
		fn := x.Function
		if fn == "" {
			fn = "(value transfer)"
		}
		fmt.Fprintf(w, "execution: %s on %s, data %s, value %s wei, gas limit %s (sent by xgr run with --executions; rule eval sends nothing)\n",
			fn, x.To.Hex(), x.Data, orZero(x.Value), gasText(x.GasLimit))
	}
	if np := r.NotPerformed.Sections(); len(np) > 0 {
		fmt.Fprintf(w, "not performed: %s\n", strings.Join(np, ", "))
	}
	t := r.Timings
	fmt.Fprintf(w, "timings: total %s (inputs %s, contractReads %s, apiCalls %s, rules %s, outcome %s)\n",
		t.Total, t.Inputs, t.ContractReads, t.APICalls, t.Rules, t.Outcome)
}

func orZero(v *big.Int) string {
	if v == nil {
		return "0"
	}
	return v.String()
}

func gasText(g uint64) string {
	if g == 0 {
		return "the operator's cap"
	}
	return strconv.FormatUint(g, 10)
}
