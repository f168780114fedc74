package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/authority"
	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/reactor/wakeup"
	"github.com/xgr-sidecar/xgr/rulesource"
	"github.com/xgr-sidecar/xgr/runconfig"
	"github.com/xgr-sidecar/xgr/session"
)

// ownerArg is --owner in its key form: an EVM address, lower case (exit 2
// otherwise).
func ownerArg(c *cli.Context) (string, error) {
	owner := joinstore.NormalizeOwner(c.String("owner"))
	if err := joinstore.CheckOwner(owner); err != nil {
		return "", cli.Exit(fmt.Sprintf("%s: --owner: %v", cmdName(c), err), 2)
	}
	return owner, nil
}

func ownerFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "owner", EnvVars: []string{"XGR_OWNER"}, Usage: "session owner (0x address)", Required: true}
}

func sessionCommand() *cli.Command {
	flags := func(extra ...cli.Flag) []cli.Flag { return append(append(redisFlags(), ownerFlag()), extra...) }
	return &cli.Command{
		Name:  "session",
		Usage: "start, list, inspect and control sessions in Redis",
		Subcommands: []*cli.Command{
			{
				Name:      "start",
				Usage:     "start a session of an orchestration",
				ArgsUsage: "OSTC.json",
				Description: `Checks the request against the orchestration (start step, and with --pin
the exact hash) before anything is written, then creates the session; a
running "xgr run" picks it up. The session records the file's id as its
ostcId and its keccak256 as its ostcHash; "xgr run" must serve the same file.
Every start has an idempotency key (--key, or a generated one that is
printed): a start that failed or whose answer was lost is retried with
--key and names the same session, never a second one. "xgr session show
ROOTPID --key KEY" checks that a session is the one this start created.

With --rpc, the owner is the session's runner and must be authorized on
chain (XRC-729 §4.2): owner or executor (getExecutorList) of the --xrc729
registry and of every rule contract the file's steps reference; a
contract without getExecutorList() admits its owner only. Each reference is
resolved as "xgr run" resolves it, from the same --config (its addresses:
section binds ${addr:ALIAS} and <NAME>) and --rules DIR (XGR_CONFIG and
XGR_RULES, as xgr run reads them), then 0x addresses; a reference that does
not resolve is refused. A refused start exits 1 and writes nothing.
--xrc729 ADDRESS needs --rpc.

The start is the one every front door runs (the gateway, the console, the
config's triggers, xgr simulate): a refusal ends with its kind and JSON path,
e.g. "(payload-invalid at payload.__wakeUp)"; a request or payload that
cannot start a session (a malformed field or payload, an unknown step, a
registry without --rpc) exits 2, a failed check 1 (docs/operating.md,
"Starting a session").

Example:
   xgr session start --owner 0xabc… --step A1 --payload in.json --key order-17 flow.json
   xgr session start --owner 0xabc… --xrc729 0x5FbD… --rpc http://127.0.0.1:8545 flow.json`,
				Flags: append(flags(
					&cli.StringFlag{Name: "step", Usage: "start step (default: the document's first step)"},
					&cli.StringFlag{Name: "payload", Usage: "start payload: a JSON object file"},
					&cli.StringFlag{Name: "key", Aliases: []string{"idempotency-key"}, Usage: "idempotency key: the same key always names the same session (default: a generated one, printed; retry a failed start with it)"},
					&cli.StringFlag{Name: "pin", Usage: "run only if the orchestration's hash is this (0x…)"},
					&cli.StringFlag{Name: "xrc729", Value: "file", Usage: "registry the orchestration is recorded under (an address needs --rpc)"},
					&cli.StringFlag{Name: "rpc", EnvVars: []string{"XGR_RPC"},
						Usage: "node to check the owner's authority on: owner or executor of the registry and of every rule contract (no default)"},
					&cli.StringFlag{Name: "config", Aliases: []string{"c"}, EnvVars: []string{"XGR_CONFIG"}, Usage: "xgr run's YAML config: its quotas: section (the owner's quotas), and with --rpc its addresses: section, which binds ${addr:ALIAS} and <NAME> rule references"},
					&cli.StringFlag{Name: "rules", EnvVars: []string{"XGR_RULES"}, Usage: "with --rpc: xgr run's rule directory (--rules), which maps rule references first"},
					&cli.DurationFlag{Name: "delay", Usage: "start the first step after this long"},
					&cli.BoolFlag{Name: "paused", Usage: "create the session paused"},
					&cli.IntFlag{Name: "window", Usage: "most concurrent executions in the session (0 = no cap)"},
					jsonFlag(),
				), quotaFlags()...),
				Action: sessionStartAction,
			},
			{
				Name:  "list",
				Usage: "list an owner's sessions, newest first",
				Flags: flags(
					&cli.IntFlag{Name: "limit", Value: 20, Usage: "at most this many"},
					&cli.IntFlag{Name: "offset", Usage: "skip this many"},
					&cli.BoolFlag{Name: "asc", Usage: "oldest first"},
					&cli.StringFlag{Name: "outcome", Usage: "only finished sessions with this outcome: killed, cancelled, failed, unfulfillable, invalid or ok (docs/runtime.md#session-outcomes)"},
					jsonFlag(),
				),
				Action: sessionListAction,
			},
			{
				Name:      "show",
				Usage:     "draw a session's process tree with statuses and joins",
				ArgsUsage: "ROOTPID",
				Description: `With --key, exits 1 unless the session was started with that idempotency
key: after Redis lost acknowledged writes, a session id a start was told
may name another start's session ("not this start").`,
				Flags: flags(jsonFlag(),
					&cli.StringFlag{Name: "key", Aliases: []string{"idempotency-key"}, Usage: "exit 1 unless the session was started with this key"}),
				Action: sessionShowAction,
			},
			{
				Name:      "kill",
				Usage:     "kill whole sessions, or the given processes",
				ArgsUsage: "ROOTPID [ROOTPID...] | ROOTPID ROOTPID:ITER... | ROOTPID:ITER...",
				Flags:     flags(jsonFlag()),
				Action:    sessionKillAction,
			},
			{
				Name:      "pause",
				Usage:     "pause whole sessions, or the given processes",
				ArgsUsage: "ROOTPID [ROOTPID...] | ROOTPID ROOTPID:ITER... | ROOTPID:ITER...",
				Flags:     flags(jsonFlag()),
				Action:    func(c *cli.Context) error { return sessionPauseAction(c, true) },
			},
			{
				Name:      "resume",
				Usage:     "resume whole sessions, or the given processes",
				ArgsUsage: "ROOTPID [ROOTPID...] | ROOTPID ROOTPID:ITER... | ROOTPID:ITER...",
				Flags:     flags(jsonFlag()),
				Action:    func(c *cli.Context) error { return sessionPauseAction(c, false) },
			},
			{
				Name:      "wake",
				Usage:     "make waiting processes due now, optionally merging a payload",
				ArgsUsage: "PID | ROOTPID --step STEP",
				Description: `Pid mode wakes the one process named; step mode (--step) wakes every
process of the session that waits on STEP. Keys of the payload that start
with "_" are dropped; numbers keep every digit.

Without --caller this is an operator's wake (whoever holds the Redis URL):
no allow list is consulted. With --caller ADDR the wake is judged as an RPC
caller's: allowed when ADDR is the owner, else only when the process's
"__wakeUp" allow list names ADDR under scope "rpc" (the step's entry, else
"default"). Processes that are not woken are listed with the reason.

Example:
   xgr session wake --owner 0xabc… --payload ok.json 7:3
   xgr session wake --owner 0xabc… --step approve --caller 0xdef… 7`,
				Flags: flags(
					&cli.StringFlag{Name: "payload", Usage: "JSON object file to merge into the payload of each woken process"},
					&cli.StringFlag{Name: "step", Usage: "step mode: wake the session's processes waiting on this step"},
					&cli.StringFlag{Name: "caller", Usage: "judge the wake as this RPC caller's (0x address) against the __wakeUp allow list"},
					jsonFlag(),
				),
				Action: sessionWakeAction,
			},
			sessionLogCommand(),
		},
	}
}

// withWritableStore is withStore for a command that changes sessions: it
// runs only against a Redis the operator named (checkExplicitRedis).
func withWritableStore(c *cli.Context, f func(ctx context.Context, s *joinstore.Store) error) error {
	if err := checkExplicitRedis(c); err != nil {
		return err
	}
	return withStore(c, f)
}

// withStore opens Redis and a store for a session command.
func withStore(c *cli.Context, f func(ctx context.Context, s *joinstore.Store) error) error {
	rdb, _, err := openRedis(c)
	if err != nil {
		return err
	}
	defer rdb.Close()
	return f(c.Context, joinstore.New(rdb, storeConfig()))
}

// sessionTTL is XGR_SESSION_TTL_SECS (default 86400).
// storeConfig is the store configuration of the environment:
// XGR_SESSION_TTL_SECS, XGR_MAX_PAYLOAD (bytes; default 256 KiB),
// XGR_MAX_LIVE and XGR_MAX_STEPS (session caps; -1: none),
// XGR_SESSION_GAS_CEILING (the operator's ceiling of a session's gas
// budget; -1: none),
// XGR_MAX_RECOVERIES (recoveries of a process from an expired lease before
// it is abandoned; default 3, -1: never).
func storeConfig() joinstore.Config {
	// Real sessions: Redis's clock judges leases and due times.
	cfg := joinstore.Config{SessionTTL: sessionTTL(), ServerClock: true}
	if v, err := strconv.Atoi(os.Getenv("XGR_MAX_PAYLOAD")); err == nil && v > 0 {
		cfg.MaxPayloadBytes = v
	}
	if v, err := strconv.Atoi(os.Getenv("XGR_MAX_LIVE")); err == nil && v != 0 {
		cfg.MaxLive = v
	}
	if v, err := strconv.Atoi(os.Getenv("XGR_MAX_STEPS")); err == nil && v != 0 {
		cfg.MaxSteps = v
	}
	if v, err := strconv.ParseInt(os.Getenv("XGR_SESSION_GAS_CEILING"), 10, 64); err == nil && v != 0 {
		cfg.GasCeiling = v
	}
	if v, err := strconv.Atoi(os.Getenv("XGR_MAX_RECOVERIES")); err == nil && v != 0 {
		cfg.MaxRecoveries = v
	}
	return cfg
}

func sessionTTL() time.Duration {
	if v, err := strconv.Atoi(os.Getenv("XGR_SESSION_TTL_SECS")); err == nil && v > 0 {
		return time.Duration(v) * time.Second
	}
	return 24 * time.Hour
}

func rootArg(c *cli.Context) (joinstore.Root, []string, error) {
	args := c.Args().Slice()
	if len(args) == 0 {
		return joinstore.Root{}, nil, cli.Exit(c.Command.FullName()+": name the ROOTPID", 2)
	}
	n, err := strconv.ParseInt(args[0], 10, 64)
	if err != nil || n <= 0 {
		return joinstore.Root{}, nil, cli.Exit(fmt.Sprintf("%s: ROOTPID %q: want a positive number", c.Command.FullName(), args[0]), 2)
	}
	owner, err := ownerArg(c)
	if err != nil {
		return joinstore.Root{}, nil, err
	}
	root := joinstore.Root{Owner: owner, RootPid: n}
	if err := joinstore.CheckOwner(root.Owner); err != nil {
		return root, nil, cli.Exit(err.Error(), 2)
	}
	return root, args[1:], nil
}

func sessionStartAction(c *cli.Context) error {
	file, err := oneFile(c, "session start")
	if err != nil {
		return err
	}
	o, err := loadOSTC(file)
	if err != nil {
		return err
	}
	key := c.String("key")
	if key == "" {
		key = session.NewStartKey()
	}
	req := session.Request{Owner: c.String("owner"), Registry: c.String("xrc729"), OstcID: o.ID, OstcHash: c.String("pin"),
		Step: o.StartStep(c.String("step")), Key: key, Paused: c.Bool("paused"), Window: c.Int("window")}
	if p := c.String("payload"); p != "" {
		if req.Payload, err = readPayloadObject(p); err != nil {
			return usageError("%s: --payload %v", cmdName(c), err)
		}
	}
	now := time.Now()
	if d := c.Duration("delay"); d > 0 {
		req.WakeAt = now.Add(d)
	}
	cfgFile, err := configFile(c)
	if err != nil {
		return err
	}
	quotas, err := quotasOf(c, cfgFile)
	if err != nil {
		return err
	}
	starter := session.Starter{Source: reactor.NewStaticSource(o), Now: func() time.Time { return now }}
	if url := c.String("rpc"); url != "" {
		client, _, err := chain.Dial(c.Context, url)
		if err != nil {
			return cli.Exit(fmt.Sprintf("%s: --rpc: %v", cmdName(c), err), 1)
		}
		defer client.Close()
		rules, err := runRuleResolver(c, cfgFile)
		if err != nil {
			return err
		}
		starter.Authority = authority.NewChecker(authority.NewChainReader(client)).WithRules(rules)
	}
	return withWritableStore(c, func(ctx context.Context, s *joinstore.Store) error {
		s.SetQuotas(quotas)
		starter.Store = s
		res, err := starter.Start(ctx, req)
		if err != nil {
			return startFailed(cmdName(c), err, map[session.Kind]string{
				session.KindAuthorityRequired: "give --rpc URL (or XGR_RPC) so that the owner's authority on it and on its rule contracts can be checked",
				session.KindUnavailable:       fmt.Sprintf("start key %s: retry with --key %s; it names the same session", key, key),
			})
		}
		if c.Bool("json") {
			return json.NewEncoder(c.App.Writer).Encode(map[string]any{"ack": res.Ack, "owner": res.Root.Owner, "rootPid": res.Root.RootPid, "pid": res.Pid, "ostcHash": o.Hash.Hex(), "startKey": key})
		}
		_, err = fmt.Fprintf(c.App.Writer, "%s: session %d (root process %s) of %s, hash %s, start key %s\n", res.Ack, res.Root.RootPid, res.Pid, o.ID, o.Hash.Hex(), key)
		return err
	})
}

func sessionListAction(c *cli.Context) error {
	return withStore(c, func(ctx context.Context, s *joinstore.Store) error {
		owner, err := ownerArg(c)
		if err != nil {
			return err
		}
		var want joinstore.Outcome
		if o := c.String("outcome"); o != "" {
			if want, err = joinstore.ParseOutcome(o); err != nil {
				return cli.Exit("session list: --outcome: "+err.Error(), 2)
			}
		}
		s.CollectGarbage(ctx, owner, time.Now())
		rows, err := session.List(ctx, s, session.ListRequest{Owner: owner, Offset: c.Int("offset"), Limit: c.Int("limit"), Asc: c.Bool("asc"), Outcome: want})
		var ie *session.IndexError
		if errors.As(err, &ie) {
			return cli.Exit(err.Error(), 2)
		} else if err != nil {
			return cli.Exit(err.Error(), 1)
		}
		if c.Bool("json") {
			return json.NewEncoder(c.App.Writer).Encode(rows)
		}
		return session.WriteList(c.App.Writer, owner, c.Int("offset"), rows)
	})
}

func sessionShowAction(c *cli.Context) error {
	root, _, err := rootArg(c)
	if err != nil {
		return err
	}
	return withStore(c, func(ctx context.Context, s *joinstore.Store) error {
		v, err := session.Inspect(ctx, s, root, c.String("key"))
		if err != nil {
			return cli.Exit(err.Error(), 1)
		}
		if c.Bool("json") {
			return json.NewEncoder(c.App.Writer).Encode(v)
		}
		v.WriteText(c.App.Writer)
		return nil
	})
}

// controlTargets are the sessions or processes named by the arguments of
// xgr session kill / pause / resume (session.ParseTargets) with --owner.
func controlTargets(c *cli.Context) (string, []session.Target, error) {
	ts, err := session.ParseTargets(c.Args().Slice())
	if err != nil {
		return "", nil, usageError("%s: %v (usage: xgr %s %s)", cmdName(c), err, cmdName(c), c.Command.ArgsUsage)
	}
	owner, err := ownerArg(c)
	if err != nil {
		return "", nil, err
	}
	if err := joinstore.CheckOwner(owner); err != nil {
		return "", nil, cli.Exit(err.Error(), 2)
	}
	return owner, ts, nil
}

func sessionKillAction(c *cli.Context) error {
	owner, ts, err := controlTargets(c)
	if err != nil {
		return err
	}
	return withWritableStore(c, func(ctx context.Context, s *joinstore.Store) error {
		all := map[string]string{}
		for _, t := range ts {
			root := joinstore.Root{Owner: owner, RootPid: t.RootPid}
			res, err := reactor.Kill(ctx, s, root, time.Now(), t.Iters...)
			if err != nil {
				return cli.Exit(fmt.Sprintf("%s: session %d: %v", cmdName(c), t.RootPid, err), 1)
			}
			if len(t.Iters) == 0 && res.Live > 0 && !c.Bool("json") {
				// A whole-session kill is a mark plus a bounded first batch.
				fmt.Fprintf(c.App.Writer, "session %d killed: %d processes still live (running ones end at their commit; the replica running the session aborts the waiting rest)\n", root.RootPid, res.Live)
			}
			addResults(all, root, res.Results)
		}
		return printResults(c, all)
	})
}

// addResults adds the results of one session's processes (by iteration)
// to all, by pid.
func addResults(all map[string]string, root joinstore.Root, results map[int64]string) {
	for it, r := range results {
		all[root.Pid(it)] = r
	}
}

// printResults prints each process's result by pid, in pid order (root
// pid, then iteration).
func printResults(c *cli.Context, results map[string]string) error {
	if c.Bool("json") {
		return json.NewEncoder(c.App.Writer).Encode(results)
	}
	keys := make([]string, 0, len(results))
	for k := range results {
		keys = append(keys, k)
	}
	num := func(pid string) (int64, int64) {
		r, it, _ := joinstore.ParsePid(pid)
		return r, it
	}
	sort.Slice(keys, func(i, j int) bool {
		ri, ii := num(keys[i])
		rj, ij := num(keys[j])
		return ri < rj || ri == rj && ii < ij
	})
	for _, k := range keys {
		fmt.Fprintf(c.App.Writer, "%s %s\n", k, results[k])
	}
	return nil
}

func sessionPauseAction(c *cli.Context, pause bool) error {
	owner, ts, err := controlTargets(c)
	if err != nil {
		return err
	}
	return withWritableStore(c, func(ctx context.Context, s *joinstore.Store) error {
		all := map[string]string{}
		for _, t := range ts {
			root := joinstore.Root{Owner: owner, RootPid: t.RootPid}
			res, err := s.Pause(ctx, root, time.Now(), pause, t.Iters...)
			if err != nil {
				return cli.Exit(fmt.Sprintf("%s: session %d: %v", cmdName(c), t.RootPid, err), 1)
			}
			addResults(all, root, res)
		}
		return printResults(c, all)
	})
}

func sessionWakeAction(c *cli.Context) error {
	args := c.Args().Slice()
	step := c.String("step")
	var root joinstore.Root
	var iters []int64
	switch {
	case len(args) != 1:
		return cli.Exit("session wake: name one PID (ROOTPID:ITER), or one ROOTPID with --step", 2)
	case step != "":
		rootPid, err := strconv.ParseInt(args[0], 10, 64)
		if err != nil || rootPid <= 0 {
			return cli.Exit(fmt.Sprintf("session wake --step: %q is not a root pid (a positive decimal number)", args[0]), 2)
		}
		root.RootPid = rootPid
	default:
		rootPid, iter, err := joinstore.ParsePid(args[0])
		if err != nil {
			return cli.Exit(err.Error(), 2)
		}
		root.RootPid, iters = rootPid, []int64{iter}
	}
	owner, err := ownerArg(c)
	if err != nil {
		return err
	}
	root.Owner = owner
	caller := c.String("caller")
	if caller != "" && !wakeup.IsAddress(caller) {
		return cli.Exit(fmt.Sprintf("session wake --caller: %q is not an address (want 0x and 40 hex digits)", caller), 2)
	}
	req := reactor.WakeRequest{Runner: root.Owner, Step: step, Operator: caller == "",
		Caller: wakeup.Caller{Scope: wakeup.ScopeRPC, Address: caller}}
	if p := c.String("payload"); p != "" {
		raw, err := readPayloadObject(p)
		if err != nil {
			return usageError("%s: --payload %v", cmdName(c), err)
		}
		if req.Overlay, err = reactor.ParseWakePayload(raw); err != nil {
			return cli.Exit(fmt.Sprintf("%s: %v", p, err), 2)
		}
	}
	by := "operator"
	if caller != "" {
		by = "rpc caller " + caller
	}
	return withWritableStore(c, func(ctx context.Context, s *joinstore.Store) error {
		res, notes, err := reactor.Wake(ctx, s, root, "", iters, req, by, time.Now())
		if err != nil {
			return cli.Exit(err.Error(), 1)
		}
		outcome := reactor.WakeOutcome(root, step, res, notes)
		if c.Bool("json") {
			if err := json.NewEncoder(c.App.Writer).Encode(map[string]any{"woken": len(res.Woken), "processes": notes, "outcome": outcome}); err != nil {
				return err
			}
		} else if _, err := fmt.Fprintln(c.App.Writer, outcome); err != nil {
			return err
		}
		if len(res.Woken) == 0 {
			return cli.Exit("", 1)
		}
		return nil
	})
}

// runRuleResolver resolves rule references as xgr run does with the same
// config file f (its addresses: section) and --rules DIR: the rule directory
// first, then the bindings (an alias they do not bind is refused by
// name), then 0x addresses.
func runRuleResolver(c *cli.Context, f *runconfig.File) (*rulesource.Loader, error) {
	l := &rulesource.Loader{Addresses: rulesource.Addresses{}}
	if f.Addresses != nil {
		l.Addresses = f.Addresses
	}
	if dir := c.String("rules"); dir != "" {
		var err error
		if l.Files, err = rulesource.OpenDir(dir); err != nil {
			return nil, usageError("%s: --rules: %v", cmdName(c), err)
		}
	}
	return l, nil
}
