package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/rpc"
	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/internal/chain"
	"github.com/xgr-sidecar/xgr/joinstore"
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
	return withStore(c, func(ctx context.Context, s *joinstore.Store) error {
		idx := s.Index(id.Uint64())
		st := map[string]any{"chainId": id.Uint64()}
		tip, err := client.BlockNumber(ctx)
		if err != nil {
			return cli.Exit(err.Error(), 1)
		}
		st["head"] = tip
		if h, err := client.HeaderByNumber(ctx, big.NewInt(int64(rpc.FinalizedBlockNumber))); err == nil && h != nil {
			st["finalized"] = h.Number.Uint64()
		}
		if head, ok, err := idx.Head(ctx); err != nil {
			return cli.Exit(err.Error(), 1)
		} else if ok {
			st["checkpoint"], st["checkpointHash"], st["lag"] = head.Number, head.Hash.Hex(), int64(tip)-int64(head.Number)
		}
		st["cacheEntries"], _ = idx.Count(ctx, "ostc:")
		st["ownerEntries"], _ = idx.Count(ctx, "owner:")
		st["triggerStarts"], _ = idx.Count(ctx, "start:")
		st["pendingTriggers"], _ = idx.PendingCount(ctx)
		mm, _ := idx.Mismatches(ctx)
		st["mismatches"] = len(mm)
		st["ranges"], _ = idx.Ranges(ctx)
		if c.Bool("json") {
			return json.NewEncoder(c.App.Writer).Encode(st)
		}
		for _, k := range []string{"chainId", "head", "finalized", "checkpoint", "checkpointHash", "lag", "cacheEntries", "ownerEntries", "triggerStarts", "pendingTriggers", "mismatches", "ranges"} {
			if v, ok := st[k]; ok {
				fmt.Fprintf(c.App.Writer, "%-16s %v\n", k, v)
			}
		}
		return nil
	})
}
