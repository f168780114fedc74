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
	"github.com/xgr-sidecar/xgr/execution/onchain"
	"github.com/xgr-sidecar/xgr/indexer"
	"github.com/xgr-sidecar/xgr/metric"
	"github.com/xgr-sidecar/xgr/txmanager"
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

// executionsOf reads the executions: section of the config file (raw) and
// the --executions flag; the rest of the file goes back to the other
// parsers, line numbers kept.
func executionsOf(c *cli.Context, file string, raw []byte) (execution.Config, []byte, error) {
	cfg, rest, err := execution.ParseConfig(file, raw)
	if err != nil {
		return cfg, nil, cli.Exit(cmdName(c)+": "+err.Error(), 2)
	}
	if c.Bool("executions") {
		cfg.Enabled = true
	}
	if err := cfg.Check(); err != nil {
		return cfg, nil, cli.Exit(cmdName(c)+": "+err.Error(), 2)
	}
	return cfg, rest, nil
}

// startExecutions builds the executor (the transaction manager behind an
// Actuator) when executions are enabled, and runs its upkeep until ctx
// ends. Receipts are final under the indexer's finality rule; "auto" asks
// the node whether it has a finalized block. nil when executions are off.
// With metrics (xgr run's /metrics) the executor's xgr_txm_* series and
// xgr_execution_refusals_total are registered there.
func startExecutions(ctx context.Context, c *cli.Context, replica string, x execution.Config, rdb redis.UniversalClient, client *ethclient.Client, fin indexer.Finality, metrics *metric.Set) (execution.Actuator, error) {
	if !x.Enabled {
		return nil, nil
	}
	if client == nil {
		return nil, cli.Exit(cmdName(c)+": executions need --rpc: they are sent to that node", 2)
	}
	key, err := execution.LoadKey(c.String("executor-keystore"), c.String("password-file"), os.Getenv)
	if err != nil {
		return nil, cli.Exit(cmdName(c)+": executions: "+err.Error(), 2)
	}
	tf := txmanager.Finality{Mode: fin.Mode, Confirmations: fin.Confirmations}
	if fin.Mode == "auto" {
		v, err := fin.View(ctx, client)
		if err != nil {
			return nil, cli.Exit(cmdName(c)+": executions: "+err.Error(), 1)
		}
		tf.Mode = "finalized"
		if v.Fallback {
			tf.Mode = "confirmations"
		}
	}
	mc := txmanager.Config{Finality: tf, Log: slog.Default(), Replica: replica, LeaseTTL: x.SenderLease}
	if mc.LeaseTTL == 0 && c.IsSet("root-lease") {
		mc.LeaseTTL = c.Duration("root-lease") // a sender's takeover takes no longer than a session's
	}
	if metrics != nil {
		mc.Metrics = metrics.Executions()
	}
	s, err := onchain.New(ctx, onchain.Config{Executions: x, Redis: rdb, Chain: client, Key: key, Manager: mc})
	if err != nil {
		return nil, cli.Exit(cmdName(c)+": executions: "+err.Error(), 2)
	}
	go func() {
		if err := s.Run(ctx); err != nil && ctx.Err() == nil {
			slog.Error("executions: the transaction manager stopped", "err", err)
		}
	}()
	v := x.View()
	slog.Info("executions on", "executor", s.Address().Hex(), "finality", tf.Mode, "confirmations", tf.Confirmations,
		"anyTarget", v.AnyTarget, "targets", len(v.Targets), "maxGasLimit", v.MaxGasLimit, "maxSessionGas", v.MaxSessionGas,
		"maxGasPerOwnerPerDay", v.MaxGasPerOwnerPerDay, "spendBoundPerOwnerPerDay", v.SpendBoundPerOwnerPerDay,
		"valueMaxPerSession", v.ValueMaxPerSession, "valueMaxPerOwnerPerDay", v.ValueMaxPerOwnerPerDay)
	for _, d := range v.Dangers {
		slog.Warn("executions: dangerous policy", "setting", d)
	}
	if metrics != nil {
		return metrics.CountRefusals(s), nil
	}
	return s, nil
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
	var raw []byte
	file := c.String("config")
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return cli.Exit("executions policy: --config: "+err.Error(), 2)
		}
		raw = b
	}
	x, _, err := execution.ParseConfig(file, raw)
	if err != nil {
		return cli.Exit("executions policy: "+err.Error(), 2)
	}
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
