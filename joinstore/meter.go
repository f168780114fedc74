package joinstore

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// MeterRetention is how long a day of the meter is kept in Redis after its
// last update (docs/operating.md "Metering and billing").
const MeterRetention = 90 * 24 * time.Hour

// MeterDayLayout is how a meter day is written: the UTC date.
const MeterDayLayout = "2006-01-02"

// meterSampledProcs bounds the process records whose memory a session's
// metering reads; past it their total is extrapolated.
const meterSampledProcs = 32

// MeterDay is the UTC day t falls on, as the meter's keys name it.
func MeterDay(t time.Time) string { return t.UTC().Format(MeterDayLayout) }

// The meter's fields (a day's hash, DayUsage).
const (
	meterSessions = "sessions"
	meterSteps    = "steps"
	meterGas      = "gas"
	meterDuration = "durationMs"
	meterBytes    = "bytes"
)

// DayUsage is what one owner's sessions that finished on one UTC day used:
// the billing meter (Store.Meter).
type DayUsage struct {
	Owner string `json:"owner"`
	// Day is the UTC date the sessions finished on (MeterDayLayout).
	Day string `json:"day"`
	// Sessions counts the owner's sessions that finished that day; Steps
	// the steps they committed.
	Sessions int64 `json:"sessions"`
	Steps    int64 `json:"steps"`
	// Gas is the gas their steps used: validation gas and the gas of
	// their executions' transactions (SessionMeta.GasUsed, what the
	// sessions' gas budgets counted).
	Gas int64 `json:"gas"`
	// DurationMs sums the sessions' lifetimes, from their start to their
	// end (milliseconds).
	DurationMs int64 `json:"durationMs"`
	// Bytes sums what the sessions held in Redis at their end (MEMORY
	// USAGE of their records; see meterBytes), a sampled estimate.
	Bytes int64 `json:"bytes"`
}

// SessionUsage is what metering one finished session added (Store's
// meter hook, SetMeterHook).
type SessionUsage struct {
	Root                          Root
	Day                           string
	Steps, Gas, DurationMs, Bytes int64
}

// meterKeys are an owner's meter keys of one day, under the owner's tag.
func (k ownerKeys) meter(day string) string   { return k.prefix + "meter:" + day }
func (k ownerKeys) metered(day string) string { return k.prefix + "metered:" + day }

// meterOwnersKey is the index of the owners metered on day: a sorted set,
// owner by the gas their sessions of that day used (outside every
// owner's tag; each write is its own command).
func meterOwnersKey(day string) string { return "xgr:meter:owners:" + day }

// SetMeterHook sets what is told of each session the store meters (once
// per session across replicas: only the call that metered it); nil: none.
func (s *Store) SetMeterHook(f func(SessionUsage)) {
	if f == nil {
		s.meterHook.Store(nil)
		return
	}
	s.meterHook.Store(&f)
}

// meterSession adds a finished session to its owner's meter of the day it
// finished (lua/meter_session.lua), once however often it is called. The
// callers call it before the session leaves the global root index, so a
// replica that stops in between leaves the session there and the next
// one to look meters it (MarkFinished): exactly once. It returns whether
// this call metered it (ZINCRBY of the owners' index is the caller's, with
// the gas, in the pipeline that takes the session out of the root index).
func (s *Store) meterSession(ctx context.Context, root Root, now time.Time) (SessionUsage, bool) {
	u, err := s.sessionUsage(ctx, root, now)
	if err == errNotFinished {
		return u, false
	}
	if err != nil {
		s.meterErr(root, err)
		return u, false
	}
	ok := ownerKeysOf(root.Owner)
	var res *redis.Cmd
	err = s.pipelined(ctx, func(p redis.Pipeliner) {
		// The index first: a day whose bucket exists is always listed.
		p.ZAddNX(ctx, meterOwnersKey(u.Day), redis.Z{Member: root.Owner})
		p.Expire(ctx, meterOwnersKey(u.Day), MeterRetention)
		res = scriptMeterSession.EvalSha(ctx, p, []string{ok.meter(u.Day), ok.metered(u.Day)},
			root.RootPid, int64(MeterRetention/time.Second), meterSessions, 1, meterSteps, u.Steps, meterGas, u.Gas,
			meterDuration, u.DurationMs, meterBytes, u.Bytes)
	})
	if err != nil && isNoScript(err) {
		res = scriptMeterSession.Run(ctx, s.rdb, []string{ok.meter(u.Day), ok.metered(u.Day)},
			root.RootPid, int64(MeterRetention/time.Second), meterSessions, 1, meterSteps, u.Steps, meterGas, u.Gas,
			meterDuration, u.DurationMs, meterBytes, u.Bytes)
		err = res.Err()
	}
	if err != nil {
		s.meterErr(root, err)
		return u, false
	}
	if n, _ := res.Int64(); n != 1 {
		return u, false
	}
	if f := s.meterHook.Load(); f != nil {
		(*f)(u)
	}
	return u, true
}

// errNotFinished: the session to meter has not finished (or is gone).
var errNotFinished = errors.New("the session has not finished")

func isNoScript(err error) bool { return err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") }

// meterErr logs a metering that failed; the session stays unmetered.
func (s *Store) meterErr(root Root, err error) {
	if s.cfg.Log != nil {
		s.cfg.Log.Warn("metering a finished session failed: its usage is not billed", "session", root.String(), "err", err)
	}
}

// meterOwnersIndex adds a metered session's gas to the owners' index of
// its day (the top owners' ranking), in p.
func meterOwnersIndex(ctx context.Context, p redis.Pipeliner, u SessionUsage) {
	p.ZIncrBy(ctx, meterOwnersKey(u.Day), float64(u.Gas), u.Root.Owner)
}

// sessionUsage reads what a finished session used (one round trip: its
// meta and the memory of its records). The day is the one its finishedAt
// names (now when the meta has none).
func (s *Store) sessionUsage(ctx context.Context, root Root, now time.Time) (SessionUsage, error) {
	k := keysOf(root)
	var meta *redis.MapStringStringCmd
	var recs, procs []*redis.IntCmd
	err := s.pipelined(ctx, func(p redis.Pipeliner) {
		meta = p.HGetAll(ctx, k.meta())
		for _, key := range k.records() {
			recs = append(recs, p.MemoryUsage(ctx, key))
		}
		for it := int64(1); it <= meterSampledProcs; it++ {
			procs = append(procs, p.MemoryUsage(ctx, k.proc(it)))
		}
	})
	if err != nil && err != redis.Nil {
		return SessionUsage{}, fmt.Errorf("meter %s: %w", root, err)
	}
	fields, err := meta.Result()
	if err != nil {
		return SessionUsage{}, fmt.Errorf("meter %s: meta: %w", root, err)
	}
	m, err := ParseSessionMeta(fields)
	if err != nil {
		return SessionUsage{}, fmt.Errorf("meter %s: %w", root, err)
	}
	if m.Status != SessionFinished {
		// Gone (never created, or expired) or still live: nothing to bill
		// now; a live session is metered when it finishes.
		return SessionUsage{}, errNotFinished
	}
	return usageOf(root, m, sizes(recs), sizes(procs), now), nil
}

func sizes(cmds []*redis.IntCmd) []int64 {
	out := make([]int64, len(cmds))
	for i, c := range cmds {
		out[i] = c.Val()
	}
	return out
}

// usageOf is what a finished session's meta and the memory of its records
// bill: recs are the sizes of its session-level records, procs those of
// its first process records (0 for none). Bytes: the records' sum, and
// the sampled process records' sum scaled to the session's processes
// (meta.Iter) when it has more than were sampled.
func usageOf(root Root, m SessionMeta, recs, procs []int64, now time.Time) SessionUsage {
	end := m.FinishedAt
	if end.IsZero() {
		end = now
	}
	u := SessionUsage{Root: root, Day: MeterDay(end), Steps: max(m.Steps, 0), Gas: max(m.GasUsed, 0)}
	if !m.CreatedAt.IsZero() && end.After(m.CreatedAt) {
		u.DurationMs = end.Sub(m.CreatedAt).Milliseconds()
	}
	for _, b := range recs {
		u.Bytes += b
	}
	var pb int64
	for _, b := range procs {
		pb += b
	}
	if n := int64(len(procs)); m.Iter > n && n > 0 {
		pb = pb * m.Iter / n
	}
	u.Bytes += pb
	return u
}

// Meter reads owner's meter from day from to day to (UTC dates, both
// included; MeterDayLayout), one DayUsage per day that has one, oldest
// first. The range is at most MeterRetention long.
func (s *Store) Meter(ctx context.Context, owner string, from, to time.Time) ([]DayUsage, error) {
	if err := CheckOwner(owner); err != nil {
		return nil, err
	}
	days, err := meterDays(from, to)
	if err != nil {
		return nil, err
	}
	ok := ownerKeysOf(owner)
	cmds := make([]*redis.MapStringStringCmd, len(days))
	if err := s.pipelined(ctx, func(p redis.Pipeliner) {
		for i, d := range days {
			cmds[i] = p.HGetAll(ctx, ok.meter(d))
		}
	}); err != nil {
		return nil, fmt.Errorf("meter of %s: %w", owner, err)
	}
	var out []DayUsage
	for i, c := range cmds {
		if len(c.Val()) == 0 {
			continue
		}
		u, err := parseDayUsage(owner, days[i], c.Val())
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, nil
}

// MeteredOwners lists the owners metered on day, sorted.
func (s *Store) MeteredOwners(ctx context.Context, day string) ([]string, error) {
	owners, err := s.rdb.ZRange(ctx, meterOwnersKey(day), 0, -1).Result()
	if err != nil {
		return nil, fmt.Errorf("owners metered on %s: %w", day, err)
	}
	sort.Strings(owners)
	return owners, nil
}

// OwnerGas is an owner and the gas its sessions of one day used.
type OwnerGas struct {
	Owner string
	Gas   int64
}

// TopOwners are the n owners whose sessions of day used the most gas,
// most first (read from the owners' index: one command, bounded by n).
func (s *Store) TopOwners(ctx context.Context, day string, n int) ([]OwnerGas, error) {
	if n <= 0 {
		return nil, nil
	}
	zs, err := s.rdb.ZRevRangeWithScores(ctx, meterOwnersKey(day), 0, int64(n-1)).Result()
	if err != nil {
		return nil, fmt.Errorf("top owners of %s: %w", day, err)
	}
	out := make([]OwnerGas, 0, len(zs))
	for _, z := range zs {
		o, _ := z.Member.(string)
		out = append(out, OwnerGas{Owner: o, Gas: int64(z.Score)})
	}
	return out, nil
}

// meterDays are the UTC dates from from to to, both included.
func meterDays(from, to time.Time) ([]string, error) {
	from, to = from.UTC().Truncate(24*time.Hour), to.UTC().Truncate(24*time.Hour)
	if to.Before(from) {
		return nil, fmt.Errorf("meter: the range %s to %s ends before it starts", MeterDay(from), MeterDay(to))
	}
	if to.Sub(from) > MeterRetention {
		return nil, fmt.Errorf("meter: the range %s to %s is longer than the %d days the meter keeps", MeterDay(from), MeterDay(to), int(MeterRetention/(24*time.Hour)))
	}
	var out []string
	for d := from; !d.After(to); d = d.Add(24 * time.Hour) {
		out = append(out, MeterDay(d))
	}
	return out, nil
}

func parseDayUsage(owner, day string, f map[string]string) (DayUsage, error) {
	u := DayUsage{Owner: owner, Day: day}
	for name, dst := range map[string]*int64{meterSessions: &u.Sessions, meterSteps: &u.Steps, meterGas: &u.Gas,
		meterDuration: &u.DurationMs, meterBytes: &u.Bytes} {
		v, ok := f[name]
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return u, fmt.Errorf("meter of %s on %s: field %s is %q: %w (want an integer)", owner, day, name, v, ErrBadRecord)
		}
		*dst = n
	}
	return u, nil
}
