package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/redis/go-redis/v9"
	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/authority"
	"github.com/xgr-sidecar/xgr/internal/redact"
	"github.com/xgr-sidecar/xgr/internal/redisserver"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/rulesource"
	"github.com/xgr-sidecar/xgr/session"
	"github.com/xgr-sidecar/xgr/simulation"
)

func simulateCommand() *cli.Command {
	return &cli.Command{
		Name:      "simulate",
		Usage:     "run an orchestration through the real reactor and store, steps as XRC-137 rules or scripted outcomes",
		ArgsUsage: "OSTC.json",
		Description: `Runs one session of the orchestration on the real joinstore (Redis
transitions) and reactor decisions. Each step runs as the XRC-137 rule its
"rule" names, or with an outcome taken from the outcomes file.

Rules (--rules DIR, --rpc URL): a step's rule is looked up in DIR first: in
DIR/rules.json, a JSON object mapping rule references exactly as the
orchestration writes them to a rule file (relative to DIR) or to a contract
address, e.g.
   {"<Iterationstep-Addr>": "Iterationstep.json",
    "${addr:FEED}": "feed.json",
    "<Quorum-Addr>": "0x5FbDB2315678afecb367f032d93F642f64180aa3"}
then as a file named after the reference: 0x….json for an address (any
letter case), ALIAS.json for ${addr:ALIAS}, NAME.json for <NAME>. A 0x
address not found in DIR (or mapped to one) is read from the XRC-137
contract at --rpc: ruleJson, verified against ruleHash, cached by (address,
ruleHash); encrypted rules are refused. Every step's rule is loaded before
the session starts: a broken or encrypted rule is a usage error. Contract
reads go to --rpc (a read's "rpc" selector NAME to --rpc-backend NAME=URL),
API calls to public hosts and to hosts allowed with --allow-host.

Outcomes (--outcomes FILE), for steps no rule source covers (required when
neither --rules nor --rpc is given):
   {"A1": {"result": "valid", "payload": {"x": 1}, "waitSec": 5},
    "B1": [{"result": "invalid"}, {"result": "valid"}],
    "default": {"result": "valid"}}
A step maps to one outcome or to a list used by its successive executions
(the last one repeats); "default" covers the other steps. result is valid,
invalid, error (a hard error: the process aborts) or cancel (the step
cancels its session, as a holding cancelSession rule); payload is the step's
output, overlaid on its input; waitSec delays the children; delayMs is an
execution time (ignored under --deterministic).

Executions (a branch's XRC-137 "execution"): without --rpc they are not
performed (the step says so). With --rpc and executions on (--executions,
XGR_EXECUTIONS or executions: {enabled: true} in --config, as xgr run) they
are sent to that node, signed by the executor key (--executor-keystore with
--password-file, or XGR_EXECUTOR_KEY), under the config's policy; receipts
are final under its finality (without --config: once mined); a revert flips
the step to its onInvalid branch. With --rpc and executions off each one is
previewed with eth_call from the would-be sender (--executor, else the
executor key's address if one is given, else --owner) and nothing is sent:
the timeline says "preview: would succeed (gas N)" or "preview: reverts:
REASON", and the step goes on as it would on chain (a revert flips it).

--wait-override SECONDS replaces every step's wait (waitSec), e.g. 0 to run
an hourly loop at once. --max-steps N stops after N executed steps, for
orchestrations that spawn themselves forever; the summary then says so
(exit status 0).

Output: the timeline (spawned, claimed, executed, delivered, ignored,
join_closed, join_aborted, killed, promoted, gated), then a summary of every
process (an aborted one with its reason) and join: the join's outcome (open,
closed with its merged payload, unfulfillable, or killed before it was
decided) and, separately, its target process's status, e.g.
   1:2      J1           closed        k=2 got [B1 C1] payload {"b":1}; target aborted [hard error]
--json prints one JSON object per event and the summary, with each
process's payload, as the last line.

Without --redis, a private redis-server is started on a temporary socket and
removed afterwards. simulate never reads XGR_REDIS: it runs on a shared Redis
only when --redis names one on the command line, and then no replica can
run the simulated session (simulate holds its root lease and keeps it out of
the replicas' index) and every key of it is deleted at the end, also after
--timeout or Ctrl-C. --deterministic uses a virtual clock (waits take no time),
so the same input always gives the same output. The session runs on one
worker; the concurrent session manager comes with xgr run.

Examples:
   xgr simulate examples/ostc/nested_join.json --outcomes outcomes.json --deterministic
   xgr simulate flow.json --outcomes o.json --step A1 --payload in.json --json
   xgr simulate IterationofPiOSTC.json --rules rules/ --payload pi0.json --wait-override 0 --max-steps 1000
   xgr simulate flow.json --rpc http://127.0.0.1:8545 --allow-host prices.internal:8080
   XGR_EXECUTOR_KEY=… xgr simulate flow.json --rules rules/ --rpc http://127.0.0.1:8545 --executions --config xgr.yaml`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "outcomes", Usage: "scripted outcomes file (for steps no rule source covers; required without --rules and --rpc)"},
			&cli.StringFlag{Name: "rules", Usage: "rule directory: DIR/rules.json and files named after rule references"},
			evalRPCFlag(), rpcBackendFlag(), allowHostFlag(),
			&cli.Float64Flag{Name: "wait-override", Usage: "replace every step's waitSec with SECONDS (e.g. 0)", DefaultText: "unset: each step waits its own waitSec"},
			&cli.IntFlag{Name: "max-steps", Usage: "stop after N executed steps (0: no bound)"},
			&cli.StringFlag{Name: "step", Aliases: []string{"start"}, Usage: "start step (default: the first step of the document)"},
			&cli.StringFlag{Name: "payload", Usage: "start payload: a JSON object file"},
			&cli.StringFlag{Name: "redis", Usage: "run on this Redis (host:port or URL; default: a private redis-server; XGR_REDIS is not read): the session is held by simulate and deleted at the end"},
			redisPasswordFileFlag(),
			&cli.StringFlag{Name: "owner", Value: "0x0000000000000000000000000000000000000001", Usage: "session owner"},
			&cli.StringFlag{Name: "config", Aliases: []string{"c"}, Usage: "xgr run's YAML config: its executions: section (policy) and finality (default without it: final once mined)"},
			&cli.StringFlag{Name: "executor", Usage: "with --rpc and executions off: the address previews are sent from (default: the executor key's, else --owner)"},
			&cli.BoolFlag{Name: "deterministic", Usage: "virtual clock: the same input always gives the same output"},
			&cli.DurationFlag{Name: "timeout", Value: 10 * time.Minute, Usage: "give up after this long"},
			jsonFlag(),
		}, executionFlags()...),
		Action: simulateAction,
	}
}

func simulateAction(c *cli.Context) error {
	file, err := oneFile(c, "simulate")
	if err != nil {
		return err
	}
	o, err := loadOSTC(file)
	if err != nil {
		return err
	}
	req := session.Request{Owner: c.String("owner"), Registry: "simulate", OstcID: o.ID, OstcHash: o.Hash.Hex(), Step: o.StartStep(c.String("step"))}
	if p := c.String("payload"); p != "" {
		if req.Payload, err = os.ReadFile(p); err != nil {
			return cli.Exit(err.Error(), 2)
		}
	}
	ctx, cancel := context.WithTimeout(c.Context, c.Duration("timeout"))
	defer cancel()
	cfg := simulation.Config{Orch: o, Request: req, Deterministic: c.Bool("deterministic"), MaxSteps: c.Int("max-steps"),
		ExecPoll: c.Duration("exec-poll"), Timeout: c.Duration("timeout"), Out: c.App.Writer, JSON: c.Bool("json")}
	node, closeExec, err := simulationSteps(ctx, c, o, &cfg)
	if err != nil {
		return err
	}
	defer closeExec()
	// With --rpc the owner is the session's runner, authorized on the
	// contracts its steps' references resolve to; without, nothing is read
	// from a chain.
	if node != nil {
		cfg.Authority = authority.NewChecker(authority.NewChainReader(node))
	}
	rdb, shared, stop, err := simulationRedis(c)
	if err != nil {
		return err
	}
	defer stop()
	cfg.Redis, cfg.Shared = rdb, shared
	execCtx, stopExec := context.WithCancel(ctx)
	defer stopExec()
	if cfg.Executions, err = simulationExecutions(execCtx, c, rdb, node); err != nil {
		return err
	}
	err = simulation.Run(ctx, cfg)
	var se *simulation.StartError
	switch {
	case errors.As(err, &se):
		hints := map[session.Kind]string{session.KindRuleUnresolved: "map the step's rule in --rules DIR (rules.json or a file named after the reference), give --rpc for 0x addresses, or script it with --outcomes"}
		if !c.IsSet("owner") {
			hints[session.KindNotAuthorized] = fmt.Sprintf("the owner defaults to %s: give --owner, the account that runs the session", req.Owner)
		}
		return startFailed("simulate", se.Err, hints)
	case err != nil:
		return cli.Exit("simulate: "+err.Error(), 1)
	}
	return nil
}

// simulationRedis connects to the Redis that --redis names on the command
// line (shared: other programs may use it), or starts a private
// redis-server in a temporary directory that stop removes. It never reads
// XGR_REDIS: a simulation must not reach a production Redis by accident.
func simulationRedis(c *cli.Context) (rdb redis.UniversalClient, shared bool, stop func(), err error) {
	if c.IsSet("redis") {
		opts, err := parseRedisAddr(c.String("redis"))
		if err != nil {
			return nil, false, nil, cli.Exit(fmt.Sprintf("simulate: --redis %q: %v", redact.URL(c.String("redis")), err), 2)
		}
		if err := withPasswordFile(c, opts); err != nil {
			return nil, false, nil, cli.Exit("simulate: "+err.Error(), 2)
		}
		rdb := redis.NewClient(opts)
		if err := rdb.Ping(c.Context).Err(); err != nil {
			rdb.Close()
			return nil, false, nil, cli.Exit("simulate: "+redisTarget{Addr: opts.Addr, Flag: "--redis"}.failed(err).Error(), 1)
		}
		return rdb, true, func() { rdb.Close() }, nil
	}
	srv, err := redisserver.StartPrivate("simulate")
	if err != nil {
		return nil, false, nil, cli.Exit("simulate: "+err.Error(), 1)
	}
	rdb = srv.Client()
	return rdb, false, func() { rdb.Close(); srv.Stop() }, nil
}

// simulationSteps fills in cfg's executor and rule resolver from --rules,
// --rpc, --rpc-backend, --allow-host, --outcomes and --wait-override
// (simulation.Steps) and returns the --rpc node (nil without).
func simulationSteps(ctx context.Context, c *cli.Context, o *registry.Orchestration, cfg *simulation.Config) (node *ethclient.Client, closer func(), err error) {
	var sc simulation.StepsConfig
	if f := c.String("outcomes"); f != "" {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, nil, cli.Exit(err.Error(), 2)
		}
		if sc.Scripted, err = reactor.ParseOutcomes(raw); err != nil {
			return nil, nil, cli.Exit("simulate: "+err.Error(), 2)
		}
	}
	if n := c.Int("max-steps"); n < 0 {
		return nil, nil, cli.Exit(fmt.Sprintf("simulate: --max-steps %d: give a positive bound, or 0 for none", n), 2)
	}
	closer = func() {}
	if c.String("rules") != "" || c.String(evalRPCFlag().Name) != "" {
		sc.Rules = &rulesource.Loader{}
		if dir := c.String("rules"); dir != "" {
			if sc.Rules.Files, err = rulesource.OpenDir(dir); err != nil {
				return nil, nil, cli.Exit("simulate: --rules: "+err.Error(), 2)
			}
		}
		wiring, err := wireRules(ctx, c)
		if err != nil {
			return nil, nil, err
		}
		sc.Rules.Chain, sc.API, sc.Reads, node, closer = wiring.Chain, wiring.API, wiring.Reads, wiring.Node, wiring.Close
	}
	if c.IsSet("wait-override") {
		secs := c.Float64("wait-override")
		sc.WaitOverride = &secs
	}
	cfg.Scripted = sc.Scripted
	if cfg.Exec, cfg.Rules, err = simulation.Steps(ctx, o, sc); err != nil {
		closer()
		var ue *simulation.UsageError
		if errors.As(err, &ue) {
			return nil, nil, cli.Exit(ue.Error(), 2)
		}
		return nil, nil, err
	}
	return node, closer, nil
}
