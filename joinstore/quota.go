package joinstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Quota is what one owner may hold at once, each 0 for no limit
// (docs/operating.md "Tenancy").
type Quota struct {
	// LiveSessions caps the owner's sessions that exist and have not
	// finished (paused ones count): a start over it is refused.
	LiveSessions int64 `json:"liveSessions"`
	// StartsPerMinute caps the owner's new sessions in any 60 seconds: a
	// start over it is refused. A retry of a start (its key names a
	// session) is not a new one.
	StartsPerMinute int64 `json:"startsPerMinute"`
	// LiveProcesses caps the process slots the owner's sessions hold
	// (lib/slots.lua: a bound of their live processes): a start over it is
	// refused, and a commit over it kills its session.
	LiveProcesses int64 `json:"liveProcesses"`
	// Weight is the owner's share of a replica's session slots
	// (--max-sessions) against other owners with due sessions: not a
	// limit; 0 is the default, 1 (reactor's fair pick, docs/operating.md
	// "Fair scheduling across owners").
	Weight int64 `json:"weight,omitempty"`
}

// Quotas are the operator's quotas: Default for every owner, and per
// owner (key: its address in key form, NormalizeOwner) the fields that
// differ from it: a field of an override that is 0 takes the default's,
// a negative one lifts that limit for the owner.
type Quotas struct {
	Default Quota
	Owners  map[string]Quota
}

// For is owner's quota: the default with the owner's override applied.
func (q Quotas) For(owner string) Quota {
	out := q.Default
	o, ok := q.Owners[NormalizeOwner(owner)]
	if !ok {
		return out.nonNegative()
	}
	for _, f := range []struct{ dst, src *int64 }{
		{&out.LiveSessions, &o.LiveSessions}, {&out.StartsPerMinute, &o.StartsPerMinute}, {&out.LiveProcesses, &o.LiveProcesses},
		{&out.Weight, &o.Weight},
	} {
		if *f.src != 0 {
			*f.dst = *f.src
		}
	}
	return out.nonNegative()
}

func (q Quota) nonNegative() Quota {
	return Quota{LiveSessions: max(q.LiveSessions, 0), StartsPerMinute: max(q.StartsPerMinute, 0), LiveProcesses: max(q.LiveProcesses, 0),
		Weight: max(q.Weight, 0)}
}

// DefaultWeight is the weight of an owner whose quota sets none.
const DefaultWeight = 1

// WeightOf is owner's weight (Quota.Weight; DefaultWeight when none is
// set).
func (q Quotas) WeightOf(owner string) int {
	if w := q.For(owner).Weight; w > 0 {
		return int(w)
	}
	return DefaultWeight
}

// Check refuses negative defaults and overrides whose owner is not an
// address in key form.
func (q Quotas) Check() error {
	d := q.Default
	if d.LiveSessions < 0 || d.StartsPerMinute < 0 || d.LiveProcesses < 0 || d.Weight < 0 {
		return fmt.Errorf("quotas: default %+v: want 0 (no limit; weight: the default, 1) or more for each", d)
	}
	for o, oq := range q.Owners {
		if err := CheckOwner(o); err != nil {
			return fmt.Errorf("quotas: %w", err)
		}
		if oq.Weight < 0 {
			return fmt.Errorf("quotas: owner %s: weight %d: want 0 (the default) or more", o, oq.Weight)
		}
	}
	return nil
}

// DefaultSlotChunk is how many process slots a session is granted from its
// owner's live process quota at a time (Config.SlotChunk).
const DefaultSlotChunk = 16

// The quota names, as a refusal names them.
const (
	QuotaLiveSessions    = "live-sessions"
	QuotaStartsPerMinute = "starts-per-minute"
	QuotaLiveProcesses   = "live-processes"
)

// ErrQuota: a start or a commit would take its owner over a quota.
var ErrQuota = errors.New("over the owner's quota")

// QuotaError names the quota a start would go over, its limit and what
// the owner holds; errors.Is(err, ErrQuota).
type QuotaError struct {
	Owner string
	// Quota is QuotaLiveSessions, QuotaStartsPerMinute or
	// QuotaLiveProcesses.
	Quota       string
	Limit, Used int64
}

func (e *QuotaError) Error() string {
	what := map[string]string{QuotaLiveSessions: "live sessions", QuotaStartsPerMinute: "sessions started in the last minute",
		QuotaLiveProcesses: "live process slots"}[e.Quota]
	return fmt.Sprintf("owner %s has %d %s, its %s quota is %d", e.Owner, e.Used, what, e.Quota, e.Limit)
}

func (e *QuotaError) Unwrap() error { return ErrQuota }

// quotaRefusal is alloc_root's refusal {"", "quota", raised, name, limit,
// used} as a *QuotaError.
func quotaRefusal(owner string, res []string) error {
	if len(res) < 6 {
		return fmt.Errorf("start: alloc_root refused a quota without naming it: %q", res)
	}
	limit, _ := strconv.ParseInt(res[4], 10, 64)
	used, _ := strconv.ParseInt(res[5], 10, 64)
	return &QuotaError{Owner: owner, Quota: res[3], Limit: limit, Used: used}
}

// quotaState is the quotas a store enforces, replaced whole (SetQuotas).
type quotaState struct{ q Quotas }

// SetQuotas replaces the quotas the store enforces from now on (a config
// reload). Sessions keep the process slots they were granted; a session
// started without a live process quota keeps running without one.
func (s *Store) SetQuotas(q Quotas) { s.quotas.Store(&quotaState{q: q}) }

// Quotas are the quotas the store enforces.
func (s *Store) Quotas() Quotas {
	if st := s.quotas.Load(); st != nil {
		return st.q
	}
	return Quotas{}
}

// quotaArgs are alloc_root's ARGV[8..11] for owner.
func (s *Store) quotaArgs(owner string) []any {
	q := s.Quotas().For(owner)
	return []any{q.LiveSessions, q.StartsPerMinute, q.LiveProcesses, s.cfg.SlotChunk}
}

// quotaCommit handles commit_step's QUOTA reply for a commit that would
// have live processes in c's session: it asks the owner for slots
// (grant_slots) and adds them to the session's allow, or, when the owner
// has none left, kills the session naming the quota. Either way the
// caller commits again (a killed session's commit is recorded aborted).
func (s *Store) quotaCommit(ctx context.Context, c Claim, now time.Time, err error) error {
	msg := strings.TrimPrefix(err.Error(), "ERR ")
	live, perr := strconv.ParseInt(strings.TrimSpace(strings.TrimPrefix(msg, "QUOTA")), 10, 64)
	if perr != nil {
		return err
	}
	k := keysOf(c.Root)
	allow, gerr := s.rdb.HGet(ctx, k.meta(), "allow").Int64()
	if gerr != nil {
		return fmt.Errorf("quota: read the session's allow: %w", gerr)
	}
	q := s.Quotas().For(c.Root.Owner)
	ok := ownerKeysOf(c.Root.Owner)
	res, gerr := s.eval(ctx, scriptGrantSlots, []string{ok.slots(), ok.roots(), ok.expire()},
		strconv.FormatInt(c.Root.RootPid, 10), live-allow, q.LiveProcesses, s.cfg.SlotChunk).Int64Slice()
	if gerr != nil || len(res) != 2 {
		return fmt.Errorf("quota: grant slots: %v %w", res, gerr)
	}
	if res[0] > 0 {
		return s.rdb.HIncrBy(ctx, k.meta(), "allow", res[0]).Err()
	}
	reason := fmt.Sprintf("owner quota: the session would have %d live processes and its owner %s holds %d of its %d process slots (%s)",
		live, c.Root.Owner, res[1], q.LiveProcesses, QuotaLiveProcesses)
	if kerr := s.eval(ctx, scriptKillSession, []string{k.meta()}, ms(now), reason, KillKindQuota).Err(); kerr != nil {
		return fmt.Errorf("quota: kill the session: %w", kerr)
	}
	s.MarkRoot(ctx, c.Root, now)
	return nil
}

// isQuota says that err is commit_step's QUOTA reply.
func isQuota(err error) bool {
	return err != nil && strings.HasPrefix(strings.TrimPrefix(err.Error(), "ERR "), "QUOTA ")
}

// OwnerUsage is what an owner holds against its quota.
type OwnerUsage struct {
	Owner string `json:"owner"`
	Quota Quota  `json:"quota"`
	// LiveSessions are the owner's sessions that exist and have not
	// finished; StartsLastMinute its new sessions in the last 60 s (counted
	// only while it has a starts-per-minute quota); ProcessSlots the
	// process slots its sessions hold (a bound of their live processes;
	// counted only for sessions started under a live process quota).
	LiveSessions     int64 `json:"liveSessions"`
	StartsLastMinute int64 `json:"startsLastMinute"`
	ProcessSlots     int64 `json:"processSlots"`
}

// Usage reads owner's usage against its quota; the slots of its finished
// sessions are given back first (grant_slots).
func (s *Store) Usage(ctx context.Context, owner string, now time.Time) (OwnerUsage, error) {
	owner = NormalizeOwner(owner)
	if err := CheckOwner(owner); err != nil {
		return OwnerUsage{}, err
	}
	ok := ownerKeysOf(owner)
	u := OwnerUsage{Owner: owner, Quota: s.Quotas().For(owner)}
	res, err := s.eval(ctx, scriptGrantSlots, []string{ok.slots(), ok.roots(), ok.expire()}, "", 0, 0, 0).Int64Slice()
	if err != nil || len(res) != 2 {
		return u, fmt.Errorf("usage of %s: %v %w", owner, res, err)
	}
	u.ProcessSlots = res[1]
	pipe := s.rdb.Pipeline()
	roots, expire := pipe.ZCard(ctx, ok.roots()), pipe.ZCard(ctx, ok.expire())
	starts := pipe.ZCount(ctx, ok.starts(), strconv.FormatInt(now.Add(-time.Minute).UnixMilli()+1, 10), "+inf")
	if _, err := pipe.Exec(ctx); err != nil {
		return u, fmt.Errorf("usage of %s: %w", owner, err)
	}
	u.LiveSessions, u.StartsLastMinute = max(roots.Val()-expire.Val(), 0), starts.Val()
	return u, nil
}
