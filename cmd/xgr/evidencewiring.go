package main

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/evidence"
	"github.com/xgr-sidecar/xgr/grant"
	"github.com/xgr-sidecar/xgr/replica"
)

// evidenceFlags turn on log bundles and say how long they live, where the
// readers' keys are registered, and which read key (and account) xgr
// opens encrypted rules with.
func evidenceFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "log-bundles", EnvVars: []string{"XGR_LOG_BUNDLES"}, Usage: "store every executed step's log bundle (payload, saves, outcome, receipt) for its branch's logExpireDays; readable with xgr session log and xgr_getStepLog"},
		&cli.Uint64Flag{Name: "log-expire-days", Value: evidence.DefaultDays, EnvVars: []string{"XGR_LOG_EXPIRE_DAYS"}, Usage: "lifetime of a bundle whose branch sets no logExpireDays (days)"},
		&cli.Uint64Flag{Name: "log-max-days", Value: evidence.DefaultMaxDays, EnvVars: []string{"XGR_LOG_MAX_DAYS"}, Usage: fmt.Sprintf("cap of logExpireDays (days, at most %d)", evidence.HardMaxDays)},
		&cli.DurationFlag{Name: "log-day", Value: 24 * time.Hour, EnvVars: []string{"XGR_LOG_DAY"}, Hidden: true, Usage: "length of a day of bundle and grant lifetimes (tests; default 24h)"},
		keyRegistryFlag(),
		readKeyFileFlag(),
		&cli.StringFlag{Name: "read-key-account", EnvVars: []string{"XGR_READ_KEY_ACCOUNT"}, Usage: "account xgr's read key is registered for: grants to it (scope 1) open encrypted rules"},
	}
}

// evidenceOf is the evidence of the flags: log bundles with
// --log-bundles and their lifetimes, the XRC-563 key registry of
// --key-registry (it needs --rpc), xgr's read key and the account it is
// registered for.
func evidenceOf(c *cli.Context) (replica.Evidence, error) {
	cmd := cmdName(c)
	ev := replica.Evidence{Bundles: c.Bool("log-bundles"), DefaultDays: c.Uint64("log-expire-days"), MaxDays: c.Uint64("log-max-days"), Day: c.Duration("log-day")}
	if c.String(keyRegistryFlag().Name) != "" {
		addr, err := addressFlag(c, keyRegistryFlag().Name)
		if err != nil {
			return ev, err
		}
		if c.String("rpc") == "" {
			return ev, cli.Exit(cmd+": --key-registry needs --rpc: the readers' keys are read from the chain", 2)
		}
		ev.KeyRegistry = &addr
	}
	key, ok, err := engineReadKey(c)
	if err != nil {
		return ev, err
	}
	if ok {
		ev.ReadKey = key
		if a := c.String("read-key-account"); a != "" {
			if ev.ReadKeyAccount, err = grant.NormalizeAddress(a); err != nil {
				return ev, cli.Exit(fmt.Sprintf("%s: --read-key-account: %v", cmd, err), 2)
			}
		}
	}
	return ev, nil
}
