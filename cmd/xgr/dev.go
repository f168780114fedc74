package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/devnet"
	"github.com/xgr-sidecar/xgr/devnet/demo"
	"github.com/xgr-sidecar/xgr/devnet/deploy"
	"github.com/xgr-sidecar/xgr/internal/redisserver"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/replica"
	"github.com/xgr-sidecar/xgr/txmanager"
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
	w := c.App.Writer
	ctx, cancel := context.WithCancel(c.Context)
	defer cancel()
	log := slog.Default()

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
	if indexOf(ids, c.String("flow")) < 0 {
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
	case indexOf(ids, demo.WaitingFlow) < 0 || indexOf(ids, demo.WakingFlow) < 0:
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
	d, err := demo.Deploy(ctx, dev, orchs, rules, c.String("rules-dir"), c.String("flow"))
	if err != nil {
		return fmt.Errorf("dev: %w", err)
	}
	reg, orders, settle := d.Registry, d.Orders, d.Settlement
	srv, err := redisserver.StartPrivate("dev")
	if err != nil {
		return err
	}
	defer srv.Stop()
	rdb := srv.Client()
	defer rdb.Close()
	cfg, err := demo.TriggerConfig(reg.Address, orders.Address, c.String("flow"), firstStep(orchs, c.String("flow")))
	if err != nil {
		return err
	}
	var mu sync.Mutex
	say := func(format string, args ...any) { // the timeline and the demo write from several goroutines
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, format, args...)
	}
	owner := strings.ToLower(dev.Address(0).Hex())
	var watch *demo.Watch // set before the replica runs
	timeline := c.Bool("timeline")
	rc := replica.Config{Name: "dev", Log: log, Client: rdb, Store: joinstore.Config{SessionTTL: time.Hour}, Chain: dev.Backend(),
		Index: &replica.Index{Config: *cfg, Poll: 100 * time.Millisecond}, Rules: replica.Rules{FromChain: scripted == nil, Outcomes: scripted},
		Evidence: replica.Evidence{Bundles: c.Bool("log-bundles")}, Poll: 50 * time.Millisecond, ExecPoll: 50 * time.Millisecond,
		Gateway: gateway, Console: consoleOf(c), Listeners: listenersOf(c, "listen"), ControlContract: controlContract(c), HealthTimeout: time.Second,
		OnEvent: func(r joinstore.Root, e reactor.Event) {
			watch.Add(r)
			if e.Type == reactor.EvExecOutcome {
				say("%s", demo.SettledLine(demo.Label(r.Owner, r.RootPid, owner), e.Step, e.Detail))
			}
			if timeline {
				say("session %-4s %-13s %-6s %-8s %s\n", demo.Label(r.Owner, r.RootPid, owner), e.Type, e.Pid, e.Step, e.Detail)
			}
		}}
	if settle != nil {
		policy, key := settle.Executor(dev)
		rc.Executions = &replica.Executions{Policy: policy, Key: key, Finality: txmanager.Finality{Mode: "confirmations", Confirmations: 1}, Poll: 50 * time.Millisecond}
	}
	rep, err := replica.New(ctx, rc)
	if err != nil {
		return replicaExit(c, err)
	}
	defer rep.Close()
	chainID := dev.ChainID().Uint64()
	fmt.Fprintf(w, "xgr dev: chain %d in-process, registry %s (block %d) with %d orchestrations, redis %s\n",
		chainID, reg.Address.Hex(), d.Block, len(ids), srv.Addr)
	if dev.URL != "" {
		fmt.Fprintf(w, "xgr dev: the chain's JSON-RPC is %s (chain id %d; wallets and ethers.js reach the registry and rules there)\n", dev.URL, chainID)
	}
	if rules != nil {
		fmt.Fprintf(w, "xgr dev: %d XRC-137 rule contracts deployed from %s; every step runs its rule with the XRC-137 executor\n", len(rules.Files), rules.Dir)
		if settle != nil {
			fmt.Fprint(w, settle.Line(rep.Executor()))
		}
	} else {
		fmt.Fprintf(w, "xgr dev: steps play the scripted outcomes of %s (--outcomes); no rules deployed\n", c.String("outcomes"))
	}
	if rc.Console != nil {
		fmt.Fprintf(w, "xgr dev: console http://%s/ui/\n", rep.Addrs()[0])
	}
	if url := rep.GatewayURL(); url != "" {
		fmt.Fprintf(w, "xgr dev: JSON-RPC gateway %s (chain id %d, registry %s, control contract %s)\n", url, chainID, reg.Address.Hex(), c.String("rpc-precompile"))
		fmt.Fprintf(w, "xgr dev: the registry's owner is dev account %s, private key 0x%x (a well-known development key: never use it on a real chain)\n",
			dev.Address(0).Hex(), crypto.FromECDSA(dev.Key(0)))
	}
	watch = demo.NewWatch(rep.Store(), owner, say, log)
	runErr := make(chan error, 1)
	go func() { runErr <- rep.Run(ctx) }()

	say("%s", wakeNote)
	driver := &demo.Driver{Watch: watch, Home: owner, Orders: c.Int("orders"), Every: c.Duration("every"), Flow: c.String("flow"),
		ExitWhenDone: c.Bool("exit-when-done"), Say: say, Log: log,
		Put: func(ctx context.Context, id string, text []byte) error {
			_, err := orders.Put(ctx, d.Sender, id, text)
			return err
		}}
	if wake {
		driver.Wake = &demo.WakeFlow{Store: rep.Store(), Source: rep.Source(), Registry: reg.Address.Hex(), Waiter: owner, Waker: strings.ToLower(dev.Address(1).Hex()),
			WaitStart: firstStep(orchs, demo.WaitingFlow), WakeStart: firstStep(orchs, demo.WakingFlow)}
		driver.Wake.WakerRule = rules.Contract(demo.WakingFlow, driver.Wake.WakeStart)
	}
	driver.Run(ctx)
	cancel()
	err = <-runErr
	// The summary of every session this run saw; Redis is still up.
	rctx, rcancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer rcancel()
	fmt.Fprintln(w)
	if terr := watch.Table(rctx, w); terr != nil {
		return terr
	}
	return replicaExit(c, err)
}

// indexOf is the position of id in ids, or -1.
func indexOf(ids []string, id string) int {
	for i, x := range ids {
		if x == id {
			return i
		}
	}
	return -1
}

// firstStep is the first step of the orchestration with the given id.
func firstStep(orchs []*registry.Orchestration, id string) string {
	for _, o := range orchs {
		if o.ID == id && len(o.Steps) > 0 {
			return o.StartStep("")
		}
	}
	return "A1"
}
