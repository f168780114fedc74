// Command xgr is the XRC-729 orchestration sidecar: it validates, hashes and
// draws orchestrations today, and grows into the indexer and reactor.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"
)

func main() {
	// SIGINT and SIGTERM cancel the commands' context: long-running ones
	// drain and clean up (a private redis-server, leases) before exiting.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := runApp(ctx, newApp(os.Stdout, os.Stderr), os.Args); err != nil {
		if ec, ok := err.(cli.ExitCoder); ok {
			if msg := ec.Error(); msg != "" {
				fmt.Fprintln(os.Stderr, "xgr:", msg)
			}
			os.Exit(ec.ExitCode())
		}
		fmt.Fprintln(os.Stderr, "xgr:", err)
		os.Exit(2)
	}
}

func newApp(stdout, stderr io.Writer) *cli.App {
	return &cli.App{
		Name:      "xgr",
		Usage:     "run XRC-729 orchestrations next to an EVM node",
		Writer:    stdout,
		ErrWriter: stderr,
		// Errors are printed once, by main.
		ExitErrHandler: func(*cli.Context, error) {},
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
			simulateCommand(),
			sessionCommand(),
			runCommand(),
			indexCommand(),
			devCommand(),
			scenarioCommand(),
			rpcCommand(),
			benchCommand(),
			versionCommand(),
		},
	}
}

func setupLogging(level, format string, w io.Writer) error {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return cli.Exit(fmt.Sprintf("--log-level %q: use debug, info, warn or error", level), 2)
	}
	opts := &slog.HandlerOptions{Level: l}
	switch strings.ToLower(format) {
	case "text":
		slog.SetDefault(slog.New(slog.NewTextHandler(w, opts)))
	case "json":
		slog.SetDefault(slog.New(slog.NewJSONHandler(w, opts)))
	default:
		return cli.Exit(fmt.Sprintf("--log-format %q: use text or json", format), 2)
	}
	return nil
}
