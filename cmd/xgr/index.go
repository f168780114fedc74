package main

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/indexer"
	"github.com/xgr-sidecar/xgr/indexstore"
)

func indexCommand() *cli.Command {
	return &cli.Command{
		Name:  "index",
		Usage: "inspect the chain index (verified orchestration cache, checkpoint, triggers)",
		Subcommands: []*cli.Command{{
			Name:  "status",
			Usage: "head, finalized, checkpoint, lag, cache entries, registry owners, pending triggers, mismatches, learned log ranges",
			Flags: append(redisFlags(),
				&cli.StringFlag{Name: "rpc", EnvVars: []string{"XGR_RPC"}, Value: "http://127.0.0.1:8545", Usage: "node the index follows"},
				&cli.StringFlag{Name: "config", Aliases: []string{"c"}, EnvVars: []string{"XGR_CONFIG"}, Usage: "the YAML config of xgr run: its finality and confirmations decide when trigger logs are final (default: the rule the indexing replica recorded when it started, else auto, 12)"},
				jsonFlag()),
			Action: indexStatusAction,
		}, {
			Name:  "triggers",
			Usage: "list pending trigger starts: the block each waits for, its attempts and last error",
			Description: `A trigger start is pending until its block is final and its session is
created. A start that failed with an error that may pass (Redis
unreachable, a cluster failover) stays pending and is retried with the same
idempotency key: ATTEMPTS counts those failures and LAST ERROR shows the
last one. A definite refusal (pin mismatch, unknown start step, payload
refused) is final and no longer listed ("xgr index status" counts them).
The index is found by the chain id: --chain-id, or asked of --rpc.`,
			Flags: append(redisFlags(),
				&cli.StringFlag{Name: "rpc", EnvVars: []string{"XGR_RPC"}, Value: "http://127.0.0.1:8545", Usage: "node the index follows (asked for its chain id)"},
				&cli.Uint64Flag{Name: "chain-id", Usage: "chain id of the index (then --rpc is not asked)"},
				&cli.IntFlag{Name: "limit", Value: 100, Usage: "at most this many, oldest block first"},
				jsonFlag()),
			Action: indexTriggersAction,
		}},
	}
}

func indexTriggersAction(c *cli.Context) error {
	if c.Int("limit") <= 0 {
		return cli.Exit(fmt.Sprintf("index triggers: --limit %d: want 1 or more", c.Int("limit")), 2)
	}
	chainID := c.Uint64("chain-id")
	if chainID == 0 {
		client, id, err := chain.Dial(c.Context, c.String("rpc"))
		if err != nil {
			return cli.Exit("index triggers: "+err.Error()+" (or give --chain-id)", 1)
		}
		client.Close()
		chainID = id.Uint64()
	}
	rdb, target, err := openRedis(c)
	if err != nil {
		return err
	}
	defer rdb.Close()
	list, err := indexstore.New(rdb, chainID).PendingList(c.Context, c.Int("limit"))
	if err != nil {
		return cli.Exit("index triggers: "+target.failed(err).Error(), 1)
	}
	if c.Bool("json") {
		if list == nil {
			list = []indexstore.PendingStart{}
		}
		return json.NewEncoder(c.App.Writer).Encode(list)
	}
	return indexstore.WritePending(c.App.Writer, list)
}

func indexStatusAction(c *cli.Context) error {
	cfg, err := configFile(c)
	if err != nil {
		return err
	}
	client, id, err := chain.Dial(c.Context, c.String("rpc"))
	if err != nil {
		return cli.Exit(err.Error(), 1)
	}
	defer client.Close()
	rdb, _, err := openRedis(c)
	if err != nil {
		return err
	}
	defer rdb.Close()
	idx := indexstore.New(rdb, id.Uint64())
	st, err := indexer.Status(c.Context, client, id.Uint64(), idx)
	if err != nil {
		return cli.Exit(err.Error(), 1)
	}
	fin, source := indexer.DefaultFinality, "default: no --config, and no indexing replica has recorded its rule"
	if cfg.Path != "" {
		fin, source = cfg.Finality(), "--config "+cfg.Path
	} else if rec, ok, err := idx.Finality(c.Context); err != nil {
		return cli.Exit("index status: "+err.Error(), 1)
	} else if ok {
		fin = indexer.Finality{Mode: rec.Mode, Confirmations: rec.Confirmations}
		source = fmt.Sprintf("recorded by replica %q at %s", rec.Replica, rec.At.Format(time.RFC3339))
	}
	st["finalitySource"] = source
	if err := indexer.AddFinality(c.Context, st, client, fin); err != nil {
		return cli.Exit("index status: "+err.Error(), 1)
	}
	if c.Bool("json") {
		return json.NewEncoder(c.App.Writer).Encode(st)
	}
	for _, k := range indexer.StatusKeys {
		if v, ok := st[k]; ok {
			fmt.Fprintf(c.App.Writer, "%-16s %v\n", k, v)
		}
	}
	return nil
}
