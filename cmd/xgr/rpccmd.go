package main

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/rpc"
	"github.com/xgr-sidecar/xgr/rpc/client"
)

// rpcCommand is `xgr rpc …`: the gateway's client, signing permits with
// the key of $XGR_PRIVATE_KEY or --keystore, as a dApp would.
func rpcCommand() *cli.Command {
	flags := func(key bool, extra ...cli.Flag) []cli.Flag {
		f := []cli.Flag{
			&cli.StringFlag{Name: "endpoint", Value: "http://127.0.0.1:8645", EnvVars: []string{"XGR_RPC_ENDPOINT"}, Usage: "the xgr JSON-RPC gateway (http or ws)"},
			&cli.DurationFlag{Name: "timeout", Value: 30 * time.Second, Usage: "give up after this long"},
			jsonFlag(),
		}
		if key {
			f = append(f, keystoreFlag(), passwordFileFlag(),
				&cli.DurationFlag{Name: "expiry", Value: 5 * time.Minute, Usage: "how long the signed permit is valid (gateways refuse more than their --rpc-permit-lifetime, 1h by default)"},
				&cli.BoolFlag{Name: "unbound-permits", Usage: "sign the reference's SessionPermit and ControlPermit(V2) for start and wake instead of the bound SessionPermitV2 and ControlPermitV3 (for gateways that know only those)"})
		}
		return append(f, extra...)
	}
	return &cli.Command{
		Name:  "rpc",
		Usage: "call the xgr_* JSON-RPC gateway with signed permits (start, kill, wake, list, alive, executed)",
		Description: `The client side of the gateway (xgr run --rpc-listen, xgr dev): each verb
signs the permit its method needs (EIP-712, as wallets sign) with the key of
$` + chain.PrivateKeyEnv + ` or --keystore FILE --password-file FILE, and calls it.
start and wake sign permits bound to their request (SessionPermitV2,
ControlPermitV3: the payload, step, registry or process id are signed);
--unbound-permits signs the reference's SessionPermit and ControlPermit(V2).
See docs/rpc.md.`,
		Subcommands: []*cli.Command{
			{
				Name:      "start",
				Usage:     "start a session (xgr_validateDataTransfer with a SessionPermitV2 for your next session id, this step and payload)",
				ArgsUsage: "OSTC.json",
				Description: `The orchestration file gives the ostcId and ostcHash the permit signs; it
must be the text the registry holds. The signer must own the registry.

Example:
   xgr rpc start flow.json --orchestration 0x5FbD… --step A1 --payload in.json`,
				Flags: flags(true,
					&cli.StringFlag{Name: "orchestration", Required: true, Usage: "the XRC-729 registry's address"},
					&cli.StringFlag{Name: "step", Usage: "start step (default: the document's first step)"},
					&cli.StringFlag{Name: "payload", Usage: "start payload: a JSON object file"},
				),
				Action: rpcStartAction,
			},
			{
				Name:      "kill",
				Usage:     "kill one of your sessions (xgr_control with a ControlPermit)",
				ArgsUsage: "SESSION",
				Flags:     flags(true),
				Action:    rpcKillAction,
			},
			{
				Name:      "wake",
				Usage:     "wake a waiting process (PID) or every process of a session waiting on --step",
				ArgsUsage: "PID | SESSION --step STEP",
				Description: `Pid mode needs the session's runner as signer. Step mode may be signed by
another key on the runner's behalf (--runner ADDR, a ControlPermitV2) where
the processes' __wakeUp allow list names it under "rpc".`,
				Flags: flags(true,
					&cli.StringFlag{Name: "step", Usage: "step mode: the step the processes wait on"},
					&cli.StringFlag{Name: "runner", Usage: "the session's owner when you wake on its behalf (default: you)"},
					&cli.StringFlag{Name: "payload", Usage: "JSON object file merged into each woken process's payload"},
				),
				Action: rpcWakeAction,
			},
			{
				Name:  "list",
				Usage: "list your sessions (owner mode), or with --runner and --session the waiting steps you may wake (allow mode)",
				Flags: flags(true,
					&cli.Int64Flag{Name: "session", Usage: "one session only (allow mode: required)"},
					&cli.StringFlag{Name: "runner", Usage: "allow mode: the session's owner"},
					&cli.StringFlag{Name: "step", Usage: "allow mode: only this step"},
					&cli.IntFlag{Name: "last", Usage: "at most this many sessions (default 100)"},
					&cli.IntFlag{Name: "offset", Usage: "skip this many sessions"},
					&cli.BoolFlag{Name: "asc", Usage: "oldest first"},
				),
				Action: rpcListAction,
			},
			{
				Name:      "alive",
				Usage:     "whether a session still has a waiting or running process (xgr_sessionAlive)",
				ArgsUsage: "OWNER SESSION",
				Flags:     flags(false),
				Action:    rpcAliveAction,
			},
			{
				Name:      "executed",
				Usage:     "whether a process finished: true, false, or null when there is none (xgr_stepExecuted)",
				ArgsUsage: "OWNER SESSION ITER",
				Flags:     flags(false),
				Action:    rpcExecutedAction,
			},
		},
	}
}

// rpcCall dials the gateway (--endpoint) and runs f within --timeout;
// permits expire after --expiry and are unbound with --unbound-permits
// (rpc) or --unbound-permit (grants). An error of f fails the command
// (exit 1) with the JSON-RPC error's data.
func rpcCall(c *cli.Context, f func(ctx context.Context, cl *client.Client) error) error {
	ctx, cancel := context.WithTimeout(c.Context, c.Duration("timeout"))
	defer cancel()
	cl, err := client.Dial(ctx, c.String("endpoint"))
	if err != nil {
		return cli.Exit(fmt.Sprintf("%s: --endpoint: %v", cmdName(c), err), 1)
	}
	defer cl.Close()
	if d := c.Duration("expiry"); d > 0 {
		cl.Expiry = d
	}
	cl.Unbound = c.Bool("unbound-permits") || c.Bool("unbound-permit")
	if err := f(ctx, cl); err != nil {
		if _, ok := err.(cli.ExitCoder); ok {
			return err
		}
		return cli.Exit(fmt.Sprintf("%s: %v%s", cmdName(c), err, errorData(err)), 1)
	}
	return nil
}

// errorData renders a JSON-RPC error's data (its stable reason and path).
func errorData(err error) string {
	type dataError interface{ ErrorData() any }
	if de, ok := err.(dataError); ok && de.ErrorData() != nil {
		b, _ := json.Marshal(de.ErrorData())
		return " " + string(b)
	}
	return ""
}

func rpcKey(c *cli.Context) (*ecdsa.PrivateKey, error) {
	key, err := chain.LoadKey(chain.KeySource{Hex: os.Getenv(chain.PrivateKeyEnv), Keystore: c.String("keystore"), PasswordFile: c.String("password-file")})
	if err != nil {
		return nil, cli.Exit(fmt.Sprintf("%s: %v", cmdName(c), err), 2)
	}
	return key, nil
}

// rpcPrint prints v as JSON with --json, else the text.
func rpcPrint(c *cli.Context, v any, text string) error {
	if c.Bool("json") {
		return json.NewEncoder(c.App.Writer).Encode(v)
	}
	_, err := fmt.Fprintln(c.App.Writer, text)
	return err
}

func rpcStartAction(c *cli.Context) error {
	file, err := oneFile(c, "rpc start")
	if err != nil {
		return err
	}
	o, err := loadOSTC(file)
	if err != nil {
		return err
	}
	reg := c.String("orchestration")
	if !common.IsHexAddress(reg) {
		return cli.Exit(fmt.Sprintf("rpc start --orchestration %q: want the XRC-729 registry's address (0x and 40 hex digits)", reg), 2)
	}
	step := o.StartStep(c.String("step"))
	var payload json.RawMessage
	if p := c.String("payload"); p != "" {
		if payload, err = readPayloadObject(p); err != nil {
			return usageError("%s: --payload %v", cmdName(c), err)
		}
	}
	key, err := rpcKey(c)
	if err != nil {
		return err
	}
	return rpcCall(c, func(ctx context.Context, cl *client.Client) error {
		res, err := cl.Start(ctx, key, common.HexToAddress(reg), o.ID, o.Hash, step, payload)
		if err != nil {
			return err
		}
		return rpcPrint(c, res, fmt.Sprintf("%s: session %s of %s (process %s) of %s", res.Ack, res.SessionID, res.Owner, res.ProcessID, o.ID))
	})
}

// sessionArg reads a positive session id.
func sessionArg(c *cli.Context, s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, cli.Exit(fmt.Sprintf("%s: %q is not a session id (a positive decimal number)", cmdName(c), s), 2)
	}
	return n, nil
}

func rpcKillAction(c *cli.Context) error {
	if c.NArg() != 1 {
		return cli.Exit("rpc kill: name one SESSION", 2)
	}
	session, err := sessionArg(c, c.Args().First())
	if err != nil {
		return err
	}
	key, err := rpcKey(c)
	if err != nil {
		return err
	}
	return rpcCall(c, func(ctx context.Context, cl *client.Client) error {
		res, err := cl.Kill(ctx, key, session)
		if err != nil {
			return err
		}
		return rpcPrint(c, res, fmt.Sprintf("session %d of %s killed: %d processes affected", res.ProcessID, res.Owner, res.Affected))
	})
}

func rpcWakeAction(c *cli.Context) error {
	if c.NArg() != 1 {
		return cli.Exit("rpc wake: name one PID (ROOTPID:ITER), or one SESSION with --step", 2)
	}
	arg, step := c.Args().First(), c.String("step")
	var session int64
	var pid string
	if step != "" {
		var err error
		if session, err = sessionArg(c, arg); err != nil {
			return err
		}
	} else {
		root, _, err := joinstore.ParsePid(arg)
		if err != nil {
			return cli.Exit("rpc wake: "+err.Error(), 2)
		}
		session, pid = root, arg
	}
	var runner common.Address
	if r := c.String("runner"); r != "" {
		if !common.IsHexAddress(r) {
			return cli.Exit(fmt.Sprintf("rpc wake --runner %q: want an address (0x and 40 hex digits)", r), 2)
		}
		runner = common.HexToAddress(r)
	}
	var payload json.RawMessage
	if p := c.String("payload"); p != "" {
		var err error
		if payload, err = readPayloadObject(p); err != nil {
			return usageError("%s: --payload %v", cmdName(c), err)
		}
	}
	key, err := rpcKey(c)
	if err != nil {
		return err
	}
	return rpcCall(c, func(ctx context.Context, cl *client.Client) error {
		res, err := cl.Wake(ctx, key, runner, session, pid, step, payload)
		if err != nil {
			return err
		}
		return rpcPrint(c, res, fmt.Sprintf("woke %d process(es) of session %d of %s (%s mode)", res.Woken, res.SessionID, res.Owner, res.Mode))
	})
}

func rpcListAction(c *cli.Context) error {
	key, err := rpcKey(c)
	if err != nil {
		return err
	}
	return rpcCall(c, func(ctx context.Context, cl *client.Client) error {
		var res *rpc.ListResult
		var err error
		if r := c.String("runner"); r != "" {
			if !common.IsHexAddress(r) || c.Int64("session") <= 0 {
				return cli.Exit("rpc list: allow mode needs --runner ADDR and --session N", 2)
			}
			res, err = cl.ListAllowed(ctx, key, common.HexToAddress(r), c.Int64("session"), c.String("step"))
		} else {
			req := rpc.ListRequest{Last: c.Int("last"), Offset: c.Int("offset")}
			if c.Bool("asc") {
				req.Order = "asc"
			}
			if n := c.Int64("session"); n > 0 {
				req.RootID = strconv.FormatInt(n, 10)
			}
			res, err = cl.List(ctx, key, req)
		}
		if err != nil {
			return err
		}
		if c.Bool("json") {
			return json.NewEncoder(c.App.Writer).Encode(res)
		}
		return res.WriteText(c.App.Writer)
	})
}

func ownerSession(c *cli.Context, want int) (common.Address, int64, []string, error) {
	args := c.Args().Slice()
	if len(args) != want {
		return common.Address{}, 0, nil, cli.Exit(fmt.Sprintf("%s: want %s", cmdName(c), c.Command.ArgsUsage), 2)
	}
	if !common.IsHexAddress(args[0]) {
		return common.Address{}, 0, nil, cli.Exit(fmt.Sprintf("%s: OWNER %q is not an address (0x and 40 hex digits)", cmdName(c), args[0]), 2)
	}
	session, err := sessionArg(c, args[1])
	return common.HexToAddress(args[0]), session, args, err
}

func rpcAliveAction(c *cli.Context) error {
	owner, session, _, err := ownerSession(c, 2)
	if err != nil {
		return err
	}
	return rpcCall(c, func(ctx context.Context, cl *client.Client) error {
		alive, err := cl.SessionAlive(ctx, owner, session)
		if err != nil {
			return err
		}
		return rpcPrint(c, alive, strconv.FormatBool(alive))
	})
}

func rpcExecutedAction(c *cli.Context) error {
	owner, session, args, err := ownerSession(c, 3)
	if err != nil {
		return err
	}
	iter, perr := strconv.ParseUint(args[2], 10, 64)
	if perr != nil || iter == 0 {
		return cli.Exit(fmt.Sprintf("rpc executed: ITER %q is not an iteration (a positive decimal number)", args[2]), 2)
	}
	return rpcCall(c, func(ctx context.Context, cl *client.Client) error {
		done, err := cl.StepExecuted(ctx, owner, session, iter)
		if err != nil {
			return err
		}
		text := "null"
		if done != nil {
			text = strconv.FormatBool(*done)
		}
		return rpcPrint(c, done, text)
	})
}
