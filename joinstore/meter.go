package joinstore

import (
	"context"
	"errors"
	"fmt"
	"math/big"
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
// metering reads; past it their total is extrapolated. Each is a command
// at every session's end (a chain of 10 steps paid 3.2 commands per step
// for 32), so the sample stays small.
const meterSampledProcs = 4

// MeterDay is the UTC day t falls on, as the meter's keys name it.
func MeterDay(t time.Time) string { return t.UTC().Format(MeterDayLayout) }

// The meter's fields (a day's hash, DayUsage), as the scripts write them
// (validationGas: meter_session.lua; the executions': meter_exec.lua).
const (
	meterSessions   = "sessions"
	meterSteps      = "steps"
	meterValidation = "validationGas"
	meterDuration   = "durationMs"
	meterBytes      = "bytes"
	meterExecs      = "executions"
	meterExecGas    = "execGas"
	meterValueGwei  = "valueGwei"
	meterValueRest  = "valueWeiRest"
	meterFeeGwei    = "feeGwei"
	meterFeeRest    = "feeWeiRest"
)

// DayUsage is what one owner used on one UTC day: the billing meter
// (Store.Meter). The session fields count the sessions that finished that
// day, the execution fields the executions that became final that day.
type DayUsage struct {
	Owner string `json:"owner"`
	// Day is the UTC date (MeterDayLayout).
	Day string `json:"day"`
	// Sessions counts the owner's sessions that finished that day; Steps
	// the steps they committed.
	Sessions int64 `json:"sessions"`
	Steps    int64 `json:"steps"`
	// ValidationGas is the gas of their steps' rules: their gas used
	// (SessionMeta.GasUsed, what their budgets counted) less the gas of
	// their executions' transactions (counted as ExecGas).
	ValidationGas int64 `json:"validationGas"`
	// DurationMs sums the sessions' lifetimes, from their start to their
	// end (milliseconds).
	DurationMs int64 `json:"durationMs"`
	// Bytes sums what the sessions held in Redis at their end (MEMORY
	// USAGE of their records, usageOf), a sampled estimate.
	Bytes int64 `json:"bytes"`
	// Executions counts the owner's executions that became final that day
	// (succeeded or reverted; a lost one executed nothing); ExecGas the gas
	// their transactions used; ValueWei the value the successful ones
	// moved and FeeWei what all of them paid (gasUsed × effectiveGasPrice),
	// decimal wei.
	Executions int64  `json:"executions"`
	ExecGas    int64  `json:"execGas"`
	ValueWei   string `json:"valueWei"`
	FeeWei     string `json:"feeWei"`
}

// SessionUsage is what metering one finished session added (Store's
// meter hook, SetMeterHook).
type SessionUsage struct {
	Root Root
	Day  string
	// Gas is the session's gas used (validation and execution);
	// ValidationGas what the metering counted as validation gas (Gas less
	// its metered executions').
	Steps, Gas, ValidationGas, DurationMs, Bytes int64
}

// meterKeys are an owner's meter keys of one day, under the owner's tag.
func (k ownerKeys) meter(day string) string   { return k.prefix + "meter:" + day }
func (k ownerKeys) metered(day string) string { return k.prefix + "metered:" + day }
func (k ownerKeys) execGas() string           { return k.prefix + "execgas" }

// meterOwnersKey is the index of the owners metered on day: a sorted set,
// owner by the gas their sessions of that day used (outside every
// owner's tag; each write is its own command).
func meterOwnersKey(day string) string { return "xgr:meter:owners:" + day }

// SetExecMeterHook sets what is told of each execution the store meters
// (once per key across replicas); nil: none.
func (s *Store) SetExecMeterHook(f func(ExecUsage)) {
	if f == nil {
		s.execHook.Store(nil)
		return
	}
	s.execHook.Store(&f)
}

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
	if s.cfg.Unmetered {
		return SessionUsage{}, false
	}
	u, err := s.sessionUsage(ctx, root, now)
	if err == errNotFinished {
		return u, false
	}
	if err != nil {
		s.meterErr(root, err)
		return u, false
	}
	ok := ownerKeysOf(root.Owner)
	keys := []string{ok.meter(u.Day), ok.metered(u.Day), ok.execGas()}
	args := []any{root.RootPid, int64(MeterRetention / time.Second), s.markerTTL(), u.Gas,
		meterSessions, 1, meterSteps, u.Steps, meterDuration, u.DurationMs, meterBytes, u.Bytes}
	res, err := s.meterEval(ctx, u.Day, root.Owner, scriptMeterSession, keys, args)
	if err != nil {
		s.meterErr(root, err)
		return u, false
	}
	vals, err := res.Int64Slice()
	if err != nil || len(vals) != 2 {
		s.meterErr(root, fmt.Errorf("meter_session answered %v: %v", res.Val(), err))
		return u, false
	}
	if vals[0] != 1 {
		return u, false
	}
	u.ValidationGas = vals[1]
	if f := s.meterHook.Load(); f != nil {
		(*f)(u)
	}
	return u, true
}

// markerTTL is how long a day's markers live (seconds): the session TTL.
// A session's end is reported again only while its records exist, and
// they expire that long after it finished; an execution's outcome is
// polled again only until its step commits. So the markers cost what the
// sessions of a TTL cost, not 90 days of them.
func (s *Store) markerTTL() int64 { return max(int64(s.cfg.SessionTTL/time.Second), 1) }

// errNotFinished: the session to meter has not finished (or is gone).
var errNotFinished = errors.New("the session has not finished")

// meterEval runs a meter script after listing owner in day's owners
// index (first: a day whose bucket exists is always listed), in one
// pipeline; a script the server does not hold yet is sent again whole.
func (s *Store) meterEval(ctx context.Context, day, owner string, script *redis.Script, keys []string, args []any) (*redis.Cmd, error) {
	var res *redis.Cmd
	err := s.pipelined(ctx, func(p redis.Pipeliner) {
		p.ZAddNX(ctx, meterOwnersKey(day), redis.Z{Member: owner})
		p.Expire(ctx, meterOwnersKey(day), MeterRetention)
		res = script.EvalSha(ctx, p, keys, args...)
	})
	if err != nil && isNoScript(err) {
		res = script.Run(ctx, s.rdb, keys, args...)
		err = res.Err()
	}
	return res, err
}

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
	p.ZIncrBy(ctx, meterOwnersKey(u.Day), float64(u.ValidationGas), u.Root.Owner)
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
	var valueGwei, valueRest, feeGwei, feeRest int64
	for name, dst := range map[string]*int64{meterSessions: &u.Sessions, meterSteps: &u.Steps, meterValidation: &u.ValidationGas,
		meterDuration: &u.DurationMs, meterBytes: &u.Bytes, meterExecs: &u.Executions, meterExecGas: &u.ExecGas,
		meterValueGwei: &valueGwei, meterValueRest: &valueRest, meterFeeGwei: &feeGwei, meterFeeRest: &feeRest} {
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
	u.ValueWei, u.FeeWei = weiOf(valueGwei, valueRest).String(), weiOf(feeGwei, feeRest).String()
	return u, nil
}

// gwei is a wei in a gwei.
var gwei = big.NewInt(1_000_000_000)

// weiOf is gwei·10⁹ + rest.
func weiOf(g, rest int64) *big.Int {
	w := new(big.Int).Mul(big.NewInt(g), gwei)
	return w.Add(w, big.NewInt(rest))
}

// splitWei splits wei into gwei and the wei below a gwei, as the meter
// keeps amounts (HINCRBY takes 64-bit integers); an amount of 2⁶² gwei or
// more is refused.
func splitWei(wei *big.Int) (g, rest int64, err error) {
	if wei == nil {
		return 0, 0, nil
	}
	if wei.Sign() < 0 {
		return 0, 0, fmt.Errorf("amount %s wei: want 0 or more", wei)
	}
	q, r := new(big.Int).QuoRem(wei, gwei, new(big.Int))
	if q.BitLen() > 62 {
		return 0, 0, fmt.Errorf("amount %s wei: too large to meter (at most 2^62 gwei)", wei)
	}
	return q.Int64(), r.Int64(), nil
}

// ExecUsage is a final execution as the meter counts it
// (Store.MeterExecution).
type ExecUsage struct {
	Root Root
	// Key is the execution's idempotency key: it is metered once.
	Key string
	// FinalAt is when it became final (its day is the meter's); zero:
	// now.
	FinalAt time.Time
	// Gas is what its transaction used; Value what it moved (nil or 0 for
	// a reverted one) and Fee what it paid, in wei.
	Gas        int64
	Value, Fee *big.Int
}

// MeterExecution adds a final execution to its owner's meter of the day it
// became final (lua/meter_exec.lua), once per key however often it is
// called; it remembers its gas for its session, whose own metering counts
// it as execution gas, not as validation gas. The reactor calls it when it
// polls the final outcome, before the step commits: a replica that stops
// in between polls again after the adoption, and meters then.
func (s *Store) MeterExecution(ctx context.Context, e ExecUsage, now time.Time) (bool, error) {
	if s.cfg.Unmetered {
		return false, nil
	}
	if err := CheckOwner(e.Root.Owner); err != nil {
		return false, err
	}
	if e.Key == "" || e.Gas < 0 {
		return false, fmt.Errorf("meter execution of %s: want a key and gas 0 or more (key %q, gas %d)", e.Root, e.Key, e.Gas)
	}
	vg, vr, err := splitWei(e.Value)
	if err != nil {
		return false, fmt.Errorf("meter execution %s: value: %w", e.Key, err)
	}
	fg, fr, err := splitWei(e.Fee)
	if err != nil {
		return false, fmt.Errorf("meter execution %s: fee: %w", e.Key, err)
	}
	at := e.FinalAt
	if at.IsZero() {
		at = now
	}
	day := MeterDay(at)
	ok := ownerKeysOf(e.Root.Owner)
	res, err := s.meterEval(ctx, day, e.Root.Owner, scriptMeterExec, []string{ok.meter(day), ok.metered(day), ok.execGas()},
		[]any{"x:" + e.Key, int64(MeterRetention / time.Second), s.markerTTL(), e.Root.RootPid, e.Gas, vg, vr, fg, fr})
	if err != nil {
		return false, fmt.Errorf("meter execution %s: %w", e.Key, err)
	}
	if n, _ := res.Int64(); n != 1 {
		return false, nil
	}
	// The top owners' ranking (not exact across a crash: a ranking).
	s.rdb.ZIncrBy(ctx, meterOwnersKey(day), float64(e.Gas), e.Root.Owner)
	if f := s.execHook.Load(); f != nil {
		(*f)(e)
	}
	return true, nil
}

// OwnersMeter reads the meter of every owner metered on each day from
// from to to (UTC dates, both included; at most MeterRetention long): the
// owners' index of each day, then their buckets in one pipeline per day;
// by day, then owner.
func (s *Store) OwnersMeter(ctx context.Context, from, to time.Time) ([]DayUsage, error) {
	days, err := meterDays(from, to)
	if err != nil {
		return nil, err
	}
	var out []DayUsage
	for _, day := range days {
		owners, err := s.MeteredOwners(ctx, day)
		if err != nil || len(owners) == 0 {
			if err != nil {
				return nil, err
			}
			continue
		}
		cmds := make([]*redis.MapStringStringCmd, len(owners))
		if err := s.pipelined(ctx, func(p redis.Pipeliner) {
			for i, o := range owners {
				cmds[i] = p.HGetAll(ctx, ownerKeysOf(o).meter(day))
			}
		}); err != nil {
			return nil, fmt.Errorf("meter of %s: %w", day, err)
		}
		for i, c := range cmds {
			if len(c.Val()) == 0 {
				continue // listed before its bucket was written (or it expired)
			}
			u, err := parseDayUsage(owners[i], day, c.Val())
			if err != nil {
				return nil, err
			}
			out = append(out, u)
		}
	}
	return out, nil
}
