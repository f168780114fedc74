package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/urfave/cli/v2"

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
				return validateFiles(c.App.Writer, files, c.Bool("json"), c.Bool("strict"), rule.Summarize)
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
			return cli.Exit(ve.Report(file+" is not a valid rule document:", file), 2)
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
		rule.WriteResult(c.App.Writer, file, res, evalErr)
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
