package main

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/internal/jsondoc"
	"github.com/xgr-sidecar/xgr/internal/redact"
	"github.com/xgr-sidecar/xgr/rule"
	"github.com/xgr-sidecar/xgr/scenario"
	"github.com/xgr-sidecar/xgr/scenario/engine"
)

func scenarioCommand() *cli.Command {
	return &cli.Command{
		Name:  "scenario",
		Usage: "run XGR test-suite files (scenarios and test plans) end to end on a chain and xgr's engine",
		Subcommands: []*cli.Command{
			{
				Name:      "run",
				Usage:     "deploy a test-suite file's bundles, run its sessions and check every expectation",
				ArgsUsage: "FILE",
				Description: `Runs an XGR test-suite file (kind xgr.multi-test-scenario, xgr.test-scenario,
xgr.multi-test-plan or xgr.test-plan; see docs/scenario.md) with nothing but
the file:
  1. starts a private anvil and a private redis-server (unless --rpc and
     --redis name existing ones) and removes them afterwards, also on
     SIGINT/SIGTERM;
  2. deploys each plan's embedded bundle: its setup contracts (Solidity
     compiled with the pinned solc-js), its XRC-137 rules, and an XRC-729
     registry holding its orchestration with every step's "rule" pointed at
     the contract deployed in this run (so the orchestration's hash is new);
  3. runs the sessions on xgr's own engine (the session manager on Redis,
     steps evaluated by the XRC-137 executor from the rules on chain);
  4. carries out the scenario's steps (startSession, waitForStep,
     assertSession) — a plan file starts each plan at runtime.stepId and
     waits for its session to finish — and checks every expectation.

With --redis, the run is a session-manager replica of that Redis: it
executes every due session it finds there, and a replica running elsewhere
may execute the run's sessions (then input, API and contract-read checks
cannot see their evaluations). Give a run a Redis database of its own.
Neither --rpc nor --redis reads XGR_RPC or XGR_REDIS, so a run never reaches
a node or a store by accident.

Actors (owner, owner1, $actor.address:ALIAS) get anvil's development keys in
order of first use; --actor ALIAS=0xKEY overrides one (repeatable; also
XGR_SCENARIO_ACTORS=a=0x…,b=0x… or --actors-file with ALIAS=0xKEY lines).

Executions (a branch's XRC-137 "execution") are performed: sent to the
chain, to any target (the run deploys its own contracts), final once mined;
a revert flips the step to its onInvalid branch. The executor key is
XGR_EXECUTOR_KEY, or --executor-keystore with --password-file, else the
last development account no actor uses (funded on anvil); the report names
it ("executor", also in --json's environment).

Exit status: 0 when every check passed, 1 when one failed (or the run could
not finish), 2 for usage errors (a bad file is reported with the JSON path
and line:column of each problem).

Examples:
   xgr scenario run examples/scenario/Order_process_waits_for_KYC_and_continues_when_KYC_is_valid_scenario.json
   xgr scenario run --json plans.json > report.json
   xgr scenario run --rpc http://127.0.0.1:8545 --redis redis://127.0.0.1:6379/15 --actor owner=0x… plans.json`,
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "rpc", EnvVars: []string{"XGR_SCENARIO_RPC"}, Usage: "node to deploy to and run against (default: a private anvil started for the run)"},
					&cli.StringFlag{Name: "redis", EnvVars: []string{"XGR_SCENARIO_REDIS"}, Usage: "Redis URL for session state (default: a private redis-server on a temporary socket); the run executes every due session it finds there, so give it a database of its own"},
					redisPasswordFileFlag(),
					&cli.DurationFlag{Name: "timeout", Value: 10 * time.Minute, EnvVars: []string{"XGR_SCENARIO_TIMEOUT"}, Usage: "give up on the whole run after this long"},
					&cli.StringSliceFlag{Name: "actor", EnvVars: []string{"XGR_SCENARIO_ACTORS"}, Usage: "ALIAS=0xPRIVATEKEY: the key of an actor alias (repeatable)"},
					&cli.StringFlag{Name: "actors-file", EnvVars: []string{"XGR_SCENARIO_ACTORS_FILE"}, Usage: "file of ALIAS=0xPRIVATEKEY lines (# comments)"},
					&cli.DurationFlag{Name: "settle", Value: 5 * time.Second, EnvVars: []string{"XGR_SCENARIO_SETTLE"}, Usage: "how long an assertSession waits for its session to finish before checking"},
					&cli.DurationFlag{Name: "plan-wait", Value: 2 * time.Minute, EnvVars: []string{"XGR_SCENARIO_PLAN_WAIT"}, Usage: "how long a plan run waits for its session to finish before checking"},
					allowHostFlag(),
					executionFlags()[1], executionFlags()[2], executionFlags()[3],
					jsonFlag(),
				},
				Action: scenarioRunAction,
			},
			{
				Name:      "validate",
				Usage:     "check a test-suite file without running it: what would be deployed, started and checked",
				ArgsUsage: "FILE",
				Flags:     []cli.Flag{jsonFlag()},
				Action:    scenarioValidateAction,
			},
		},
	}
}

// loadScenarioFile reads and parses a test-suite file; problems are usage
// errors listing FILE:LINE:COL: error: PATH: message.
func loadScenarioFile(c *cli.Context, cmd string) (*scenario.File, error) {
	file, err := oneFile(c, cmd)
	if err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, cli.Exit(cmd+": "+err.Error(), 2)
	}
	f, err := scenario.Parse(raw)
	if err != nil {
		var inv *jsondoc.Invalid
		if errors.As(err, &inv) {
			lines := []string{fmt.Sprintf("%s: %s is not a test-suite file this runner can run:", cmd, file)}
			for _, p := range inv.Problems {
				lines = append(lines, "  "+located(file, "error", p))
			}
			return nil, cli.Exit(strings.Join(lines, "\n"), 2)
		}
		return nil, cli.Exit(fmt.Sprintf("%s: %s: %v", cmd, file, err), 2)
	}
	return f, nil
}

func scenarioValidateAction(c *cli.Context) error {
	f, err := loadScenarioFile(c, "scenario validate")
	if err != nil {
		return err
	}
	if c.Bool("json") {
		return json.NewEncoder(c.App.Writer).Encode(scenario.Outline(f))
	}
	f.WriteOutline(c.App.Writer)
	return nil
}

// actorKeys gives every alias the file uses a key: the ones named with
// --actor / --actors-file, the others the development accounts in order of
// first use (engine.ActorKeys).
func actorKeys(c *cli.Context, aliases []string) (map[string]*ecdsa.PrivateKey, map[string]string, error) {
	given, err := engine.GivenKeys(c.String("actors-file"), c.StringSlice("actor"))
	if err != nil {
		return nil, nil, err
	}
	return engine.ActorKeys(aliases, given)
}

// openScenarioEnv starts (or connects to) the chain and Redis of
// --rpc and --redis (engine.OpenEnv).
func openScenarioEnv(ctx context.Context, c *cli.Context) (*engine.Env, error) {
	cfg := engine.EnvConfig{RPC: c.String("rpc"), RedisURL: c.String("redis"), RedisTarget: "--redis / XGR_SCENARIO_REDIS"}
	if cfg.RedisURL != "" {
		opts, err := parseRedisAddr(cfg.RedisURL)
		if err != nil {
			return nil, cli.Exit(fmt.Sprintf("scenario run: --redis %q: %v", redact.URL(cfg.RedisURL), err), 2)
		}
		if err := withPasswordFile(c, opts); err != nil {
			return nil, cli.Exit(fmt.Sprintf("scenario run: %v", err), 2)
		}
		cfg.Redis = opts
	}
	e, err := engine.OpenEnv(ctx, cfg)
	var le *engine.LocalError
	switch {
	case errors.As(err, &le):
		return nil, cli.Exit("scenario run: "+err.Error(), 2)
	case err != nil:
		return nil, cli.Exit("scenario run: "+err.Error(), 1)
	}
	return e, nil
}

func scenarioRunAction(c *cli.Context) error {
	f, err := loadScenarioFile(c, "scenario run")
	if err != nil {
		return err
	}
	aliases := f.Aliases()
	keys, keySource, err := actorKeys(c, aliases)
	if err != nil {
		return cli.Exit("scenario run: "+err.Error(), 2)
	}
	api := &rule.HTTPCaller{AllowHosts: c.StringSlice("allow-host")}
	if err := api.Check(); err != nil {
		return cli.Exit("scenario run: --allow-host: "+err.Error(), 2)
	}
	ctx, cancel := context.WithTimeoutCause(c.Context, c.Duration("timeout"), fmt.Errorf("--timeout %s passed", c.Duration("timeout")))
	defer cancel()
	env, err := openScenarioEnv(ctx, c)
	if err != nil {
		return err
	}
	defer env.Close()

	executor, executorSource, err := scenarioExecutor(c, keys)
	if err != nil {
		return err
	}
	env.Executor = strings.ToLower(chain.Address(executor.Key).Hex())
	eng, err := engine.New(ctx, engine.Config{Chain: env.Client, Redis: env.RDB, Store: storeConfig(), Keys: keys, API: api,
		Executions: executor, ExecPoll: c.Duration("exec-poll")})
	if err != nil {
		return cli.Exit("scenario run: "+err.Error(), 1)
	}
	defer eng.Close()
	// The session manager runs until the steps are done; cancelling drains it.
	mctx, stopManager := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := eng.Run(mctx); err != nil {
			slog.Error("session manager stopped", "err", err)
		}
	}()
	actors := map[string]string{}
	for a, k := range keys {
		actors[a] = strings.ToLower(chain.Address(k).Hex())
	}
	w := c.App.Writer
	asJSON := c.Bool("json")
	if !asJSON {
		fmt.Fprintln(w, env.Line())
		for _, a := range aliases {
			fmt.Fprintf(w, "actor %s = %s (%s)\n", a, actors[a], keySource[a])
		}
		fmt.Fprintln(w, executorLine(env.Executor, executorSource))
	}
	var last *scenario.RunReport
	runner := &scenario.Runner{Engine: eng, Actors: actors, Settle: c.Duration("settle"), PlanWait: c.Duration("plan-wait")}
	if !asJSON {
		runner.Progress = func(run *scenario.RunReport, s *scenario.StepReport) {
			if run != last {
				scenario.WriteRunHeader(w, run)
				last = run
			}
			scenario.WriteStep(w, s)
		}
	}
	rep := runner.Run(ctx, f)
	stopManager()
	wg.Wait()
	if asJSON {
		type actor struct {
			Alias   string `json:"alias"`
			Address string `json:"address"`
			Key     string `json:"key"`
		}
		out := struct {
			File        string      `json:"file"`
			Environment *engine.Env `json:"environment"`
			Actors      []actor     `json:"actors"`
			*scenario.Report
		}{File: c.Args().First(), Environment: env.Shown(), Report: rep}
		for _, a := range aliases {
			out.Actors = append(out.Actors, actor{a, actors[a], keySource[a]})
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return err
		}
	} else {
		rep.WriteTotals(w)
	}
	if !rep.Passed {
		return cli.Exit("", 1)
	}
	return nil
}
