package replica

import (
	"context"
	"fmt"
	"time"

	"github.com/xgr-sidecar/xgr/internal/build"
	"github.com/xgr-sidecar/xgr/redisconn"
)

// runChecks runs cfg.Checks at start: the Redis schema (a build that
// cannot share Redis with the recorded schema refuses), Redis's persistence settings (a
// setting that can lose acknowledged writes is a warning, with RequireAOF
// a refusal) and the owners' root pid counters (raised where Redis lost
// writes, so that no session id is reused).
func (r *Replica) runChecks(ctx context.Context) error {
	c := r.cfg.Checks
	if c == nil {
		return nil
	}
	if err := r.checkSchema(ctx, c); err != nil {
		return err
	}
	if err := r.checkDurability(ctx, c); err != nil {
		return err
	}
	r.checkCounters(ctx)
	return nil
}

// checkSchema checks this build's Redis schema against the one recorded in
// Redis (redisconn.CheckSchema): a replica whose schema cannot share Redis
// with it refuses to start, naming both and what to do.
func (r *Replica) checkSchema(ctx context.Context, c *Checks) error {
	mine, err := redisconn.BuildSchema()
	if err != nil {
		return &Error{Part: PartSchema, Err: err}
	}
	verdict, stored, err := redisconn.CheckSchema(ctx, r.rdb, mine, c.UpgradeSchema, build.Read().Version)
	if err != nil {
		return &Error{Part: PartSchema, Err: err}
	}
	switch verdict {
	case redisconn.SchemaSet, redisconn.SchemaRaised:
		r.log.Info("redis schema recorded", "schema", mine.Version, "compatibleSince", mine.CompatibleSince, "previous", stored.Version)
	case redisconn.SchemaCoexist:
		r.log.Info("redis schema is newer than this build's; sharing it (a rolling upgrade)", "schema", mine.Version, "redisSchema", stored.Version)
	}
	return nil
}

// checkDurability reads Redis's persistence settings.
func (r *Replica) checkDurability(ctx context.Context, c *Checks) error {
	nodes, err := r.store.Durability(ctx)
	if err != nil {
		if c.RequireAOF {
			return &Error{Part: PartChecks, Err: fmt.Errorf("cannot check Redis persistence: %w", err)}
		}
		r.log.Warn("cannot check Redis persistence (appendonly, appendfsync)", "err", err)
		return nil
	}
	for _, d := range nodes {
		r.log.Info("redis persistence", "node", d.Node, "appendonly", d.AppendOnly, "appendfsync", d.Fsync, "risk", d.Risk())
		if p := d.Problem(c.AcceptAOFEverysec); p != "" {
			if c.RequireAOF {
				return &Error{Part: PartChecks, Err: fmt.Errorf("redis %s: %s", d.Node, p)}
			}
			r.log.Warn("redis may lose acknowledged writes", "node", d.Node, "problem", p)
		}
	}
	return nil
}

// checkCounters raises owners' root pid counters found below sessions that
// survived (Redis lost acknowledged writes) and logs each such loss.
func (r *Replica) checkCounters(ctx context.Context) {
	repairs, err := r.store.RepairCounters(ctx)
	if err != nil {
		r.log.Warn("cannot check root pid counters against the sessions in Redis", "err", err)
	}
	for _, x := range repairs {
		r.log.Error("redis lost acknowledged writes: an owner's root pid counter was below sessions that exist; raised so that no id is reused",
			"owner", x.Owner, "counter", x.Counter, "newest", x.Newest)
	}
}

// undrained says why a stopped replica could not drain ("" when it did):
// sessions it still ran, or a Redis that does not acknowledge a write (its
// commits and lease releases did not arrive).
func (r *Replica) undrained() string {
	timeout := r.healthTimeout()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := r.store.Health(ctx, r.name); err != nil {
		return fmt.Sprintf("redis is unreachable or refuses writes (%v)", err)
	}
	if n := r.manager.Running(); n > 0 {
		return fmt.Sprintf("%d sessions were still running", n)
	}
	return ""
}

// healthTimeout is cfg.HealthTimeout, 1 s by default.
func (r *Replica) healthTimeout() time.Duration { return durationOr(r.cfg.HealthTimeout, time.Second) }
