package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/ethereum/go-ethereum/common"
	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/envelope"
)

// readKeyFileFlag names xgr's own read key (the engine's): a file, never
// the key itself on the command line; $XGR_READ_KEY may hold the key.
func readKeyFileFlag() *cli.StringFlag {
	return &cli.StringFlag{
		Name: "read-key-file", EnvVars: []string{envelope.ReadKeyFileEnv},
		Usage: "xgr's P-256 read key (a file from `xgr keys generate`); else $" + envelope.ReadKeyEnv + " holds the key itself",
	}
}

// engineReadKey loads xgr's read key from --read-key-file or
// $XGR_READ_KEY; ok is false when neither is given.
func engineReadKey(c *cli.Context) (key *envelope.ReadKey, ok bool, err error) {
	k, ok, err := envelope.FindReadKey(c.String(readKeyFileFlag().Name), os.Getenv(envelope.ReadKeyEnv))
	if err != nil {
		return nil, false, cli.Exit(err.Error(), 2)
	}
	return k, ok, nil
}

func keyRegistryFlag() *cli.StringFlag {
	return &cli.StringFlag{
		Name: "key-registry", Aliases: []string{"registry-key"}, EnvVars: []string{"XGR_KEY_REGISTRY"},
		Usage: "address of the XRC-563 read-key registry contract",
	}
}

func keysCommand() *cli.Command {
	return &cli.Command{
		Name:  "keys",
		Usage: "P-256 read keys: generate, show, and publish them in an XRC-563 registry",
		Description: `A read key lets its holder open encrypted rules and log bundles whose data
key was wrapped for it (XGRK2). Its public half is published on chain
(XRC-563) so that owners can wrap for it; the private half stays in a file
(PEM PKCS#8, mode 0600). See docs/authoring.md#encrypted-rules.`,
		Subcommands: []*cli.Command{
			{
				Name:      "generate",
				Usage:     "write a new P-256 read key to FILE (mode 0600; an existing FILE is never overwritten)",
				ArgsUsage: "FILE",
				Flags:     []cli.Flag{jsonFlag()},
				Action:    keysGenerateAction,
			},
			{
				Name:      "show",
				Usage:     "print the public key of the read key in FILE (65-byte SEC1, 0x-hex) and its fingerprint",
				ArgsUsage: "FILE",
				Flags:     []cli.Flag{jsonFlag()},
				Action:    keysShowAction,
			},
			{
				Name:      "register",
				Usage:     "publish the public key of the read key in FILE for the signing account (registerReadKey)",
				ArgsUsage: "[FILE]",
				Description: `The account that signs ($XGR_PRIVATE_KEY or --keystore) is the one the key
is registered for. Without FILE, xgr's own read key is registered
(--read-key-file or $XGR_READ_KEY).

Example:
   xgr keys register --key-registry 0x5FbD… reader.key`,
				Flags:  writeFlags(keyRegistryFlag(), readKeyFileFlag(), jsonFlag()),
				Action: keysRegisterAction,
			},
			{
				Name:      "lookup",
				Usage:     "print the read key ACCOUNT published (getReadKey)",
				ArgsUsage: "ACCOUNT",
				Flags:     readFlags(keyRegistryFlag(), jsonFlag()),
				Action:    keysLookupAction,
			},
			{
				Name:   "clear",
				Usage:  "remove the signing account's read key from the registry (clearReadKey)",
				Flags:  writeFlags(keyRegistryFlag(), jsonFlag()),
				Action: keysClearAction,
			},
		},
	}
}

func keysGenerateAction(c *cli.Context) error {
	if err := argsExactly(c, 1, "FILE"); err != nil {
		return err
	}
	file := c.Args().First()
	k, err := envelope.GenerateReadKey()
	if err != nil {
		return cli.Exit(err.Error(), 1)
	}
	if err := envelope.WriteReadKeyFile(file, k); err != nil {
		code := 2
		if errors.Is(err, envelope.ErrKeyFileExists) {
			code = 1
		}
		return cli.Exit(fmt.Sprintf("%s: %v", cmdName(c), err), code)
	}
	return printReport(c, chain.NewKeyView(file, k.Public()))
}

func keysShowAction(c *cli.Context) error {
	if err := argsExactly(c, 1, "FILE"); err != nil {
		return err
	}
	k, err := envelope.LoadReadKeyFile(c.Args().First())
	if err != nil {
		return cli.Exit(fmt.Sprintf("%s: %v", cmdName(c), err), 2)
	}
	return printReport(c, chain.NewKeyView(c.Args().First(), k.Public()))
}

func keysRegisterAction(c *cli.Context) error {
	if c.NArg() > 1 {
		return argsExactly(c, 1, "[FILE]")
	}
	reg, err := addressFlag(c, keyRegistryFlag().Name)
	if err != nil {
		return err
	}
	var k *envelope.ReadKey
	file := c.Args().First()
	if file != "" {
		if k, err = envelope.LoadReadKeyFile(file); err != nil {
			return cli.Exit(fmt.Sprintf("%s: %v", cmdName(c), err), 2)
		}
	} else if k, _, err = engineReadKey(c); err != nil {
		return err
	} else if k == nil {
		return cli.Exit(fmt.Sprintf("%s: give FILE, --read-key-file (or $%s) or $%s", cmdName(c), envelope.ReadKeyFileEnv, envelope.ReadKeyEnv), 2)
	}
	n, s, err := dialSender(c)
	if err != nil {
		return err
	}
	defer n.Close()
	r, err := chain.NewKeyRegistry(reg, n.client).Register(n.ctx, s, k.Public().Bytes())
	if err != nil {
		return chainFailure(err)
	}
	v := chain.NewKeyView(file, k.Public())
	from, sum := s.From(), chain.Summarize(r)
	v.Account, v.TxSummary = &from, &sum
	return printReport(c, v)
}

func keysLookupAction(c *cli.Context) error {
	if err := argsExactly(c, 1, "ACCOUNT"); err != nil {
		return err
	}
	acct := c.Args().First()
	if !common.IsHexAddress(acct) {
		return cli.Exit(fmt.Sprintf("%s: ACCOUNT %q: want a 0x-prefixed 20-byte hex address", cmdName(c), acct), 2)
	}
	reg, err := addressFlag(c, keyRegistryFlag().Name)
	if err != nil {
		return err
	}
	n, err := dial(c)
	if err != nil {
		return err
	}
	defer n.Close()
	owner := common.HexToAddress(acct)
	raw, err := chain.NewKeyRegistry(reg, n.client).ReadKey(n.ctx, owner)
	if err != nil {
		return chainFailure(err)
	}
	if len(raw) == 0 {
		return cli.Exit(fmt.Sprintf("%s: %s has no read key in registry %s", cmdName(c), owner.Hex(), reg.Hex()), 1)
	}
	pub, err := envelope.ParsePublicKey(raw)
	if err != nil {
		return cli.Exit(fmt.Sprintf("%s: the key %s registered is unusable for wrapping: %v", cmdName(c), owner.Hex(), err), 1)
	}
	v := chain.NewKeyView("", pub)
	v.Account = &owner
	return printReport(c, v)
}

func keysClearAction(c *cli.Context) error {
	if err := argsExactly(c, 0, ""); err != nil {
		return err
	}
	reg, err := addressFlag(c, keyRegistryFlag().Name)
	if err != nil {
		return err
	}
	n, s, err := dialSender(c)
	if err != nil {
		return err
	}
	defer n.Close()
	r, err := chain.NewKeyRegistry(reg, n.client).Clear(n.ctx, s)
	if err != nil {
		return chainFailure(err)
	}
	from := s.From()
	sum := chain.Summarize(r)
	if c.Bool(jsonFlag().Name) {
		return json.NewEncoder(c.App.Writer).Encode(struct {
			Account common.Address `json:"account"`
			chain.TxSummary
		}{from, sum})
	}
	return chain.WriteFields(c.App.Writer, append([]chain.Field{{Name: "account", Value: from.Hex()}, {Name: "cleared", Value: "true"}}, sum.Fields()...))
}
