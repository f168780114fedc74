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
	"github.com/prometheus/client_golang/prometheus"
	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/console"
	"github.com/xgr-sidecar/xgr/indexer"
	"github.com/xgr-sidecar/xgr/internal/chain"
	"github.com/xgr-sidecar/xgr/internal/devchain"
	"github.com/xgr-sidecar/xgr/internal/redisserver"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/rpc"
)

func devCommand() *cli.Command {
	return &cli.Command{
		Name:  "dev",
		Usage: "run everything in-process: a development chain, a private Redis, the indexer, the reactor and a demo trigger",
		Description: `Starts an in-process chain (go-ethereum's simulated backend) with an
XRC-729 registry holding the orchestrations of --ostc-dir, a private
redis-server on a temporary socket, the indexer following the registry, and
the session manager. A demo trigger on the registry's own OSTCUpdated event
starts a session of --flow each time an "order-N" document is registered;
xgr dev registers --orders of them, one every --every, and prints what
happens. Steps run from --outcomes (all valid by default), as the example
orchestrations name placeholder rules. Nothing is left behind.

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
			&cli.StringFlag{Name: "ostc-dir", Value: "examples/ostc", Usage: "orchestrations to register"},
			&cli.StringFlag{Name: "flow", Value: "nested_join_example", Usage: "orchestration id the demo trigger starts"},
			&cli.IntFlag{Name: "orders", Value: 3, Usage: "demo trigger events to emit"},
			&cli.DurationFlag{Name: "every", Value: time.Second, Usage: "time between demo events"},
			&cli.StringFlag{Name: "outcomes", Usage: "scripted outcomes file (default: every step valid)"},
			&cli.BoolFlag{Name: "exit-when-done", Usage: "stop once every demo session finished"},
			&cli.StringFlag{Name: "listen", Value: "127.0.0.1:9464", EnvVars: []string{"XGR_LISTEN"}, Usage: "address of the console /ui, /metrics, /healthz and /readyz (empty: off)"},
		}, append(gatewayFlags("127.0.0.1:8645"), consoleFlags()...)...),
		Action: devAction,
	}
}

func devAction(c *cli.Context) error {
	w := c.App.Writer
	ctx, cancel := context.WithCancel(c.Context)
	defer cancel()
	log := slog.Default()

	exec, err := reactor.ParseOutcomes([]byte(`{"default":{"result":"valid"}}`))
	if f := c.String("outcomes"); f != "" {
		raw, rerr := os.ReadFile(f)
		if rerr != nil {
			return cli.Exit(rerr.Error(), 2)
		}
		exec, err = reactor.ParseOutcomes(raw)
	}
	if err != nil {
		return cli.Exit("dev: "+err.Error(), 2)
	}
	files, _ := filepath.Glob(filepath.Join(c.String("ostc-dir"), "*.json"))
	sort.Strings(files)
	var ids []string
	var jsons [][]byte
	for _, f := range files {
		o, err := loadOSTC(f)
		if err != nil {
			return err
		}
		ids, jsons = append(ids, o.ID), append(jsons, o.Raw())
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

	dev, err := devchain.New()
	if err != nil {
		return err
	}
	defer dev.Close()
	sender, err := chain.NewSender(ctx, dev.Backend(), dev.Key(0), 1)
	if err != nil {
		return err
	}
	reg, rcpt, err := chain.DeployRegistry(ctx, sender, chain.RegistryInit{})
	if err != nil {
		return fmt.Errorf("dev: deploy the registry: %w", err)
	}
	for i, id := range ids {
		if _, err := reg.Put(ctx, sender, id, jsons[i]); err != nil {
			return fmt.Errorf("dev: register %s: %w", id, err)
		}
	}
	dir, err := os.MkdirTemp("", "xgr-dev-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	srv, err := redisserver.Start(redisserver.Options{Dir: dir})
	if err != nil {
		return err
	}
	defer srv.Stop()
	rdb := srv.Client()
	defer rdb.Close()
	store := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour, ServerClock: true})
	chainID := dev.ChainID().Uint64()
	fmt.Fprintf(w, "xgr dev: chain %d in-process, registry %s (block %d) with %d orchestrations, redis %s\n",
		chainID, reg.Address.Hex(), rcpt.BlockNumber.Uint64(), len(ids), srv.Addr)

	cfg, err := indexer.ParseConfig("dev", []byte(fmt.Sprintf(`
registries: ["%[1]s"]
finality: confirmations
confirmations: 1
triggers:
  - name: demo-order
    contract: "%[1]s"
    event: "OSTCUpdated(address indexed xrc729Address, address indexed owner, bytes32 indexed ostcIdHash, bytes32 ostcHash, string id, uint256 version, uint64 updatedAt)"
    orchestration: {registry: "%[1]s", id: %[2]s}
    start: %[3]s
    owner: {arg: owner}
    payload: {Order: {arg: id}, Block: {log: blockNumber}}
`, reg.Address.Hex(), c.String("flow"), firstStep(jsons, ids, c.String("flow")))))
	if err != nil {
		return err
	}
	idx := store.Index(chainID)
	source := indexer.NewCacheSource(idx, dev.Backend())
	url, gateway, stopGateway, err := serveGateway(c, rpc.Config{Store: store, Source: source, Owners: source, ChainID: dev.ChainID(), Log: log})
	if err != nil {
		return err
	}
	defer stopGateway()
	ui := newConsole(c, console.Config{Store: store, Source: source, Gateway: gateway, Chain: dev.Backend(), ChainID: chainID, Index: idx, Log: log})
	if addr := c.String("listen"); addr != "" {
		ops, bound, err := serveOps(addr, prometheus.NewRegistry(), store, "dev", time.Second, func() error { return ctx.Err() }, ui)
		if err != nil {
			return cli.Exit(fmt.Sprintf("dev: --listen %s: %v", addr, err), 2)
		}
		defer ops.Shutdown(context.WithoutCancel(ctx))
		if ui != nil {
			fmt.Fprintf(w, "xgr dev: console http://%s/ui/\n", bound)
		}
	}
	if url != "" {
		fmt.Fprintf(w, "xgr dev: JSON-RPC gateway %s (chain id %d, registry %s, control contract %s)\n", url, chainID, reg.Address.Hex(), c.String("rpc-precompile"))
		fmt.Fprintf(w, "xgr dev: the registry's owner is dev account %s, private key 0x%x (a well-known development key: never use it on a real chain)\n",
			dev.Address(0).Hex(), crypto.FromECDSA(dev.Key(0)))
	}
	var mu sync.Mutex
	say := func(format string, args ...any) { // the timeline and the demo write from several goroutines
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, format, args...)
	}
	finished := map[string]bool{}
	// Sessions the indexer starts for the registrations above (each is an
	// OSTCUpdated log, hence a trigger event) count too.
	demos := c.Int("orders") + len(ids)
	m := &reactor.Manager{Store: store, Source: source, Exec: exec, Replica: "dev", Poll: 50 * time.Millisecond, Log: log,
		OnEvent: func(r joinstore.Root, e reactor.Event) {
			say("session %-4d %-13s %-6s %-8s %s\n", r.RootPid, e.Type, e.Pid, e.Step, e.Detail)
			if ui != nil {
				ui.Record(r, e)
			}
		}}
	svc := &indexer.Service{
		Follower: &indexer.Follower{Chain: dev.Backend(), ChainID: chainID, Index: idx, Registries: cfg.Registries, Triggers: cfg.Triggers, Log: log},
		Starter:  &indexer.Starter{Chain: dev.Backend(), Index: idx, Store: store, Source: source, Finality: cfg.Finality, Confirmations: cfg.Confirmations, Log: log},
		Poll:     100 * time.Millisecond, Log: log,
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); svc.Run(ctx) }()
	go func() { defer wg.Done(); m.Run(ctx) }()

	owner := strings.ToLower(dev.Address(0).Hex())
	demo := jsons[indexOf(ids, c.String("flow"))]
	for i := 1; i <= c.Int("orders"); i++ {
		select {
		case <-ctx.Done():
		case <-time.After(c.Duration("every")):
			if _, err := reg.Put(ctx, sender, fmt.Sprintf("order-%d", i), demo); err != nil {
				log.Error("demo order", "err", err)
			} else {
				say("xgr dev: registered order-%d (a trigger event)\n", i)
			}
		}
	}
	for c.Bool("exit-when-done") && ctx.Err() == nil {
		list, _ := store.Sessions(ctx, owner, 0, 1000, true)
		done := 0
		for _, s := range list {
			if meta, _ := store.Session(ctx, s.Root); meta["status"] == "finished" {
				if !finished[s.Root.String()] {
					finished[s.Root.String()] = true
					say("xgr dev: session %d finished\n", s.Root.RootPid)
				}
				done++
			}
		}
		if done >= demos {
			say("xgr dev: all %d sessions finished\n", demos)
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !c.Bool("exit-when-done") {
		<-ctx.Done()
	}
	cancel()
	wg.Wait()
	return nil
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
func firstStep(jsons [][]byte, ids []string, id string) string {
	o, err := registry.Parse(jsons[indexOf(ids, id)])
	if err != nil || len(o.Steps) == 0 {
		return "A1"
	}
	return o.Steps[0].ID
}
