package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/redis/go-redis/v9"
	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/authority"
	"github.com/xgr-sidecar/xgr/grant"
)

// ostcCoverageCommand is `xgr ostc coverage`: the OPS panel's rule executor
// coverage for one runner.
func ostcCoverageCommand() *cli.Command {
	return &cli.Command{
		Name:  "coverage",
		Usage: "check that a runner may run a registry's orchestrations: owner or executor of the registry and of every rule contract they use",
		Description: `Reads every orchestration of the registry (or the one --ostc names), collects
the XRC-137 rule contracts their steps reference by address, and reads owner()
and getExecutorList() of the registry and of each rule contract at one block.
Each contract is reported as the OPS "Rule Executor Coverage" panel does:
"has executor" (the runner is on its executor list), "owner (implicit)" (the
runner is its owner) or "missing". A contract without getExecutorList() is
owner-only. These are the checks a session start makes (XRC-729 §4.2).

Each rule contract that holds an encrypted document (an XGR1 envelope) is
also checked as xgr run would open it: with xgr's read key (--read-key-file,
or $XGR_READ_KEY) and the data key that a live READ grant (scope 1) of
--read-key-account in the grant store (the Redis of --redis) wraps for it,
else the one the contract's own encryption header holds. Without the read
key, only the grant's presence is checked. A rule xgr cannot decrypt is
reported with the reason (no read key, no READ grant, a key that does not
open).

Exit status: 0 when the runner is covered everywhere and xgr can decrypt
every encrypted rule, 1 when a contract is missing, an encrypted rule
cannot be decrypted, or an orchestration cannot be read.

Example:
   xgr ostc coverage --registry 0x5FbD… --runner 0x7099…
   xgr ostc coverage --registry 0x5FbD… --ostc minimal_join --runner 0x7099… --json`,
		// The Redis flags name the grant store, read only when
		// --read-key-account is given and a rule is encrypted.
		Flags: append(readFlags(
			&cli.StringFlag{Name: "registry", EnvVars: []string{"XGR_REGISTRY"}, Usage: "address of the XRC-729 registry contract", Required: true},
			&cli.StringFlag{Name: "runner", Usage: "the account that would run the sessions (the SessionPermit signer, a session's owner)", Required: true},
			&cli.StringFlag{Name: "ostc", Usage: "check this orchestration id only (default: every id of the registry)"},
			jsonFlag(),
			readKeyFileFlag(),
			&cli.StringFlag{Name: "read-key-account", EnvVars: []string{"XGR_READ_KEY_ACCOUNT"}, Usage: "account xgr's read key is registered for: its READ grants (scope 1, in the grant store of --redis) open encrypted rules"},
		), redisFlags()...),
		Action: ostcCoverageAction,
	}
}

func ostcCoverageAction(c *cli.Context) error {
	if err := argsExactly(c, 0, ""); err != nil {
		return err
	}
	in := authority.RegistryCheck{Runner: common.HexToAddress(c.String("runner")), Now: time.Now}
	if id := c.String("ostc"); id != "" {
		in.IDs = []string{id}
	}
	n, g, err := openRegistry(c)
	if err != nil {
		return err
	}
	defer n.Close()
	in.Registry, in.Backend = g, n.client
	if in.ReadKey, _, err = engineReadKey(c); err != nil {
		return err
	}
	if a := c.String("read-key-account"); a != "" {
		if in.Account, err = grant.NormalizeAddress(a); err != nil {
			return cli.Exit(fmt.Sprintf("%s: --read-key-account: %v", cmdName(c), err), 2)
		}
	}
	// The grant store is opened at the first encrypted rule only.
	var rdb redis.UniversalClient
	defer func() {
		if rdb != nil {
			rdb.Close()
		}
	}()
	in.Grants = func() (*grant.Store, error) {
		var err error
		rdb, _, err = openRedis(c)
		return grant.New(rdb), err
	}
	rep, err := authority.CheckRegistry(n.ctx, in)
	switch {
	case errors.Is(err, authority.ErrGrantStore):
		return cli.Exit(fmt.Sprintf("%s: %v", cmdName(c), err), 1)
	case err != nil:
		return chainFailure(err)
	}
	if c.Bool(jsonFlag().Name) {
		err = json.NewEncoder(c.App.Writer).Encode(rep)
	} else {
		err = rep.WriteText(c.App.Writer)
	}
	if err != nil {
		return err
	}
	if f := rep.Failure(); f != "" {
		return cli.Exit("ostc coverage: "+f, 1)
	}
	return nil
}
