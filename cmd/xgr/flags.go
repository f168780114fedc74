package main

import (
	"context"
	"strings"

	"github.com/urfave/cli/v2"
)

// runApp runs the CLI. Flags may follow the positional arguments of every
// command ("xgr ostc graph flow.json --format mermaid"): urfave/cli v2 stops
// reading flags at the first positional argument, so they are moved in front
// of them first. "--" still ends the flags.
func runApp(ctx context.Context, app *cli.App, args []string) error {
	return app.RunContext(ctx, reorderFlags(app, args))
}

// reorderFlags returns args with the flags of the command they name placed
// before its positional arguments.
func reorderFlags(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	out := []string{args[0]}
	cmds, flags := app.Commands, app.Flags
	i := 1
	for i < len(args) {
		a := args[i]
		if isFlag(a) {
			n := flagArgs(flags, args[i:])
			out = append(out, args[i:i+n]...)
			i += n
			continue
		}
		cmd := findCommand(cmds, a)
		if cmd == nil {
			break
		}
		out = append(out, a)
		i++
		cmds, flags = cmd.Subcommands, cmd.Flags
		if len(cmds) == 0 {
			break
		}
	}
	var fl, pos []string
	for i < len(args) {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i:]...)
			break
		}
		if isFlag(a) {
			n := flagArgs(flags, args[i:])
			fl = append(fl, args[i:i+n]...)
			i += n
			continue
		}
		pos = append(pos, a)
		i++
	}
	return append(append(out, fl...), pos...)
}

func isFlag(a string) bool { return strings.HasPrefix(a, "-") && a != "-" && a != "--" }

// flagArgs is how many arguments the flag at args[0] uses: two for a flag
// that takes a value given as the next argument, else one.
func flagArgs(flags []cli.Flag, args []string) int {
	name, _, hasValue := strings.Cut(strings.TrimLeft(args[0], "-"), "=")
	if hasValue || len(args) < 2 {
		return 1
	}
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				if _, isBool := f.(*cli.BoolFlag); isBool {
					return 1
				}
				return 2
			}
		}
	}
	return 1
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}
