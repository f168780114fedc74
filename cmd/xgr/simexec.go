package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/redis/go-redis/v9"
	"github.com/urfave/cli/v2"
	"go.yaml.in/yaml/v3"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/execution/onchain"
	"github.com/xgr-sidecar/xgr/indexer"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/rulesource"
)

// simExecutions is how `xgr simulate` treats steps' executions: sent on
// chain (sender), previewed with eth_call (preview), or neither (off:
// reported not performed).
type simExecutions struct {
	sender  execution.Actuator
	preview *onchain.Previewer
}

// simulationExecutions reads --executions, the executor key flags,
// --executor and --config: with --rpc and executions enabled the steps'
// executions are sent (the same key and policy as xgr run; receipts final
// under the config's finality, else once mined); with --rpc and
// executions off each one is previewed from the would-be sender; without
// --rpc they are not performed.
func simulationExecutions(ctx context.Context, c *cli.Context, rdb redis.UniversalClient, node *ethclient.Client) (*simExecutions, error) {
	var x execution.Config
	var err error
	fin := indexer.Finality{Mode: "confirmations", Confirmations: 1}
	if file := c.String("config"); file == "" {
		if x, _, err = executionsOf(c, "", nil); err != nil {
			return nil, err
		}
	} else {
		raw, err := os.ReadFile(file)
		if err != nil {
			return nil, cli.Exit("simulate: --config: "+err.Error(), 2)
		}
		if x, raw, err = executionsOf(c, file, raw); err != nil {
			return nil, err
		}
		// run's config: addresses: is run's; the rest gives the finality.
		if _, raw, err = rulesource.ParseAddresses(file, raw); err != nil {
			return nil, cli.Exit("simulate: "+err.Error(), 2)
		}
		ic, err := indexer.ParseConfig(file, raw)
		if err != nil {
			return nil, cli.Exit("simulate: "+err.Error(), 2)
		}
		if setsFinality(raw) {
			fin = indexer.Finality{Mode: ic.Finality, Confirmations: ic.Confirmations}
		}
	}
	if !x.Enabled {
		if node == nil {
			return &simExecutions{}, nil
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
		return &simExecutions{preview: p}, nil
	}
	s, err := startExecutions(ctx, c, x, rdb, node, fin, nil)
	if err != nil {
		return nil, err
	}
	return &simExecutions{sender: s}, nil
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

// actuator is the Runner's: the sender paced in real time on a virtual
// clock (its polls would otherwise spin), the previewer, or nil (off).
func (s *simExecutions) actuator(virtual bool, every time.Duration) execution.Actuator {
	switch {
	case s.preview != nil:
		return s.preview
	case s.sender == nil:
		return nil
	case virtual:
		return execution.Paced{Actuator: s.sender, Every: every}
	}
	return s.sender
}

// unsentTx is how the reactor describes a previewed outcome's
// transaction, which was never sent.
var unsentTx = regexp.MustCompile(`tx 0x0{64} in block 0, gas [0-9]+: `)

// describe rewrites a previewed execution's outcome line: "preview: would
// succeed (gas N)" or "preview: reverts: REASON" instead of a transaction
// that was never sent.
func (s *simExecutions) describe(root joinstore.Root, e reactor.Event) reactor.Event {
	if s.preview == nil {
		return e
	}
	if e.Type != reactor.EvExecOutcome {
		// A flip's reason quotes the reverted outcome: no transaction.
		e.Detail = unsentTx.ReplaceAllString(e.Detail, "preview: ")
		return e
	}
	key := reactor.ExecKey(root, e.Pid)
	r, ok := s.preview.Result(key + reactor.FlipKeySuffix)
	if !ok {
		if r, ok = s.preview.Result(key); !ok {
			return e
		}
	}
	const flips = "; the step flips to invalid"
	d := r.Describe()
	if strings.HasSuffix(e.Detail, flips) {
		d += flips
	}
	e.Detail = d
	return e
}

// setsFinality tells whether a config file (a YAML mapping) sets
// finality: a simulation's receipts are otherwise final once mined, where
// xgr run would wait for the node's finalized block.
func setsFinality(raw []byte) bool {
	var top map[string]yaml.Node
	if yaml.Unmarshal(raw, &top) != nil {
		return false
	}
	_, ok := top["finality"]
	return ok
}
