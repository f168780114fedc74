package demo

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/xgr-sidecar/xgr/devnet"
	"github.com/xgr-sidecar/xgr/devnet/deploy"
	"github.com/xgr-sidecar/xgr/internal/redisserver"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/replica"
	"github.com/xgr-sidecar/xgr/txmanager"
)

// Dev is one `xgr dev` run: the demo deployed on an in-process chain, a
// private redis-server, one replica following the registry and the demo's
// driver, until every demo session finished or ctx ends.
type Dev struct {
	Chain *devnet.Chain
	// Orchs are the orchestrations of --ostc-dir; Flow is the one the
	// orders trigger.
	Orchs []*registry.Orchestration
	Flow  string
	// Rules are the rule files deployed as XRC-137 contracts (nil: the
	// steps play Scripted, read from OutcomesFile).
	Rules        *deploy.RuleFiles
	RulesDir     string
	Scripted     *reactor.Scripted
	OutcomesFile string
	// Wake runs the two-session wake-up flow; WakeNote is said first.
	Wake     bool
	WakeNote string
	// Orders demo orders are registered, one every Every.
	Orders       int
	Every        time.Duration
	ExitWhenDone bool
	// Timeline prints every event of every session.
	Timeline   bool
	LogBundles bool
	// The replica's front doors.
	Gateway         *replica.Gateway
	Console         *replica.Console
	Listeners       []replica.Listener
	ControlContract common.Address
	// ControlShown is how the control contract was given (--rpc-precompile).
	ControlShown string
	// Out gets the demo's lines and the summary table.
	Out io.Writer
	Log *slog.Logger
}

// Run deploys the demo, runs it and writes the summary table of every
// session it saw. A *replica.Error comes back as it is.
func (dv *Dev) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, dev, orchs := dv.Out, dv.Chain, dv.Orchs
	d, err := Deploy(ctx, dev, orchs, dv.Rules, dv.RulesDir, dv.Flow)
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
	cfg, err := TriggerConfig(reg.Address, orders.Address, dv.Flow, StartStep(orchs, dv.Flow))
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
	var watch *Watch // set before the replica runs
	rc := replica.Config{Name: "dev", Log: dv.Log, Client: rdb, Store: joinstore.Config{SessionTTL: time.Hour}, Chain: dev.Backend(),
		Index: &replica.Index{Config: *cfg, Poll: 100 * time.Millisecond}, Rules: replica.Rules{FromChain: dv.Scripted == nil, Outcomes: dv.Scripted},
		Evidence: replica.Evidence{Bundles: dv.LogBundles}, Poll: 50 * time.Millisecond, ExecPoll: 50 * time.Millisecond,
		Gateway: dv.Gateway, Console: dv.Console, Listeners: dv.Listeners, ControlContract: dv.ControlContract, HealthTimeout: time.Second,
		OnEvent: func(r joinstore.Root, e reactor.Event) {
			watch.Add(r)
			if e.Type == reactor.EvExecOutcome {
				say("%s", SettledLine(Label(r.Owner, r.RootPid, owner), e.Step, e.Detail))
			}
			if dv.Timeline {
				say("session %-4s %-13s %-6s %-8s %s\n", Label(r.Owner, r.RootPid, owner), e.Type, e.Pid, e.Step, e.Detail)
			}
		}}
	if settle != nil {
		policy, key := settle.Executor(dev)
		rc.Executions = &replica.Executions{Policy: policy, Key: key, Finality: txmanager.Finality{Mode: "confirmations", Confirmations: 1}, Poll: 50 * time.Millisecond}
	}
	rep, err := replica.New(ctx, rc)
	if err != nil {
		return err
	}
	defer rep.Close()
	chainID := dev.ChainID().Uint64()
	fmt.Fprintf(w, "xgr dev: chain %d in-process, registry %s (block %d) with %d orchestrations, redis %s\n",
		chainID, reg.Address.Hex(), d.Block, len(orchs), srv.Addr)
	if dev.URL != "" {
		fmt.Fprintf(w, "xgr dev: the chain's JSON-RPC is %s (chain id %d; wallets and ethers.js reach the registry and rules there)\n", dev.URL, chainID)
	}
	if dv.Rules != nil {
		fmt.Fprintf(w, "xgr dev: %d XRC-137 rule contracts deployed from %s; every step runs its rule with the XRC-137 executor\n", len(dv.Rules.Files), dv.Rules.Dir)
		if settle != nil {
			fmt.Fprint(w, settle.Line(rep.Executor()))
		}
	} else {
		fmt.Fprintf(w, "xgr dev: steps play the scripted outcomes of %s (--outcomes); no rules deployed\n", dv.OutcomesFile)
	}
	if rc.Console != nil {
		fmt.Fprintf(w, "xgr dev: console http://%s/ui/\n", rep.Addrs()[0])
	}
	if url := rep.GatewayURL(); url != "" {
		fmt.Fprintf(w, "xgr dev: JSON-RPC gateway %s (chain id %d, registry %s, control contract %s)\n", url, chainID, reg.Address.Hex(), dv.ControlShown)
		fmt.Fprintf(w, "xgr dev: the registry's owner is dev account %s, private key 0x%x (a well-known development key: never use it on a real chain)\n",
			dev.Address(0).Hex(), crypto.FromECDSA(dev.Key(0)))
	}
	watch = NewWatch(rep.Store(), owner, say, dv.Log)
	runErr := make(chan error, 1)
	go func() { runErr <- rep.Run(ctx) }()

	say("%s", dv.WakeNote)
	driver := &Driver{Watch: watch, Home: owner, Orders: dv.Orders, Every: dv.Every, Flow: dv.Flow,
		ExitWhenDone: dv.ExitWhenDone, Say: say, Log: dv.Log,
		Put: func(ctx context.Context, id string, text []byte) error {
			_, err := orders.Put(ctx, d.Sender, id, text)
			return err
		}}
	if dv.Wake {
		driver.Wake = &WakeFlow{Store: rep.Store(), Source: rep.Source(), Registry: reg.Address.Hex(), Waiter: owner, Waker: strings.ToLower(dev.Address(1).Hex()),
			WaitStart: StartStep(orchs, WaitingFlow), WakeStart: StartStep(orchs, WakingFlow)}
		driver.Wake.WakerRule = dv.Rules.Contract(WakingFlow, driver.Wake.WakeStart)
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
	return err
}

// StartStep is the start step of the orchestration with the given id
// (registry.Orchestration.StartStep), "A1" when there is none.
func StartStep(orchs []*registry.Orchestration, id string) string {
	for _, o := range orchs {
		if o.ID == id && len(o.Steps) > 0 {
			return o.StartStep("")
		}
	}
	return "A1"
}
