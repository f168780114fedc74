package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/chain"
)

func registryCommand() *cli.Command {
	return &cli.Command{
		Name:  "registry",
		Usage: "deploy XRC-729 orchestration registries",
		Subcommands: []*cli.Command{
			{
				Name:  "deploy",
				Usage: "deploy a new XRC-729 registry owned by the signer",
				Description: `Prints the new registry's address, the transaction, its block and gas.
--ostc ID=FILE stores documents at deployment (each validated like ostc put,
unless --force); --executor ADDRESS adds an executor (repeatable).

Signs with $XGR_PRIVATE_KEY or --keystore FILE --password-file FILE.

Example:
   XGR_PRIVATE_KEY=0x… xgr registry deploy --rpc http://127.0.0.1:8545 \
       --ostc minimal_join=examples/ostc/minimal_join.json`,
				Flags: writeFlags(
					&cli.StringSliceFlag{Name: "ostc", Usage: "store FILE under ID at deployment (ID=FILE, repeatable)"},
					&cli.StringSliceFlag{Name: "executor", Usage: "add this executor address at deployment (repeatable)"},
					forceFlag(), jsonFlag(),
				),
				Action: registryDeployAction,
			},
		},
	}
}

func registryDeployAction(c *cli.Context) error {
	if err := argsExactly(c, 0, ""); err != nil {
		return err
	}
	var init chain.RegistryInit
	for _, spec := range c.StringSlice("ostc") {
		id, file, ok := strings.Cut(spec, "=")
		if !ok || id == "" || file == "" {
			return cli.Exit(fmt.Sprintf("--ostc %q: want ID=FILE", spec), 2)
		}
		raw, err := os.ReadFile(file)
		if err != nil {
			return cli.Exit(err.Error(), 2)
		}
		if err := checkOSTC(c, id, file, raw, c.Bool(forceFlag().Name)); err != nil {
			return err
		}
		init.IDs = append(init.IDs, id)
		init.JSONs = append(init.JSONs, raw)
	}
	for _, e := range c.StringSlice("executor") {
		if !common.IsHexAddress(e) {
			return cli.Exit(fmt.Sprintf("--executor %q: want a 0x-prefixed 20-byte hex address", e), 2)
		}
		init.Executors = append(init.Executors, common.HexToAddress(e))
	}
	n, s, err := dialSender(c)
	if err != nil {
		return err
	}
	defer n.Close()
	g, r, err := chain.DeployRegistry(n.ctx, s, init)
	if err != nil {
		return chainFailure(err)
	}
	rep := g.DeployReport(r, s.From(), init)
	if err := printReport(c, rep); err != nil {
		return err
	}
	if !rep.Match() {
		return cli.Exit("registry deploy: the registry recorded a different hash than a file's", 1)
	}
	return nil
}
