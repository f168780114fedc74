package main

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/devnet"
	"github.com/xgr-sidecar/xgr/devnet/demo"
	"github.com/xgr-sidecar/xgr/devnet/deploy"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
)

func devCommand() *cli.Command {
	return &cli.Command{
		Name:  "dev",
		Usage: "run everything in-process: a development chain, a private Redis, the indexer, the reactor and a demo trigger",
		Description: `Starts an in-process chain (go-ethereum's simulated backend) with an
XRC-729 registry holding the orchestrations of --ostc-dir, a private
redis-server on a temporary socket, the indexer following the registry, and
the session manager. Nothing is left behind.

Steps run real XRC-137 rules: every rule file the orchestrations name in
--rules-dir (ALIAS.json for "${addr:ALIAS}", or through its rules.json) is
deployed as an XRC-137 contract, the orchestrations are registered with
their "rule" fields rewritten to those contracts, and the XRC-137 executor
reads and evaluates them. --outcomes FILE plays scripted outcomes instead
(the orchestrations are then registered as written, and no rule is
deployed).

The demo: a trigger on a demo orders contract starts a session of --flow
for each "order-N" registered there; xgr dev registers --orders of them,
one every --every. With rules, it also runs a two-session wake-up flow
(--wake-flow): a session of kyc_review waits at await_order until a session
of shop_checkout, of another owner, wakes it with its rule's wakeUps. As
each session ends xgr dev prints "session N finished (status, steps,
duration)"; at the end (--exit-when-done, or Ctrl-C) a summary table.
--timeline prints every session event as well. See docs/demo.md.

The xgr_* JSON-RPC gateway listens on --rpc-listen (default
127.0.0.1:8645; empty: off). xgr dev prints its URL, the chain id, the
registry address and the development key that owns the registry (so it may
sign SessionPermits for its orchestrations) — for local use only.

The operator console is served under /ui on --listen (default
127.0.0.1:9464; see docs/console.md): its kill and wake buttons sign
permits with the browser's wallet and go through the gateway, or act
directly with --ui-actions.

Example:
   xgr dev --orders 3 --exit-when-done`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "ostc-dir", Value: "examples/ostc", EnvVars: []string{"XGR_DEV_OSTC_DIR"}, Usage: "orchestrations to register"},
			&cli.StringFlag{Name: "rules-dir", Value: "examples/rules", EnvVars: []string{"XGR_DEV_RULES_DIR"}, Usage: "XRC-137 rule files of the orchestrations' steps, deployed as contracts (ALIAS.json for ${addr:ALIAS}, or through rules.json)"},
			&cli.StringFlag{Name: "flow", Value: "nested_join_example", EnvVars: []string{"XGR_DEV_FLOW"}, Usage: "orchestration id the demo trigger starts"},
			&cli.IntFlag{Name: "orders", Value: 3, EnvVars: []string{"XGR_DEV_ORDERS"}, Usage: "demo trigger events to emit"},
			&cli.DurationFlag{Name: "every", Value: time.Second, EnvVars: []string{"XGR_DEV_EVERY"}, Usage: "time between demo events"},
			&cli.StringFlag{Name: "outcomes", EnvVars: []string{"XGR_DEV_OUTCOMES"}, Usage: "play scripted outcomes from this file instead of running the rules"},
			&cli.BoolFlag{Name: "wake-flow", Value: true, EnvVars: []string{"XGR_DEV_WAKE_FLOW"}, Usage: "run the two-session wake-up flow (kyc_review, shop_checkout; with rules only)"},
			&cli.BoolFlag{Name: "timeline", EnvVars: []string{"XGR_DEV_TIMELINE"}, Usage: "print every session event, not only when each session finished"},
			&cli.BoolFlag{Name: "exit-when-done", EnvVars: []string{"XGR_DEV_EXIT_WHEN_DONE"}, Usage: "stop once every demo session finished"},
			&cli.BoolFlag{Name: "log-bundles", EnvVars: []string{"XGR_LOG_BUNDLES"}, Usage: "store every executed step's log bundle (xgr session log, xgr_getStepLog)"},
			&cli.StringFlag{Name: "listen", Value: "127.0.0.1:9464", EnvVars: []string{"XGR_LISTEN"}, Usage: "address of the console /ui, /metrics, /healthz and /readyz (empty: off)"},
			&cli.StringFlag{Name: "chain-listen", Value: "127.0.0.1:0", EnvVars: []string{"XGR_DEV_CHAIN_LISTEN"}, Usage: "serve the development chain's eth_* JSON-RPC here, for wallets, scripts and dApps (port 0: a free one, printed; empty: off)"},
		}, append(gatewayFlags("127.0.0.1:8645"), append(consoleFlags(), listenerFlags()...)...)...),
		Action: devAction,
	}
}

func devAction(c *cli.Context) error {
	ctx := c.Context

	// Everything the flags name is read and checked before anything starts.
	var scripted *reactor.Scripted
	if f := c.String("outcomes"); f != "" {
		raw, err := os.ReadFile(f)
		if err != nil {
			return cli.Exit("dev: --outcomes: "+err.Error(), 2)
		}
		if scripted, err = reactor.ParseOutcomes(raw); err != nil {
			return cli.Exit("dev: "+err.Error(), 2)
		}
	}
	if n := c.Int("orders"); n < 0 {
		return cli.Exit(fmt.Sprintf("dev: --orders %d: want 0 or more", n), 2)
	}
	files, _ := filepath.Glob(filepath.Join(c.String("ostc-dir"), "*.json"))
	sort.Strings(files)
	var ids []string
	var orchs []*registry.Orchestration
	for _, f := range files {
		o, err := loadOSTC(f)
		if err != nil {
			return err
		}
		ids, orchs = append(ids, o.ID), append(orchs, o)
	}
	if len(ids) == 0 {
		return cli.Exit(fmt.Sprintf("dev: no orchestrations in %s", c.String("ostc-dir")), 2)
	}
	if !slices.Contains(ids, c.String("flow")) {
		return cli.Exit(fmt.Sprintf("dev: --flow %q is not an orchestration of %s (ids: %s)", c.String("flow"), c.String("ostc-dir"), strings.Join(ids, ", ")), 2)
	}
	if err := checkConsoleFlags(c); err != nil {
		return err
	}
	gateway, err := gatewayOf(c)
	if err != nil {
		return err
	}
	wake, wakeNote := c.Bool("wake-flow"), ""
	switch {
	case !wake:
	case scripted != nil && c.IsSet("wake-flow"):
		return cli.Exit("dev: --wake-flow runs XRC-137 rules (their wakeUps wake the other session); it does not go with --outcomes", 2)
	case scripted != nil:
		wake = false
	case !slices.Contains(ids, demo.WaitingFlow) || !slices.Contains(ids, demo.WakingFlow):
		if c.IsSet("wake-flow") {
			return cli.Exit(fmt.Sprintf("dev: --wake-flow needs the orchestrations %s and %s in --ostc-dir %s (see examples/ostc/wake_*.json)", demo.WaitingFlow, demo.WakingFlow, c.String("ostc-dir")), 2)
		}
		wake, wakeNote = false, fmt.Sprintf("xgr dev: no wake-up flow: --ostc-dir %s has no %s and %s\n", c.String("ostc-dir"), demo.WaitingFlow, demo.WakingFlow)
	}
	var rules *deploy.RuleFiles
	if scripted == nil {
		var err error
		if rules, err = deploy.PlanRuleFiles(ctx, c.String("rules-dir"), orchs); err != nil {
			return devRulesError(c.String("rules-dir"), err)
		}
	}

	// Every port is checked before anything is deployed.
	if err := checkPortsFree(c, "listen", "rpc-listen", "chain-listen"); err != nil {
		return err
	}
	var chainOpts []devnet.Option
	if a := c.String("chain-listen"); a != "" {
		chainOpts = append(chainOpts, devnet.WithHTTP(a))
	}
	dev, err := devnet.New(chainOpts...)
	if err != nil {
		return cli.Exit(fmt.Sprintf("dev: --chain-listen %s (XGR_DEV_CHAIN_LISTEN): %v", c.String("chain-listen"), err), 2)
	}
	defer dev.Close()
	dv := &demo.Dev{Chain: dev, Orchs: orchs, Flow: c.String("flow"), Rules: rules, RulesDir: c.String("rules-dir"), Scripted: scripted,
		OutcomesFile: c.String("outcomes"), Wake: wake, WakeNote: wakeNote, Orders: c.Int("orders"), Every: c.Duration("every"),
		ExitWhenDone: c.Bool("exit-when-done"), Timeline: c.Bool("timeline"), LogBundles: c.Bool("log-bundles"),
		Gateway: gateway, Console: consoleOf(c), Listeners: listenersOf(c, "listen"), ControlContract: controlContract(c),
		ControlShown: c.String("rpc-precompile"), Out: c.App.Writer, Log: slog.Default()}
	return replicaExit(c, dv.Run(ctx))
}
