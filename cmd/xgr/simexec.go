package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/redis/go-redis/v9"
	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/execution/onchain"
	"github.com/xgr-sidecar/xgr/indexer"
	"github.com/xgr-sidecar/xgr/simulation"
)

// simulationExecutions reads --executions, the executor key flags,
// --executor and --config: with --rpc and executions enabled the steps'
// executions are sent (the same key and policy as xgr run; receipts final
// under the config's finality, else once mined); with --rpc and
// executions off each one is previewed from the would-be sender; without
// --rpc they are not performed.
func simulationExecutions(ctx context.Context, c *cli.Context, rdb redis.UniversalClient, node *ethclient.Client) (*simulation.Executions, error) {
	file, err := configFile(c)
	if err != nil {
		return nil, err
	}
	x, err := executionsOf(c, file.Executions)
	if err != nil {
		return nil, err
	}
	fin := indexer.Finality{Mode: "confirmations", Confirmations: 1}
	if file.SetsFinality {
		fin = file.Finality()
	}
	if !x.Enabled {
		if node == nil {
			return &simulation.Executions{}, nil
		}
		from, err := previewSender(c)
		if err != nil {
			return nil, err
		}
		p := &onchain.Previewer{Node: node, From: from}
		if x.Policy.AnyTarget || len(x.Policy.Targets) > 0 {
			p.Policy = &x.Policy
		}
		slog.Info("executions previewed with eth_call (no transaction is sent)", "from", from.Hex())
		return &simulation.Executions{Preview: p}, nil
	}
	s, err := startExecutions(ctx, c, x, rdb, node, fin, nil)
	if err != nil {
		return nil, err
	}
	return &simulation.Executions{Sender: s}, nil
}

// previewSender is the would-be sender of previewed executions:
// --executor, else the executor key's address when one is given
// (--executor-keystore, XGR_EXECUTOR_KEY), else the session owner.
func previewSender(c *cli.Context) (common.Address, error) {
	if a := c.String("executor"); a != "" {
		if !common.IsHexAddress(a) || len(a) != 42 {
			return common.Address{}, cli.Exit(fmt.Sprintf("simulate: --executor %q: want a 0x address (40 hex digits)", a), 2)
		}
		return common.HexToAddress(a), nil
	}
	if c.String("executor-keystore") != "" || os.Getenv(execution.KeyEnv) != "" {
		key, err := execution.LoadKey(c.String("executor-keystore"), c.String("password-file"), os.Getenv)
		if err != nil {
			return common.Address{}, cli.Exit("simulate: executions: "+err.Error(), 2)
		}
		return chain.Address(key), nil
	}
	o := c.String("owner")
	if !common.IsHexAddress(o) {
		return common.Address{}, cli.Exit(fmt.Sprintf("simulate: --owner %q: previews are sent from the owner, which must be a 0x address (or give --executor)", o), 2)
	}
	return common.HexToAddress(o), nil
}
