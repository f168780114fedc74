package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/internal/redact"
)

// Flags shared by the commands that talk to a node. Each call returns a new
// flag: urfave/cli writes into flags while parsing, so apps must not share them.
func rpcFlag() *cli.StringFlag {
	return &cli.StringFlag{
		Name: "rpc", Value: "http://127.0.0.1:8545", EnvVars: []string{"XGR_RPC"},
		Usage: "JSON-RPC endpoint of the node (http, ws or IPC path)",
	}
}

func registryFlag() *cli.StringFlag {
	return &cli.StringFlag{
		Name: "registry", EnvVars: []string{"XGR_REGISTRY"},
		Usage: "address of the XRC-729 registry contract",
	}
}

func ruleAddressFlag() *cli.StringFlag {
	return &cli.StringFlag{
		Name: "address", Usage: "address of the XRC-137 rule contract",
	}
}

func keystoreFlag() *cli.StringFlag {
	return &cli.StringFlag{
		Name: "keystore", EnvVars: []string{"XGR_KEYSTORE"},
		Usage: "sign with this encrypted keystore (v3 JSON) file instead of $" + chain.PrivateKeyEnv,
	}
}

func passwordFileFlag() *cli.StringFlag {
	return &cli.StringFlag{
		Name: "password-file", EnvVars: []string{"XGR_PASSWORD_FILE"},
		Usage: "file whose first line is the --keystore password",
	}
}

func confirmationsFlag() *cli.Uint64Flag {
	return &cli.Uint64Flag{
		Name: "confirmations", Value: 1, EnvVars: []string{"XGR_CONFIRMATIONS"},
		Usage: "blocks that must exist from the transaction's block on, itself counted, before a write is done (1 = mined)",
	}
}

func timeoutFlag() *cli.DurationFlag {
	return &cli.DurationFlag{
		Name: "timeout", Value: 2 * time.Minute,
		Usage: "give up on the node after this long (includes waiting for confirmations)",
	}
}

func forceFlag() *cli.BoolFlag {
	return &cli.BoolFlag{Name: "force", Usage: "write the document even if it does not validate"}
}

// readFlags are the flags of commands that only read from chain.
func readFlags(extra ...cli.Flag) []cli.Flag {
	return append([]cli.Flag{rpcFlag(), timeoutFlag()}, extra...)
}

// writeFlags are the flags of commands that send transactions.
func writeFlags(extra ...cli.Flag) []cli.Flag {
	return append([]cli.Flag{rpcFlag(), keystoreFlag(), passwordFileFlag(), confirmationsFlag(), timeoutFlag()}, extra...)
}

// node is a connection made for one command.
type node struct {
	ctx    context.Context
	cancel context.CancelFunc
	client *ethclient.Client
}

func (n *node) Close() {
	n.client.Close()
	n.cancel()
}

// dial connects to --rpc within --timeout.
func dial(c *cli.Context) (*node, error) {
	ctx, cancel := context.WithTimeout(c.Context, c.Duration(timeoutFlag().Name))
	url := c.String(rpcFlag().Name)
	client, id, err := chain.Dial(ctx, url)
	if err != nil {
		cancel()
		return nil, cli.Exit(err.Error(), 1)
	}
	slog.Debug("connected", "rpc", redact.URL(url), "chainId", id)
	return &node{ctx: ctx, cancel: cancel, client: client}, nil
}

// sender loads the signing key ($XGR_PRIVATE_KEY or --keystore with
// --password-file) and returns a sender that waits for --confirmations.
// dialSender connects for a write: the node and a sender with the key.
func dialSender(c *cli.Context) (*node, *chain.Sender, error) {
	n, err := dial(c)
	if err != nil {
		return nil, nil, err
	}
	s, err := n.sender(c)
	if err != nil {
		n.Close()
		return nil, nil, err
	}
	return n, s, nil
}

func (n *node) sender(c *cli.Context) (*chain.Sender, error) {
	key, err := chain.LoadKey(chain.KeySource{
		Hex:          os.Getenv(chain.PrivateKeyEnv),
		Keystore:     c.String(keystoreFlag().Name),
		PasswordFile: c.String(passwordFileFlag().Name),
	})
	if err != nil {
		return nil, cli.Exit(err.Error(), 2)
	}
	confirmations := c.Uint64(confirmationsFlag().Name)
	if confirmations == 0 {
		return nil, cli.Exit("--confirmations 0: use 1 (mined) or more", 2)
	}
	s, err := chain.NewSender(n.ctx, n.client, key, confirmations)
	if err != nil {
		return nil, cli.Exit(err.Error(), 1)
	}
	// A node that mines only on demand (anvil's default) adds no block
	// without another transaction: waiting for more than one confirmation
	// there would only run into --timeout for a mined write.
	if confirmations > 1 {
		if how := chain.MinesOnDemand(n.ctx, n.client); how != "" {
			fmt.Fprintf(c.App.ErrWriter, "xgr: --confirmations %d: the node mines only on demand (%s), so no block comes without another transaction: a write is done once it is mined\n", confirmations, how)
			s.Confirmations = 1
		}
	}
	// What a mined write still waits for, on stderr.
	s.Progress = func(msg string) { fmt.Fprintln(c.App.ErrWriter, "xgr:", msg) }
	slog.Debug("signer", "from", s.From(), "confirmations", confirmations)
	return s, nil
}

// addressFlag parses a required address flag.
func addressFlag(c *cli.Context, name string) (common.Address, error) {
	v := c.String(name)
	if v == "" {
		return common.Address{}, cli.Exit(fmt.Sprintf("%s: --%s ADDRESS is required", cmdName(c), name), 2)
	}
	if !common.IsHexAddress(v) {
		return common.Address{}, cli.Exit(fmt.Sprintf("--%s %q: want a 0x-prefixed 20-byte hex address", name, v), 2)
	}
	return common.HexToAddress(v), nil
}

// cmdName is the command's name without the program, e.g. "ostc put".
func cmdName(c *cli.Context) string {
	if name := strings.TrimPrefix(c.Command.HelpName, c.App.Name+" "); name != "" {
		return name
	}
	return c.Command.Name
}

// chainFailure turns an error from the chain into the command's exit: 1,
// with the revert reason when there is one.
func chainFailure(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := err.(cli.ExitCoder); ok {
		return err
	}
	return cli.Exit(err.Error(), 1)
}
