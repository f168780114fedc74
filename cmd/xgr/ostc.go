package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/registry"
)

// jsonFlag is --json; a new flag per use (urfave/cli writes into flags).
func jsonFlag() *cli.BoolFlag {
	return &cli.BoolFlag{Name: "json", Usage: "print machine-readable JSON"}
}

// printReport prints a report as JSON with --json, else as aligned
// "name  value" lines.
func printReport(c *cli.Context, r interface{ Fields() []chain.Field }) error {
	if c.Bool(jsonFlag().Name) {
		return json.NewEncoder(c.App.Writer).Encode(r)
	}
	return chain.WriteFields(c.App.Writer, r.Fields())
}

func ostcCommand() *cli.Command {
	return &cli.Command{
		Name:  "ostc",
		Usage: "validate, hash, draw and explore XRC-729 orchestration documents (OSTC)",
		Subcommands: append([]*cli.Command{
			{
				Name:      "validate",
				Usage:     "check orchestration files against the XRC-729 format and limits",
				ArgsUsage: "FILE...",
				Description: `Reports every problem of every file with its line:column and JSON path,
then a summary line per file. Warnings (unknown fields, placeholders, joins
that can never close, required join fields left out — mode, waitonjoin,
from[].when — for which a default applies) do not fail validation unless
--strict is given.

Exit status: 0 when every file is valid, 1 when any is not, 2 on usage errors.

Examples:
   xgr ostc validate flow.json
   xgr ostc validate --json examples/ostc/*.json | jq '.[] | select(.ok | not)'`,
				Flags: []cli.Flag{jsonFlag(), &cli.BoolFlag{Name: "strict", Usage: "treat warnings as errors"}},
				Action: func(c *cli.Context) error {
					files := c.Args().Slice()
					if len(files) == 0 {
						return cli.Exit("ostc validate: name at least one FILE", 2)
					}
					return validateFiles(c.App.Writer, files, c.Bool("json"), c.Bool("strict"), registry.Summarize)
				},
			},
			{
				Name:      "hash",
				Usage:     "print keccak256 of the file's exact bytes (the on-chain ostcHash)",
				ArgsUsage: "FILE",
				Description: `The hash covers the bytes exactly as stored by setOSTC: no re-formatting,
so a changed space or newline changes the hash. The file is not validated.

Example:
   xgr ostc hash flow.json`,
				Flags: []cli.Flag{jsonFlag()},
				Action: func(c *cli.Context) error {
					file, err := oneFile(c, "ostc hash")
					if err != nil {
						return err
					}
					raw, err := os.ReadFile(file)
					if err != nil {
						return usageError("ostc hash: %v", err)
					}
					h := registry.Hash(raw)
					if c.Bool("json") {
						return json.NewEncoder(c.App.Writer).Encode(map[string]any{"file": file, "bytes": len(raw), "hash": h.Hex()})
					}
					_, err = fmt.Fprintln(c.App.Writer, h.Hex())
					return err
				},
			},
			{
				Name:      "graph",
				Usage:     "draw the orchestration as Graphviz DOT or Mermaid",
				ArgsUsage: "FILE",
				Description: `Valid edges are solid green, invalid edges dashed red; join targets have a
double border and list mode, k and policy; dotted edges run from each expected
producer to its join target, labelled with "when".

Examples:
   xgr ostc graph flow.json | dot -Tsvg > flow.svg
   xgr ostc graph --format mermaid -o flow.mmd flow.json`,
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "dot", Usage: "dot or mermaid"},
					&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to this file instead of stdout"},
				},
				Action: graphAction,
			},
			{
				Name:      "reach",
				Usage:     "tell whether step TO can run after step FROM within one join group, and why",
				ArgsUsage: "FILE FROM TO",
				Description: `Reachability is scope-aware: it follows spawns of branches without a join
and the join target of branches with one, never the spawns of a join-declaring
branch (those start a fresh join group). It is what decides whether a join can
still be satisfied at runtime.

Exit status: 0 when TO is reachable, 1 when it is not, 2 on errors.

Example:
   xgr ostc reach flow.json A1 Z1`,
				Flags:  []cli.Flag{jsonFlag()},
				Action: reachAction,
			},
			ostcLinkCommand(),
		}, ostcChainCommands()...),
	}
}

func oneFile(c *cli.Context, cmd string) (string, error) {
	if pos := c.Args().Slice(); len(pos) == 1 {
		return pos[0], nil
	}
	return "", cli.Exit(cmd+": name exactly one FILE", 2)
}

// loadOSTC reads and parses a file; a rejected document is a usage-level error
// that lists every problem.
func loadOSTC(file string) (*registry.Orchestration, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, cli.Exit(err.Error(), 2)
	}
	o, err := registry.Parse(raw)
	if err != nil {
		var ve *registry.ValidationError
		if errors.As(err, &ve) {
			msg := fmt.Sprintf("%s is not a valid orchestration:", file)
			for _, p := range ve.Problems {
				msg += "\n  " + p.String()
			}
			return nil, cli.Exit(msg, 2)
		}
		return nil, cli.Exit(fmt.Sprintf("%s: %v", file, err), 2)
	}
	return o, nil
}

func graphAction(c *cli.Context) error {
	file, err := oneFile(c, "ostc graph")
	if err != nil {
		return err
	}
	o, err := loadOSTC(file)
	if err != nil {
		return err
	}
	write := o.WriteDOT
	switch c.String("format") {
	case "dot":
	case "mermaid":
		write = o.WriteMermaid
	default:
		return cli.Exit(fmt.Sprintf("ostc graph: --format %q: use dot or mermaid", c.String("format")), 2)
	}
	if out := c.String("output"); out != "" {
		f, err := os.Create(out)
		if err != nil {
			return cli.Exit(err.Error(), 2)
		}
		if err := write(f); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	return write(c.App.Writer)
}

func reachAction(c *cli.Context) error {
	pos := c.Args().Slice()
	if len(pos) != 3 {
		return cli.Exit("ostc reach: usage: xgr ostc reach [--json] FILE FROM TO", 2)
	}
	o, err := loadOSTC(pos[0])
	if err != nil {
		return err
	}
	e, err := o.Explain(pos[1], pos[2])
	if err != nil {
		return cli.Exit("ostc reach: "+err.Error(), 2)
	}
	if c.Bool("json") {
		if err := json.NewEncoder(c.App.Writer).Encode(e); err != nil {
			return err
		}
	} else {
		verdict := "no"
		if e.Reachable {
			verdict = "yes"
		}
		fmt.Fprintf(c.App.Writer, "%s: %s\n", verdict, e.Reason)
	}
	if !e.Reachable {
		return cli.Exit("", 1)
	}
	return nil
}
