// Command xgr is the XRC-729 orchestration sidecar: it validates, hashes and
// draws orchestrations today, and grows into the indexer and reactor.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"
)

func main() {
	// SIGINT and SIGTERM cancel the commands' context: long-running ones
	// drain and clean up (a private redis-server, leases) before exiting.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	ignoreHangup()
	err := runApp(ctx, newApp(os.Stdout, os.Stderr), os.Args)
	stop()
	if err == nil {
		return
	}
	code := exitFailed
	if ec, ok := err.(cli.ExitCoder); ok {
		code = ec.ExitCode()
	}
	if msg := err.Error(); msg != "" {
		fmt.Fprintln(os.Stderr, "xgr:", msg)
	}
	os.Exit(code)
}

func newApp(stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:      "xgr",
		Usage:     "run XRC-729 orchestrations next to an EVM node",
		Writer:    stdout,
		ErrWriter: stderr,
		Description: `Exit status, for every command: 0 ok, 1 the thing checked is bad or the
operation failed, 2 usage (a flag, argument or input file is wrong; nothing
was done). Every command that prints a result takes --json. Flags may follow
the command and its arguments; most have an XGR_* environment variable
(shown in each command's --help). See docs/cli.md.`,
		// Errors are printed once, by main.
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError:   onUsageError,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "log-level", Value: "info", EnvVars: []string{"XGR_LOG_LEVEL"}, Usage: "debug, info, warn or error"},
			&cli.StringFlag{Name: "log-format", Value: "text", EnvVars: []string{"XGR_LOG_FORMAT"}, Usage: "text or json (structured logs on stderr)"},
		},
		Before: func(c *cli.Context) error {
			return setupLogging(c.String("log-level"), c.String("log-format"), stderr)
		},
		Commands: []*cli.Command{
			ostcCommand(),
			registryCommand(),
			ruleCommand(),
			keysCommand(),
			simulateCommand(),
			sessionCommand(),
			ownerCommand(),
			meterCommand(),
			runCommand(),
			indexCommand(),
			devCommand(),
			scenarioCommand(),
			rpcCommand(),
			grantsCommand(),
			executionsCommand(),
			benchCommand(),
			versionCommand(),
		},
	}
	prepareCommands(app.Commands)
	return app
}

// prepareCommands gives every command the conventions: a flag mistake is
// a usage error (exit 2) naming the command, and every flag value is
// checked (checkFlags) before the command does anything.
func prepareCommands(cmds []*cli.Command) {
	for _, c := range cmds {
		c.OnUsageError = onUsageError
		// Required flags are checked by checkFlags, with the command's name
		// and without urfave/cli's help dump.
		var required []*cli.StringFlag
		for _, f := range c.Flags {
			if sf, ok := f.(*cli.StringFlag); ok && sf.Required {
				sf.Required = false
				required = append(required, sf)
			}
		}
		if action := c.Action; action != nil {
			c.Action = func(ctx *cli.Context) error {
				if err := checkFlags(ctx, required); err != nil {
					return err
				}
				return action(ctx)
			}
		}
		prepareCommands(c.Subcommands)
	}
}

// onUsageError turns urfave/cli's flag parsing errors into exit 2.
func onUsageError(c *cli.Context, err error, _ bool) error {
	if c.Command == nil || c.Command.Name == "" || cmdName(c) == c.App.Name {
		return usageError("%v%s (see %s --help)", err, flagSuggestion(err, c.App.Flags), c.App.Name)
	}
	name := cmdName(c)
	return usageError("%s: %v%s (see %s %s --help)", name, err, flagSuggestion(err, c.Command.Flags), c.App.Name, name)
}
