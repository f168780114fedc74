package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/internal/redact"
	"github.com/xgr-sidecar/xgr/rule"
	"github.com/xgr-sidecar/xgr/rulesource"
)

// Flags that connect XRC-137 evaluation to the outside (rule eval,
// simulate, run). Each call returns a new flag: urfave/cli writes into
// flags while parsing, so apps must not share them. The evaluation --rpc
// has no default and reads no environment, so an evaluation reaches a node
// only when asked to.
func allowHostFlag() *cli.StringSliceFlag {
	return &cli.StringSliceFlag{Name: "allow-host", EnvVars: []string{"XGR_ALLOW_HOST"},
		Usage: "allow API calls to a non-public host on one port: HOST:PORT, or HOST=IP:PORT to send HOST there (repeatable)"}
}

func evalRPCFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "rpc",
		Usage: "node for contract reads and for rules read from XRC-137 contracts (http, ws or IPC path; no default)"}
}

func rpcBackendFlag() *cli.StringSliceFlag {
	return &cli.StringSliceFlag{Name: "rpc-backend", EnvVars: []string{"XGR_RPC_BACKEND"},
		Usage: `serve contract reads whose "rpc" is NAME from URL: NAME=URL (repeatable); other selectors fail`}
}

// ruleWiring is what an evaluation talks to: the HTTP caller, the contract
// reader and the chain rule source (nil without --rpc).
type ruleWiring struct {
	API   *rule.HTTPCaller
	Reads *chain.Reads
	Chain *rulesource.Chain
	// Node is the --rpc client (nil without --rpc).
	Node *ethclient.Client

	clients []*ethclient.Client
}

func (w *ruleWiring) Close() {
	for _, c := range w.clients {
		c.Close()
	}
}

// wireRules builds the wiring from --allow-host, --rpc and --rpc-backend;
// a bad --allow-host is a usage error (exit 2), a node that does not answer
// a failure (exit 1).
func wireRules(ctx context.Context, c *cli.Context) (*ruleWiring, error) {
	cmd := cmdName(c)
	w := &ruleWiring{API: &rule.HTTPCaller{AllowHosts: c.StringSlice(allowHostFlag().Name)}, Reads: &chain.Reads{}}
	if err := w.API.Check(); err != nil {
		return nil, cli.Exit(fmt.Sprintf("%s: --allow-host: %v", cmd, err), 2)
	}
	dial := func(flag, url string) (*ethclient.Client, error) {
		client, id, err := chain.Dial(ctx, url)
		if err != nil {
			w.Close()
			// A node that does not answer is a failure (exit 1), as in every
			// command; a malformed URL was refused before (exit 2).
			return nil, cli.Exit(fmt.Sprintf("%s: %s: %v", cmd, flag, err), 1)
		}
		slog.Debug("connected", "flag", flag, "rpc", redact.URL(url), "chainId", id)
		w.clients = append(w.clients, client)
		return client, nil
	}
	if url := c.String(evalRPCFlag().Name); url != "" {
		client, err := dial("--rpc", url)
		if err != nil {
			return nil, err
		}
		w.Reads.Default, w.Node = client, client
		w.Chain = rulesource.NewChain(client)
	}
	for _, spec := range c.StringSlice(rpcBackendFlag().Name) {
		name, url, err := chain.ParseBackend(spec)
		if err != nil {
			w.Close()
			return nil, cli.Exit(fmt.Sprintf("%s: %v", cmd, err), 2)
		}
		client, err := dial("--rpc-backend "+name, url)
		if err != nil {
			return nil, err
		}
		if w.Reads.Backends == nil {
			w.Reads.Backends = map[string]ethereum.ContractCaller{}
		}
		w.Reads.Backends[name] = client
	}
	return w, nil
}
