// Command xgr is the XRC-729 orchestration sidecar: it validates, hashes and
// draws orchestrations today, and grows into the indexer and reactor.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/internal/redact"
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
	os.Exit(reportExit(err, jsonLogs(os.Args[1:], os.Getenv), os.Stderr))
}

// reportExit prints the error a command ended with on stderr and returns
// the exit status (an ExitCoder's, else 1). With JSON logs the message is
// one JSON log line at ERROR with its exitCode, like the rest of the log;
// else "xgr: message".
func reportExit(err error, json bool, stderr io.Writer) int {
	code := exitFailed
	var ec cli.ExitCoder
	if errors.As(err, &ec) {
		code = ec.ExitCode()
	}
	msg := err.Error()
	switch {
	case msg == "":
	case json:
		l := slog.New(redact.Handler(slog.NewJSONHandler(stderr, &slog.HandlerOptions{ReplaceAttr: uniformDurations})))
		l.Error(msg, "exitCode", code)
	default:
		fmt.Fprintln(stderr, "xgr:", msg)
	}
	return code
}

// jsonLogs reports whether the command line args (without the program
// name) or $XGR_LOG_FORMAT ask for JSON logs; the flag wins, wherever it
// stands (runApp moves global flags first). It is read from the command
// line itself because a start-up error may come before the flags are
// parsed.
func jsonLogs(args []string, getenv func(string) string) bool {
	format := getenv("XGR_LOG_FORMAT")
	for i := 0; i < len(args); i++ {
		a := strings.TrimLeft(args[i], "-")
		if len(a) == len(args[i]) {
			continue // not a flag
		}
		if args[i] == "--" {
			break
		}
		if v, ok := strings.CutPrefix(a, "log-format="); ok {
			format = v
		} else if a == "log-format" && i+1 < len(args) {
			format = args[i+1]
			i++
		}
	}
	return strings.EqualFold(format, "json")
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
			healthCommand(),
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
