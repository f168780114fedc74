package main

import (
	"context"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/redis/go-redis/v9"
	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/evidence"
	"github.com/xgr-sidecar/xgr/grant"
	"github.com/xgr-sidecar/xgr/logseal"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/rulesource"
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

// evidenceWiring is what the evidence flags built: the grant store (always),
// the bundle store (nil without --log-bundles) and the opener of encrypted
// rules (nil without xgr's read key).
type evidenceWiring struct {
	Grants  *grant.Store
	Bundles *evidence.Store
	Opener  rulesource.Opener
	// Keys is the XRC-563 key registry of --key-registry (nil without).
	Keys *chain.KeyRegistry
}

// wireEvidence builds the evidence wiring. b is the node (nil without
// --rpc): --key-registry needs it.
func wireEvidence(c *cli.Context, rdb redis.UniversalClient, b chain.Backend) (*evidenceWiring, error) {
	cmd := cmdName(c)
	w := &evidenceWiring{Grants: grant.New(rdb)}
	var keys *chain.KeyRegistry
	if c.String(keyRegistryFlag().Name) != "" {
		addr, err := addressFlag(c, keyRegistryFlag().Name)
		if err != nil {
			return nil, err
		}
		if b == nil {
			return nil, cli.Exit(cmd+": --key-registry needs --rpc: the readers' keys are read from the chain", 2)
		}
		keys = chain.NewKeyRegistry(addr, b)
		w.Keys = keys
	}
	if c.Bool("log-bundles") {
		cfg := evidence.Config{Grants: w.Grants, DefaultDays: c.Uint64("log-expire-days"), MaxDays: c.Uint64("log-max-days"), Day: c.Duration("log-day")}
		if keys != nil {
			cfg.Sealer = &logseal.Sealer{Keys: keys}
		}
		st, err := evidence.New(rdb, cfg)
		if err != nil {
			return nil, cli.Exit(fmt.Sprintf("%s: --log-expire-days, --log-max-days: %v", cmd, err), 2)
		}
		w.Bundles = st
	}
	key, ok, err := engineReadKey(c)
	if err != nil {
		return nil, err
	}
	if ok {
		var account string
		if a := c.String("read-key-account"); a != "" {
			if account, err = grant.NormalizeAddress(a); err != nil {
				return nil, cli.Exit(fmt.Sprintf("%s: --read-key-account: %v", cmd, err), 2)
			}
		}
		w.Opener = rulesource.NewKeyOpener(key, w.Grants, account, b, time.Now)
	}
	return w, nil
}

// devBundles is xgr dev's evidence: with --log-bundles, a bundle store with
// the default lifetimes and its grant store; nil, nil otherwise.
func devBundles(c *cli.Context, rdb redis.UniversalClient) (*evidence.Store, *grant.Store, error) {
	if !c.Bool("log-bundles") {
		return nil, nil, nil
	}
	gs := grant.New(rdb)
	st, err := evidence.New(rdb, evidence.Config{Grants: gs})
	return st, gs, err
}

// consoleBundles is the store the console reads log bundles with: the
// replica's (with --log-bundles), else one that only reads, as `xgr
// session log` does (other replicas may write them).
func consoleBundles(rdb redis.UniversalClient, st *evidence.Store, grants *grant.Store) *evidence.Store {
	if st != nil {
		return st
	}
	st, err := evidence.New(rdb, evidence.Config{Grants: grants})
	if err != nil {
		return nil // the defaults are valid; nil: the console reads no bundles
	}
	return st
}

// bundleWriter is st as a reactor.BundleWriter: nil (off) when st is nil.
func bundleWriter(st *evidence.Store) reactor.BundleWriter {
	if st == nil {
		return nil
	}
	return st
}

// chainRules reads rule contracts for the gateway (rpc.RuleReader).
type chainRules struct{ b chain.Backend }

// RuleOwner implements rpc.RuleOwners: the rule contract's owner() and
// the RID of its encryption header.
func (r chainRules) RuleOwner(ctx context.Context, contract common.Address) (common.Address, common.Hash, error) {
	rule := chain.NewRule(contract, r.b)
	owner, err := rule.Owner(ctx)
	if err != nil {
		return common.Address{}, common.Hash{}, err
	}
	enc, err := rule.Encryption(ctx)
	return owner, enc.RID, err
}

// RuleText implements rpc.RuleReader.
func (r chainRules) RuleText(ctx context.Context, contract common.Address) (string, bool, error) {
	st, err := chain.NewRule(contract, r.b).Stored(ctx)
	return st.Text, st.Encrypted, err
}
