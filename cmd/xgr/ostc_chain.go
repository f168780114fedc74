package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/registry"
)

// ostcChainCommands are the `xgr ostc` subcommands that read or write an
// XRC-729 registry on chain.
func ostcChainCommands() []*cli.Command {
	return []*cli.Command{
		{
			Name:      "put",
			Usage:     "store an orchestration file in the registry under ID (setOSTC)",
			ArgsUsage: "ID FILE",
			Description: `Validates FILE first and refuses an invalid document, or one whose "id"
differs from ID, unless --force is given. The file's bytes are stored exactly;
the output shows the transaction, its block and gas, the version the registry
assigned and the hash it recorded next to keccak256 of the file.

Signs with $XGR_PRIVATE_KEY or --keystore FILE --password-file FILE.

Example:
   xgr ostc put --registry 0x5FbD… minimal_join examples/ostc/minimal_join.json`,
			Flags:  writeFlags(registryFlag(), forceFlag(), jsonFlag()),
			Action: ostcPutAction,
		},
		{
			Name:      "get",
			Usage:     "print the exact text stored under ID (getOSTC)",
			ArgsUsage: "ID",
			Description: `Writes the stored bytes unchanged, so that
   xgr ostc get --registry A ID > f.json && xgr ostc hash f.json
prints the hash the registry recorded. --json wraps text and hash in an object.`,
			Flags: readFlags(registryFlag(), jsonFlag(),
				&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the text to this file instead of stdout"}),
			Action: ostcGetAction,
		},
		{
			Name:      "meta",
			Usage:     "show version, update time and hash of ID, checked against the stored text (getOSTCMeta)",
			ArgsUsage: "ID [FILE]",
			Description: `Compares the hash the registry recorded with keccak256 of the text it
returns and, when FILE is given, with keccak256 of FILE.

Exit status: 0 when every hash matches, 1 when one does not or ID is absent.`,
			Flags:  readFlags(registryFlag(), jsonFlag()),
			Action: ostcMetaAction,
		},
		{
			Name:   "list",
			Usage:  "list every ID in the registry with its version and hash (getAllOSTC)",
			Flags:  readFlags(registryFlag(), jsonFlag()),
			Action: ostcListAction,
		},
		{
			Name:      "delete",
			Usage:     "remove ID from the registry (deleteOSTC)",
			ArgsUsage: "ID",
			Flags:     writeFlags(registryFlag(), jsonFlag()),
			Action:    ostcDeleteAction,
		},
		ostcCoverageCommand(),
	}
}

// openRegistry dials the node and binds --registry.
func openRegistry(c *cli.Context) (*node, *chain.Registry, error) {
	addr, err := addressFlag(c, registryFlag().Name)
	if err != nil {
		return nil, nil, err
	}
	n, err := dial(c)
	if err != nil {
		return nil, nil, err
	}
	return n, chain.NewRegistry(addr, n.client), nil
}

func argsExactly(c *cli.Context, n int, usage string) error {
	if c.NArg() != n {
		return cli.Exit(strings.TrimSpace(fmt.Sprintf("%s: usage: xgr %s [flags] %s", cmdName(c), cmdName(c), usage)), 2)
	}
	return nil
}

// checkOSTC refuses a document that does not validate or whose id is not id
// (registry.CheckStored), unless force; forced problems are printed as
// warnings.
func checkOSTC(c *cli.Context, id, file string, raw []byte, force bool) error {
	problems, warnings := registry.CheckStored(raw, id)
	for _, p := range warnings {
		fmt.Fprintln(c.App.ErrWriter, located(file, "warning", p))
	}
	if len(problems) == 0 || force {
		for _, p := range problems {
			fmt.Fprintln(c.App.ErrWriter, located(file, "warning (--force)", p))
		}
		return nil
	}
	msg := fmt.Sprintf("%s: refusing %s (pass --force to store it anyway):", cmdName(c), file)
	for _, p := range problems {
		msg += "\n  " + located(file, "error", p)
	}
	return cli.Exit(msg, 1)
}

func ostcPutAction(c *cli.Context) error {
	if err := argsExactly(c, 2, "ID FILE"); err != nil {
		return err
	}
	id, file := c.Args().Get(0), c.Args().Get(1)
	raw, err := os.ReadFile(file)
	if err != nil {
		return cli.Exit(err.Error(), 2)
	}
	if err := checkOSTC(c, id, file, raw, c.Bool(forceFlag().Name)); err != nil {
		return err
	}
	n, g, err := openRegistry(c)
	if err != nil {
		return err
	}
	defer n.Close()
	s, err := n.sender(c)
	if err != nil {
		return err
	}
	w, err := g.Put(n.ctx, s, id, raw)
	if err != nil {
		return chainFailure(err)
	}
	rep := w.Report(g.Address, raw)
	if err := printReport(c, rep); err != nil {
		return err
	}
	if !rep.Match {
		return cli.Exit("ostc put: the registry recorded a different hash than the file's", 1)
	}
	return nil
}

func ostcGetAction(c *cli.Context) error {
	if err := argsExactly(c, 1, "ID"); err != nil {
		return err
	}
	id := c.Args().First()
	n, g, err := openRegistry(c)
	if err != nil {
		return err
	}
	defer n.Close()
	text, err := g.Get(n.ctx, id)
	if err != nil {
		return chainFailure(err)
	}
	out := c.App.Writer
	if path := c.String("output"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			return cli.Exit(err.Error(), 2)
		}
		defer f.Close()
		out = f
	}
	if c.Bool(jsonFlag().Name) {
		return json.NewEncoder(out).Encode(map[string]any{
			"registry": g.Address, "id": id, "hash": registry.Hash(text), "bytes": len(text), "json": string(text),
		})
	}
	_, err = out.Write(text)
	return err
}

func ostcMetaAction(c *cli.Context) error {
	if c.NArg() < 1 || c.NArg() > 2 {
		return cli.Exit("ostc meta: usage: xgr ostc meta [flags] ID [FILE]", 2)
	}
	id, file := c.Args().Get(0), c.Args().Get(1)
	var fileRaw []byte
	if file != "" {
		var err error
		if fileRaw, err = os.ReadFile(file); err != nil {
			return cli.Exit(err.Error(), 2)
		}
	}
	n, g, err := openRegistry(c)
	if err != nil {
		return err
	}
	defer n.Close()
	rep, err := g.CheckMeta(n.ctx, id, file, fileRaw)
	if err != nil {
		return chainFailure(err)
	}
	if err := printReport(c, rep); err != nil {
		return err
	}
	switch {
	case !rep.TextMatch():
		return cli.Exit("ostc meta: the recorded hash does not match the stored text", 1)
	case !rep.Match:
		return cli.Exit(fmt.Sprintf("ostc meta: %s differs from the text stored under %q", file, id), 1)
	}
	return nil
}

func ostcListAction(c *cli.Context) error {
	if err := argsExactly(c, 0, ""); err != nil {
		return err
	}
	n, g, err := openRegistry(c)
	if err != nil {
		return err
	}
	defer n.Close()
	metas, err := g.Metas(n.ctx)
	if err != nil {
		return chainFailure(err)
	}
	if c.Bool(jsonFlag().Name) {
		return json.NewEncoder(c.App.Writer).Encode(metas)
	}
	return chain.WriteFields(c.App.Writer, chain.MetaFields(metas))
}

func ostcDeleteAction(c *cli.Context) error {
	if err := argsExactly(c, 1, "ID"); err != nil {
		return err
	}
	n, g, err := openRegistry(c)
	if err != nil {
		return err
	}
	defer n.Close()
	s, err := n.sender(c)
	if err != nil {
		return err
	}
	d, err := g.Delete(n.ctx, s, c.Args().First())
	if err != nil {
		return chainFailure(err)
	}
	return printReport(c, d.Report(g.Address))
}
