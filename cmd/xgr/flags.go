package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/internal/redact"
)

// Exit statuses, the same for every command: 0 ok, 1 the thing checked is
// bad or the operation failed, 2 usage (a flag, argument or input file is
// wrong; nothing was done).
const (
	exitFailed = 1
	exitUsage  = 2
)

// usageError is a usage mistake: exit status 2.
func usageError(format string, args ...any) error {
	return cli.Exit(fmt.Sprintf(format, args...), exitUsage)
}

// runApp runs the CLI. Flags may follow the positional arguments of every
// command ("xgr ostc graph flow.json --format mermaid") and the global
// flags may follow the command ("xgr version --log-level debug"):
// urfave/cli v2 stops reading flags at the first positional argument and
// reads global flags only before the command, so they are moved first.
// "--" still ends the flags. "xgr help CMD [SUB]" is "xgr CMD [SUB]
// --help". Every error comes back as a cli.ExitCoder with the status of
// the convention above.
func runApp(ctx context.Context, app *cli.App, args []string) error {
	args, err := normalizeArgs(app, args)
	if err != nil {
		return err
	}
	return withoutSecrets(exitStatus(app.RunContext(ctx, args)))
}

// withoutSecrets is err with the secrets of the addresses the command was
// given (registerSecrets) removed from its message, its status kept.
func withoutSecrets(err error) error {
	if err == nil {
		return nil
	}
	msg := redact.All(err.Error())
	if msg == err.Error() {
		return err
	}
	code := exitFailed
	var ec cli.ExitCoder
	if errors.As(err, &ec) {
		code = ec.ExitCode()
	}
	return cli.Exit(msg, code)
}

// exitStatus gives an error from urfave/cli its exit status: an ExitCoder
// keeps its own; a missing required flag is a usage error; anything else
// an action returned is a failure.
func exitStatus(err error) error {
	if err == nil {
		return nil
	}
	var ec cli.ExitCoder
	if errors.As(err, &ec) {
		if ec.ExitCode() == 3 { // urfave/cli's "No help topic": an unknown command
			return cli.Exit(ec.Error(), exitUsage)
		}
		return err
	}
	if strings.HasPrefix(err.Error(), "Required flag") {
		return cli.Exit(err.Error(), exitUsage)
	}
	return cli.Exit(err.Error(), exitFailed)
}

// normalizeArgs moves global flags before the command, the command's flags
// before its positional arguments, turns "help CMD" into "CMD --help", and
// refuses an unknown command (exit 2, listing the known ones).
func normalizeArgs(app *cli.App, args []string) ([]string, error) {
	if len(args) < 2 {
		return args, nil
	}
	globals, rest := splitGlobalFlags(app.Flags, args[1:])
	out := append([]string{args[0]}, globals...)
	// "help CMD…" (or "CMD… help SUB…") is "CMD… SUB… --help".
	path, cmds := []string{}, app.Commands
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if isFlag(a) || a == "--" || len(cmds) == 0 {
			break
		}
		if a == "help" || a == "h" {
			names := rest[i+1:]
			if len(names) == 0 {
				break // "xgr help", "xgr session help": the list
			}
			cmd := findCommand(cmds, names[0])
			if cmd == nil {
				return nil, unknownCommand(app, path, cmds, names[0])
			}
			rest = append(append(append([]string{}, rest[:i]...), names...), "--help")
			i-- // look at the named command next
			continue
		}
		cmd := findCommand(cmds, a)
		if cmd == nil {
			return nil, unknownCommand(app, path, cmds, a)
		}
		path = append(path, a)
		cmds = cmd.Subcommands
	}
	return append(out, reorderFlags(app, append([]string{args[0]}, rest...))[1:]...), nil
}

// unknownCommand is the usage error for a name that is not a command of
// the group path names.
func unknownCommand(app *cli.App, path []string, cmds []*cli.Command, name string) error {
	var names []string
	for _, c := range cmds {
		if !c.Hidden && c.Name != "help" {
			names = append(names, c.Name)
		}
	}
	group := strings.TrimSpace(app.Name + " " + strings.Join(path, " "))
	return usageError("unknown command %q for %q%s; commands: %s (see %s --help)", name, group, didYouMean(name, names), strings.Join(names, ", "), group)
}

// splitGlobalFlags takes the app's own flags (and their values) out of
// args, wherever they are before "--".
func splitGlobalFlags(globals []cli.Flag, args []string) (found, rest []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return found, append(rest, args[i:]...)
		}
		if isFlag(a) && hasFlag(globals, flagName(a)) {
			n := flagArgs(globals, args[i:])
			found = append(found, args[i:i+n]...)
			i += n - 1
			continue
		}
		rest = append(rest, a)
	}
	return found, rest
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

// flagName is the name of the flag argument a ("--rpc=x" → "rpc").
func flagName(a string) string {
	name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
	return name
}

func hasFlag(flags []cli.Flag, name string) bool {
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return true
			}
		}
	}
	return false
}

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
