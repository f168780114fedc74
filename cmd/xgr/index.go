package main

import (
	"encoding/json"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/indexer"
	"github.com/xgr-sidecar/xgr/indexstore"
	"github.com/xgr-sidecar/xgr/internal/chain"
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
				jsonFlag()),
			Action: indexStatusAction,
		}},
	}
}

func indexStatusAction(c *cli.Context) error {
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
	st, err := indexer.Status(c.Context, client, id.Uint64(), indexstore.New(rdb, id.Uint64()))
	if err != nil {
		return cli.Exit(err.Error(), 1)
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
