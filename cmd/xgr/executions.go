package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/redis/go-redis/v9"
	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/indexer"
	"github.com/xgr-sidecar/xgr/metric"
	"github.com/xgr-sidecar/xgr/replica"
)

// executionFlags turn on executions and name the executor key (never the
// key itself: a keystore file and its password file, or XGR_EXECUTOR_KEY).
func executionFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "executions", EnvVars: []string{"XGR_EXECUTIONS"}, Usage: "send steps' XRC-137 executions on chain (or executions: {enabled: true} in --config; off: reported not performed)"},
		&cli.StringFlag{Name: "executor-keystore", EnvVars: []string{"XGR_EXECUTOR_KEYSTORE"}, Usage: "keystore (v3 JSON) of the executor key that signs and pays executions (or the key in XGR_EXECUTOR_KEY)"},
		&cli.StringFlag{Name: "password-file", EnvVars: []string{"XGR_PASSWORD_FILE"}, Usage: "file whose first line decrypts --executor-keystore"},
		&cli.DurationFlag{Name: "exec-poll", Value: time.Second, EnvVars: []string{"XGR_EXEC_POLL"}, Usage: "how often an executing step asks for its transaction's outcome"},
	}
}

// executionsOf is the executions: section x of the config file with the
// --executions flag.
func executionsOf(c *cli.Context, x execution.Config) (execution.Config, error) {
	cfg := x
	if c.Bool("executions") {
		cfg.Enabled = true
	}
	if err := cfg.Check(); err != nil {
		return cfg, cli.Exit(cmdName(c)+": "+err.Error(), 2)
	}
	return cfg, nil
}

// executorOf is the executor of xgr run: nil when executions are off,
// else the executions: policy x and the executor key of
// --executor-keystore with --password-file or $XGR_EXECUTOR_KEY
// (receipts final under the index's finality).
func executorOf(c *cli.Context, x execution.Config) (*replica.Executions, error) {
	if !x.Enabled {
		return nil, nil
	}
	if c.String("rpc") == "" {
		return nil, cli.Exit(cmdName(c)+": executions need --rpc: they are sent to that node", 2)
	}
	key, err := execution.LoadKey(c.String("executor-keystore"), c.String("password-file"), os.Getenv)
	if err != nil {
		return nil, cli.Exit(cmdName(c)+": executions: "+err.Error(), 2)
	}
	return &replica.Executions{Policy: x, Key: key}, nil
}

// startExecutions starts the executor of the flags and policy x when
// executions are enabled (nil when they are off): receipts are final
// under fin, and its upkeep runs until ctx ends (replica.StartExecutor).
func startExecutions(ctx context.Context, c *cli.Context, x execution.Config, rdb redis.UniversalClient, client *ethclient.Client, fin indexer.Finality, metrics *metric.Set) (execution.Actuator, error) {
	if client == nil && x.Enabled {
		return nil, cli.Exit(cmdName(c)+": executions need --rpc: they are sent to that node", 2)
	}
	ex, err := executorOf(c, x)
	if ex == nil || err != nil {
		return nil, err
	}
	a, err := replica.StartExecutor(ctx, *ex, rdb, client, fin, metrics, slog.Default())
	if err != nil {
		return nil, replicaExit(c, err)
	}
	return a, nil
}

// executionsCommand inspects the executions: section.
func executionsCommand() *cli.Command {
	return &cli.Command{
		Name:  "executions",
		Usage: "inspect the executions policy: what sessions may make the executor key do",
		Subcommands: []*cli.Command{{
			Name:  "policy",
			Usage: "print the executions: policy of --config with every limit's effective value; dangerous settings first",
			Description: `Reads the executions: section of the config file as xgr run does (the
defaults without --config) and prints the targets with their functions,
plain transfers and value caps, the gas, value and spend limits, and the
settings that let a session owner make the executor key do more than call
listed functions (targets: any, functions: any), each on a DANGER line.
Exit 1 when there is a DANGER line, 2 when the section is invalid.
See docs/executions.md#the-transaction-policy-the-executions-section.`,
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "config", Aliases: []string{"c"}, EnvVars: []string{"XGR_CONFIG"}, Usage: "the YAML config of xgr run (its executions: section)"},
				jsonFlag(),
			},
			Action: executionsPolicyAction,
		}},
	}
}

func executionsPolicyAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return cli.Exit(fmt.Sprintf("executions policy: unexpected argument %q (the config is --config FILE)", c.Args().First()), 2)
	}
	f, err := configFile(c)
	if err != nil {
		return err
	}
	x := f.Executions
	v := x.View()
	if c.Bool("json") {
		if err := json.NewEncoder(c.App.Writer).Encode(v); err != nil {
			return err
		}
	} else if _, err := fmt.Fprint(c.App.Writer, v.Text()); err != nil {
		return err
	}
	if len(v.Dangers) > 0 {
		return cli.Exit("", 1)
	}
	return nil
}
