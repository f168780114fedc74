package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/redis/go-redis/v9"
	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/authority"
	"github.com/xgr-sidecar/xgr/internal/redact"
	"github.com/xgr-sidecar/xgr/internal/redisserver"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/replica"
	"github.com/xgr-sidecar/xgr/rulesource"
	"github.com/xgr-sidecar/xgr/session"
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
	req := session.Request{Owner: c.String("owner"), Registry: "simulate", OstcID: o.ID, OstcHash: o.Hash.Hex(), Step: c.String("step")}
	if req.Step == "" {
		req.Step = o.Steps[0].ID
	}
	if p := c.String("payload"); p != "" {
		if req.Payload, err = os.ReadFile(p); err != nil {
			return cli.Exit(err.Error(), 2)
		}
	}
	ctx, cancel := context.WithTimeout(c.Context, c.Duration("timeout"))
	defer cancel()
	exec, scripted, node, rules, closeExec, err := simulationExecutor(ctx, c, o)
	if err != nil {
		return err
	}
	defer closeExec()
	// The session is started as every session is (the start use case), on
	// the file's text: its steps' rule references resolved as this
	// simulation runs them; with --rpc the owner is its runner, authorized
	// on the contracts they resolve to; without, nothing is read from a
	// chain.
	starter := session.Starter{Source: reactor.NewStaticSource(o), Rules: rules}
	if node != nil {
		starter.Authority = authority.NewChecker(authority.NewChainReader(node))
	}
	flipper, _ := exec.(reactor.Flipper)
	if fw, ok := exec.(reactor.FixedWait); ok {
		flipper, _ = fw.Exec.(reactor.Flipper)
	}

	rdb, shared, stop, err := simulationRedis(c)
	if err != nil {
		return err
	}
	defer stop()
	execCtx, stopExec := context.WithCancel(ctx)
	defer stopExec()
	sx, err := simulationExecutions(execCtx, c, rdb, node)
	if err != nil {
		return err
	}
	// Not a replica's store (replica.OpenStore): the caller's clock, virtual
	// under --deterministic, judges leases and due times.
	store := joinstore.New(rdb, joinstore.Config{})

	clock := time.Now().Truncate(time.Millisecond)
	now := time.Now
	var advance func(time.Time)
	if c.Bool("deterministic") {
		clock = time.UnixMilli(1_700_000_000_000)
		now = func() time.Time { return clock }
		advance = func(t time.Time) { clock = t }
	} else if scripted != nil {
		scripted.Sleep = reactor.SleepContext
	}
	w := c.App.Writer
	asJSON := c.Bool("json")
	t0 := now()
	starter.Store, starter.Now, req.Paused = store, now, shared
	res, err := starter.Start(ctx, req)
	if err != nil {
		hints := map[session.Kind]string{session.KindRuleUnresolved: "map the step's rule in --rules DIR (rules.json or a file named after the reference), give --rpc for 0x addresses, or script it with --outcomes"}
		if !c.IsSet("owner") {
			hints[session.KindNotAuthorized] = fmt.Sprintf("the owner defaults to %s: give --owner, the account that runs the session", req.Owner)
		}
		return startFailed("simulate", err, hints)
	}
	if shared {
		// Whatever happens from here on, the session goes.
		defer func() {
			if err := store.Purge(context.WithoutCancel(ctx), res.Root); err != nil {
				slog.Error("simulate: the simulated session could not be deleted from the shared Redis", "session", res.Root.String(), "err", err)
			}
		}()
		release, err := holdSession(ctx, store, res.Root, now())
		if err != nil {
			return cli.Exit("simulate: "+err.Error(), 1)
		}
		defer release()
	}
	runner := &reactor.Runner{Store: store, Orch: o, Exec: exec, Worker: "simulate", Now: now, Advance: advance,
		MaxSteps: c.Int("max-steps"), OnEvent: func(e reactor.Event) { printEvent(w, sx.describe(res.Root, e), t0, asJSON) },
		Actuator: sx.actuator(advance != nil, c.Duration("exec-poll")), Flipper: flipper, ExecPoll: c.Duration("exec-poll")}
	runErr := runner.Run(ctx, res.Root)
	// The summary is read even when the run was stopped (a signal or
	// --timeout ended ctx).
	procs, err := store.Processes(context.WithoutCancel(ctx), res.Root)
	if err != nil {
		return err
	}
	sum, err := reactor.Summarize(procs)
	if err != nil {
		return err
	}
	live := 0
	for _, p := range sum.Processes {
		if p.Status == "waiting" || p.Status == "running" {
			live++
		}
	}
	switch {
	case errors.Is(runErr, reactor.ErrStepLimit):
		sum.Stopped = fmt.Sprintf("stopped after %d executed steps (--max-steps %d); %d live process(es) not run", runner.Executed(), c.Int("max-steps"), live)
		runErr = nil
	case errors.Is(runErr, context.DeadlineExceeded):
		sum.Stopped = fmt.Sprintf("stopped by --timeout %s after %d executed steps; %d live process(es) not run", c.Duration("timeout"), runner.Executed(), live)
		runErr = errors.New(sum.Stopped)
	case errors.Is(runErr, context.Canceled):
		sum.Stopped = fmt.Sprintf("interrupted after %d executed steps; %d live process(es) not run", runner.Executed(), live)
		runErr = errors.New(sum.Stopped)
	}
	if meta, err := store.SessionMeta(context.WithoutCancel(ctx), res.Root); err == nil {
		sum.Outcome = joinstore.OutcomeOf(meta)
	}
	if asJSON {
		if err := json.NewEncoder(w).Encode(sum); err != nil {
			return err
		}
	} else {
		printSummary(w, sum)
	}
	if runErr != nil {
		return cli.Exit("simulate: "+runErr.Error(), 1)
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

// holdSession makes a session created paused on a shared Redis runnable by
// this simulation only (reactor.Holder), until release.
func holdSession(ctx context.Context, store *joinstore.Store, root joinstore.Root, now time.Time) (release func(), err error) {
	host, _ := os.Hostname()
	return reactor.Holder{Store: store, Name: fmt.Sprintf("simulate-%s-%d", host, os.Getpid())}.Hold(ctx, root, now)
}

func printEvent(w io.Writer, e reactor.Event, t0 time.Time, asJSON bool) {
	if asJSON {
		json.NewEncoder(w).Encode(struct {
			T float64 `json:"t"`
			reactor.Event
		}{e.At.Sub(t0).Seconds(), e})
		return
	}
	fmt.Fprintf(w, "%9.3fs  %-13s %-8s %-10s %s\n", e.At.Sub(t0).Seconds(), e.Type, e.Pid, e.Step, e.Detail)
}

func printSummary(w io.Writer, s reactor.Summary) {
	fmt.Fprintln(w, "\nprocesses:")
	for _, p := range s.Processes {
		valid := "-"
		if p.Valid != nil {
			valid = map[bool]string{true: "valid", false: "invalid"}[*p.Valid]
		}
		fmt.Fprintf(w, "  %-8s %-12s %-8s %-7s group %-4s parent %s%s\n", p.Pid, p.Step, p.Status, valid, p.JoinGroupID, p.ParentPid, bracketed(p.Reason))
	}
	if len(s.Joins) > 0 {
		fmt.Fprintln(w, "joins:")
	}
	for _, j := range s.Joins {
		payload := ""
		switch {
		case j.Status == reactor.JoinClosed && j.Sealed:
			payload = " payload sealed"
		case j.Status == reactor.JoinClosed:
			b, _ := json.Marshal(j.Payload)
			payload = " payload " + string(b)
		}
		fmt.Fprintf(w, "  %-8s %-12s %-13s k=%d got [%s]%s; target %s%s\n", j.Pid, j.Step, j.Status, j.K, strings.Join(j.Got, " "), payload, j.TargetStatus, bracketed(j.TargetReason))
	}
	if s.Stopped != "" {
		fmt.Fprintln(w, s.Stopped)
	}
	if s.Outcome != "" {
		fmt.Fprintf(w, "outcome: %s\n", s.Outcome)
	}
}

// bracketed is " [reason]", or "" for no reason.
func bracketed(reason string) string {
	if reason == "" {
		return ""
	}
	return " [" + reason + "]"
}

// simulationExecutor builds the step executor from --rules, --rpc,
// --rpc-backend, --allow-host, --outcomes and --wait-override. scripted is
// the outcomes executor, if any; rules resolves the steps' rule references
// as exec will run them (the start use case refuses a step it can run
// neither from a rule nor from --outcomes, and with --rpc judges the owner
// on the contracts the references resolve to).
func simulationExecutor(ctx context.Context, c *cli.Context, o *registry.Orchestration) (exec reactor.Executor, scripted *reactor.Scripted, node *ethclient.Client, rules authority.Resolver, closer func(), err error) {
	closer = func() {}
	if f := c.String("outcomes"); f != "" {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, nil, nil, nil, nil, cli.Exit(err.Error(), 2)
		}
		if scripted, err = reactor.ParseOutcomes(raw); err != nil {
			return nil, nil, nil, nil, nil, cli.Exit("simulate: "+err.Error(), 2)
		}
		exec = scripted
	}
	if n := c.Int("max-steps"); n < 0 {
		return nil, nil, nil, nil, nil, cli.Exit(fmt.Sprintf("simulate: --max-steps %d: give a positive bound, or 0 for none", n), 2)
	}
	if c.String("rules") != "" || c.String(evalRPCFlag().Name) != "" {
		loader := &rulesource.Loader{}
		if dir := c.String("rules"); dir != "" {
			if loader.Files, err = rulesource.OpenDir(dir); err != nil {
				return nil, nil, nil, nil, nil, cli.Exit("simulate: --rules: "+err.Error(), 2)
			}
		}
		wiring, err := wireRules(ctx, c)
		if err != nil {
			return nil, nil, nil, nil, nil, err
		}
		loader.Chain = wiring.Chain
		uncovered, err := ruleSteps(ctx, "simulate", o, loader)
		if err != nil {
			wiring.Close()
			return nil, nil, nil, nil, nil, err
		}
		if len(uncovered) > 0 && scripted != nil {
			slog.Info("steps run from --outcomes", "steps", uncovered)
		}
		if exec, err = (replica.Steps{Rules: loader, API: wiring.API, Reads: wiring.Reads, Scripted: scripted}).Executor(); err != nil {
			wiring.Close()
			return nil, nil, nil, nil, nil, err
		}
		closer, node = wiring.Close, wiring.Node
		// The steps no rule source covers: without --outcomes the start
		// refuses them (rule-unresolved), with it they play scripted.
		l := loadable{rules: loader, uncovered: map[string]error{}}
		for _, id := range uncovered {
			ref := o.Step(id).Rule
			_, l.uncovered[ref] = loader.Load(ctx, ref)
		}
		rules = l
		if scripted != nil {
			rules = authority.ScriptedSteps(l)
		}
	}
	if exec == nil {
		return nil, nil, nil, nil, nil, cli.Exit("simulate: give --outcomes FILE, or --rules DIR / --rpc URL to run the steps' XRC-137 rules", 2)
	}
	if c.IsSet("wait-override") {
		secs := c.Float64("wait-override")
		if secs < 0 || math.IsNaN(secs) || secs > math.MaxInt64/float64(time.Second) {
			closer()
			return nil, nil, nil, nil, nil, cli.Exit(fmt.Sprintf("simulate: --wait-override %v: give seconds, 0 or more", secs), 2)
		}
		exec = reactor.FixedWait{Exec: exec, Wait: time.Duration(secs * float64(time.Second))}
	}
	if rules == nil {
		rules = authority.ScriptedSteps(nil)
	}
	return exec, scripted, node, rules, closer, nil
}

// loadable resolves rule references as rules does, except the ones this
// simulation cannot load (no rule file or binding, or a contract without
// --rpc), which it answers with their load error (wrapping
// rulesource.ErrNotCovered): the start use case then refuses them, or
// authority.ScriptedSteps plays them from --outcomes.
type loadable struct {
	rules     *rulesource.Loader
	uncovered map[string]error
}

func (l loadable) Resolve(ref string) (rulesource.Target, error) {
	if err, ok := l.uncovered[ref]; ok {
		return rulesource.Target{}, err
	}
	return l.rules.Resolve(ref)
}
