package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/runconfig"
)

// quotaFlags are the operator's default quotas of every owner
// (docs/operating.md "Tenancy"); the config's quotas: section sets them
// too, and per owner.
func quotaFlags() []cli.Flag {
	return []cli.Flag{
		&cli.Int64Flag{Name: "quota-live-sessions", EnvVars: []string{"XGR_QUOTA_LIVE_SESSIONS"}, Usage: "most live sessions of one owner (0 = no quota; default: the config's quotas: section)"},
		&cli.Int64Flag{Name: "quota-starts-per-minute", EnvVars: []string{"XGR_QUOTA_STARTS_PER_MINUTE"}, Usage: "most sessions one owner starts in any 60 s (0 = no quota; default: the config's)"},
		&cli.Int64Flag{Name: "quota-live-processes", EnvVars: []string{"XGR_QUOTA_LIVE_PROCESSES"}, Usage: "most live processes of one owner's sessions together (0 = no quota; default: the config's)"},
	}
}

// quotasOf are the quotas of the command's config file f (its quotas:
// section) with the --quota-* flags (or XGR_QUOTA_*) as the defaults
// where given. A mistake in either is a usage error.
func quotasOf(c *cli.Context, f *runconfig.File) (joinstore.Quotas, error) {
	q := f.Quotas
	for _, f := range []struct {
		name string
		dst  *int64
	}{{"quota-live-sessions", &q.Default.LiveSessions}, {"quota-starts-per-minute", &q.Default.StartsPerMinute}, {"quota-live-processes", &q.Default.LiveProcesses}} {
		if c.IsSet(f.name) {
			*f.dst = c.Int64(f.name)
		}
	}
	if err := q.Check(); err != nil {
		return q, usageError("%s: %v", cmdName(c), err)
	}
	return q, nil
}

// ownerCommand is xgr owner: an owner's usage against its quotas.
func ownerCommand() *cli.Command {
	return &cli.Command{
		Name:      "owner",
		Usage:     "show an owner's usage against its quotas",
		ArgsUsage: "ADDRESS",
		Description: `Reads what the owner holds in Redis: its live sessions, the sessions it
started in the last minute and the live process slots its sessions hold,
each next to the quota xgr run enforces for it, from the same --config
(its quotas: section) and --quota-* flags (docs/operating.md, "Tenancy").
Reading gives back the slots of the owner's finished sessions first.

Example:
   xgr owner 0xabc… --redis redis://127.0.0.1:6379/0 --config xgr.yaml --json`,
		Flags: append(append(redisFlags(),
			&cli.StringFlag{Name: "config", Aliases: []string{"c"}, EnvVars: []string{"XGR_CONFIG"}, Usage: "xgr run's YAML config, whose quotas: section sets the quotas"},
			jsonFlag()), quotaFlags()...),
		Action: ownerAction,
	}
}

func ownerAction(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageError("%s: name one owner ADDRESS", cmdName(c))
	}
	owner := joinstore.NormalizeOwner(c.Args().First())
	if err := joinstore.CheckOwner(owner); err != nil {
		return usageError("%s: %v", cmdName(c), err)
	}
	f, err := configFile(c)
	if err != nil {
		return err
	}
	q, err := quotasOf(c, f)
	if err != nil {
		return err
	}
	return withStore(c, func(ctx context.Context, s *joinstore.Store) error {
		s.SetQuotas(q)
		now, err := s.ServerTime(ctx)
		if err != nil {
			now = time.Now()
		}
		u, err := s.Usage(ctx, owner, now)
		if err != nil {
			return cli.Exit(fmt.Sprintf("%s: %v", cmdName(c), err), exitFailed)
		}
		if c.Bool("json") {
			return json.NewEncoder(c.App.Writer).Encode(u)
		}
		limit := func(n int64) string {
			if n == 0 {
				return "no quota"
			}
			return fmt.Sprintf("quota %d", n)
		}
		_, err = fmt.Fprintf(c.App.Writer, "owner %s\n  live sessions       %d (%s)\n  starts last minute  %d (%s)\n  live process slots  %d (%s)\n",
			u.Owner, u.LiveSessions, limit(u.Quota.LiveSessions), u.StartsLastMinute, limit(u.Quota.StartsPerMinute), u.ProcessSlots, limit(u.Quota.LiveProcesses))
		return err
	})
}
