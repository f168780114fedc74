package joinstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// ErrRootHeld: another replica holds the session's root lease.
var ErrRootHeld = errors.New("root lease held by another replica")

// ErrFinished: the session has no live process (or no longer exists).
var ErrFinished = errors.New("session finished")

// AcquireRoot takes or extends the session's root lease for replica and
// returns its fencing token. ErrRootHeld when another replica holds it,
// ErrFinished when there is nothing left to run.
func (s *Store) AcquireRoot(ctx context.Context, root Root, replica string, lease time.Duration) (int64, error) {
	k := keysOf(root)
	res, err := s.eval(ctx, scriptAcquireRoot, []string{k.lease(), k.meta(), k.wq()}, replica, lease.Milliseconds()).Text()
	if err != nil {
		return 0, fmt.Errorf("root lease %s: %w", root, err)
	}
	switch res {
	case "held":
		return 0, ErrRootHeld
	case "finished":
		return 0, ErrFinished
	}
	return strconv.ParseInt(res, 10, 64)
}

// ReleaseRoot gives the root lease back; false when it was no longer ours.
func (s *Store) ReleaseRoot(ctx context.Context, root Root, replica string, token int64) (bool, error) {
	res, err := s.eval(ctx, scriptReleaseRoot, []string{keysOf(root).lease()}, replica, token).Text()
	return res == "released", err
}

// MarkRoot records in the global root index when a session next needs a
// replica's attention (its lease expiry while held, its next due time
// otherwise). Lower scores only come from new work (start, wake).
func (s *Store) MarkRoot(ctx context.Context, root Root, at time.Time) error {
	return s.rdb.ZAdd(ctx, rootShardKey(root), redis.Z{Score: float64(at.UnixMilli()), Member: root.String()}).Err()
}

// RootsDue returns sessions whose attention time has come, from every shard
// of the global index (at most limit per shard).
func (s *Store) RootsDue(ctx context.Context, now time.Time, limit int) ([]Root, error) {
	pipe := s.rdb.Pipeline()
	cmds := make([]*redis.StringSliceCmd, RootShards)
	for n := range cmds {
		cmds[n] = pipe.ZRangeArgs(ctx, redis.ZRangeArgs{Key: shardKey(n), Start: "-inf", Stop: ms(now), ByScore: true, Count: int64(limit)})
	}
	if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
		return nil, err
	}
	var out []Root
	for n, c := range cmds {
		for _, id := range c.Val() {
			r, err := ParseRoot(id)
			if err != nil {
				return nil, fmt.Errorf("root index %s holds %q: %w", shardKey(n), id, err)
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// ParseRoot reads "<owner>:<rootPid>".
func ParseRoot(s string) (Root, error) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return Root{}, fmt.Errorf("root %q: want <owner>:<rootPid>", s)
	}
	n, err := strconv.ParseInt(s[i+1:], 10, 64)
	if err != nil || n <= 0 {
		return Root{}, fmt.Errorf("root %q: rootPid must be a positive number", s)
	}
	if err := CheckOwner(s[:i]); err != nil {
		return Root{}, err
	}
	return Root{Owner: s[:i], RootPid: n}, nil
}

// PendingJoins returns the targets of the session with deliveries not yet
// applied (after a crash, the new root owner applies them).
func (s *Store) PendingJoins(ctx context.Context, root Root) ([]int64, error) {
	ids, err := s.rdb.ZRange(ctx, keysOf(root).jpend(), 0, -1).Result()
	if err != nil {
		return nil, err
	}
	return parseIters(ids, "pending join set", root)
}

// UnmarkRoot removes a session from the global root index.
func (s *Store) UnmarkRoot(ctx context.Context, root Root) error {
	return s.rdb.ZRem(ctx, rootShardKey(root), root.String()).Err()
}

// Health writes a replica's heartbeat (a SET with a TTL, under its own hash
// tag) and returns when Redis acknowledged it: the round trip a replica
// needs for every transition. A Redis that refuses writes (out of memory,
// read-only replica, paused writes) or answers too late fails it; ctx
// carries the deadline.
func (s *Store) Health(ctx context.Context, replica string) error {
	key := "xgr:{health}:" + replica
	if err := s.rdb.Set(ctx, key, time.Now().UnixMilli(), time.Minute).Err(); err != nil {
		return fmt.Errorf("redis write %s: %w", key, err)
	}
	return nil
}

// Opening is what a replica that took a session's root lease needs to
// know to run it, read in one round trip (Open).
type Opening struct {
	// Meta is the session's meta hash, typed (ErrNotFound when it is
	// empty, ErrBadRecord when a field does not parse).
	Meta SessionMeta
	// Expired are running processes whose lease expired (recover them).
	Expired []int64
	// Wakes are wake-ups committed but not yet performed.
	Wakes []PendingWake
	// PendingJoins are targets with deliveries not yet applied.
	PendingJoins []int64
	// Due are up to 64 processes due now, and Next the earliest later due
	// time (NextOK false when none).
	Due    []int64
	Next   time.Time
	NextOK bool
}

// Open reads everything a new root owner needs (Opening) and marks the
// root in the global index at markAt, in one pipeline; it also drops the
// run set's entries of finished processes (commit_step leaves them at 0).
func (s *Store) Open(ctx context.Context, root Root, now, markAt time.Time) (Opening, error) {
	k := keysOf(root)
	var meta, wakes *redis.MapStringStringCmd
	var expired, joins, due *redis.StringSliceCmd
	var next *redis.ZSliceCmd
	err := s.pipelined(ctx, func(pipe redis.Pipeliner) {
		meta = pipe.HGetAll(ctx, k.meta())
		pipe.ZRemRangeByScore(ctx, k.run(), "0", "0")
		expired = pipe.ZRangeArgs(ctx, redis.ZRangeArgs{Key: k.run(), Start: "(0", Stop: "(" + ms(now), ByScore: true})
		wakes = pipe.HGetAll(ctx, k.wq())
		joins = pipe.ZRange(ctx, k.jpend(), 0, -1)
		due = pipe.ZRangeArgs(ctx, redis.ZRangeArgs{Key: k.due(), Start: "-inf", Stop: ms(now), ByScore: true, Count: 64})
		next = pipe.ZRangeArgsWithScores(ctx, redis.ZRangeArgs{Key: k.due(), Start: "(" + ms(now), Stop: "+inf", ByScore: true, Count: 1})
		pipe.ZAdd(ctx, rootShardKey(root), redis.Z{Score: float64(markAt.UnixMilli()), Member: root.String()})
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return Opening{}, fmt.Errorf("open %s: %w", root, err)
	}
	var o Opening
	fields := meta.Val()
	if len(fields) == 0 {
		return o, fmt.Errorf("session %s: %w", root, ErrNotFound)
	}
	if o.Meta, err = ParseSessionMeta(fields); err != nil {
		return o, err
	}
	if o.Expired, err = parseIters(expired.Val(), "run set", root); err != nil {
		return o, err
	}
	o.Wakes = sortedWakes(wakes.Val())
	if o.PendingJoins, err = parseIters(joins.Val(), "pending join set", root); err != nil {
		return o, err
	}
	if o.Due, err = parseIters(due.Val(), "due set", root); err != nil {
		return o, err
	}
	if z := next.Val(); len(z) > 0 {
		o.Next, o.NextOK = time.UnixMilli(int64(z[0].Score)), true
	}
	return o, nil
}

// Adoption is what Adopt found: the root lease's fencing token, the
// session as Open reads it, and its root process when Adopt claimed it.
type Adoption struct {
	Token int64
	Opening
	// Claims holds the root process when it was due and never ran (a fresh
	// session started with StartRequest.StartLimits), claimed under a
	// ProcLease lease; else it is empty and due work is claimed by Claim.
	Claims []Claim
}

// Adopt takes the root lease of a session (as AcquireRoot), reads what Open
// reads, claims the root process of a fresh session and marks the root in
// the global index at markAt, all in one round trip (one shared pipeline
// when the store batches). ErrRootHeld and ErrFinished as AcquireRoot.
func (s *Store) Adopt(ctx context.Context, root Root, replica string, rootLease, procLease time.Duration, now, markAt time.Time) (Adoption, error) {
	k := keysOf(root)
	keys := []string{k.lease(), k.meta(), k.wq(), k.run(), k.jpend(), k.due(), k.proc(1)}
	args := []any{replica, rootLease.Milliseconds(), s.clock(now), procLease.Milliseconds(), replica}
	var adopt *redis.Cmd
	err := s.pipelined(ctx, func(pipe redis.Pipeliner) {
		adopt = pipe.EvalSha(ctx, scriptAdoptRoot.Hash(), keys, args...)
		pipe.ZAdd(ctx, rootShardKey(root), redis.Z{Score: float64(markAt.UnixMilli()), Member: root.String()})
	})
	if err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") {
		// A Redis that lost its script cache: this run loads it again.
		adopt = s.eval(ctx, scriptAdoptRoot, keys, args...)
		err = adopt.Err()
	}
	if err != nil {
		return Adoption{}, fmt.Errorf("adopt %s: %w", root, err)
	}
	return parseAdoption(root, adopt.Val(), now, procLease)
}

// parseAdoption reads adopt_root's reply.
func parseAdoption(root Root, v any, now time.Time, procLease time.Duration) (Adoption, error) {
	bad := func(what string) (Adoption, error) {
		return Adoption{}, fmt.Errorf("adopt %s: unexpected reply (%s): %v", root, what, v)
	}
	parts, ok := v.([]any)
	if !ok || len(parts) == 0 {
		return bad("not a list")
	}
	switch parts[0] {
	case "held":
		return Adoption{}, ErrRootHeld
	case "finished":
		return Adoption{}, ErrFinished
	}
	if len(parts) != 8 {
		return bad("want 8 parts")
	}
	var a Adoption
	var err error
	str := func(x any) string { s, _ := x.(string); return s }
	list := func(x any) []string {
		xs, _ := x.([]any)
		out := make([]string, len(xs))
		for i, e := range xs {
			out[i] = str(e)
		}
		return out
	}
	if a.Token, err = strconv.ParseInt(str(parts[0]), 10, 64); err != nil {
		return bad("token")
	}
	flat := list(parts[1])
	fields := make(map[string]string, len(flat)/2)
	for i := 0; i+1 < len(flat); i += 2 {
		fields[flat[i]] = flat[i+1]
	}
	if len(fields) == 0 {
		return a, fmt.Errorf("session %s: %w", root, ErrNotFound)
	}
	if a.Meta, err = ParseSessionMeta(fields); err != nil {
		return a, err
	}
	if a.Expired, err = parseIters(list(parts[2]), "run set", root); err != nil {
		return a, err
	}
	flat = list(parts[3])
	wakes := make(map[string]string, len(flat)/2)
	for i := 0; i+1 < len(flat); i += 2 {
		wakes[flat[i]] = flat[i+1]
	}
	a.Wakes = sortedWakes(wakes)
	if a.PendingJoins, err = parseIters(list(parts[4]), "pending join set", root); err != nil {
		return a, err
	}
	if a.Due, err = parseIters(list(parts[5]), "due set", root); err != nil {
		return a, err
	}
	if next := str(parts[6]); next != "" {
		ms, err := strconv.ParseFloat(next, 64)
		if err != nil {
			return bad("next due time")
		}
		a.Next, a.NextOK = time.UnixMilli(int64(ms)), true
	}
	if c := list(parts[7]); len(c) == 9 {
		iter, err1 := strconv.ParseInt(c[0], 10, 64)
		token, err2 := strconv.ParseInt(c[1], 10, 64)
		first, err3 := strconv.ParseInt(c[2], 10, 64)
		reserve, err4 := strconv.Atoi(c[3])
		if err := errors.Join(err1, err2, err3, err4); err != nil {
			return bad("claim")
		}
		a.Claims = []Claim{{
			Root: root, Iter: iter, Pid: root.Pid(iter), Token: token, FirstChild: first, Reserve: reserve,
			ResumeStep: c[4], ResumePlain: json.RawMessage(c[5]), ParentPid: c[6], JoinGroupID: c[7],
			ThreadHeadPid: c[8], LeaseUntil: now.Add(procLease),
		}}
	}
	return a, nil
}

// ReleaseFinished gives back the root lease of a session that finished
// with the caller's last commit (Commit.DeferFinish) and updates the
// cross-slot indexes of a finished session, in one pipeline that also
// reads the session's meta (for its outcome, OutcomeOf).
func (s *Store) ReleaseFinished(ctx context.Context, root Root, replica string, token int64, now time.Time) (SessionMeta, error) {
	ok := ownerKeysOf(root.Owner)
	// Metered before the session leaves the root index (meterSession).
	u, metered := s.meterSession(ctx, root, now)
	var meta *redis.MapStringStringCmd
	err := s.pipelined(ctx, func(pipe redis.Pipeliner) {
		pipe.ZRem(ctx, rootShardKey(root), root.String())
		if metered {
			meterOwnersIndex(ctx, pipe, u)
		}
		pipe.ZAdd(ctx, ok.expire(), redis.Z{Score: float64(now.Add(s.cfg.SessionTTL).UnixMilli()), Member: root.RootPid})
		pipe.EvalSha(ctx, scriptReleaseRoot.Hash(), []string{keysOf(root).lease()}, replica, token)
		meta = pipe.HGetAll(ctx, keysOf(root).meta())
	})
	if err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") {
		_, err = s.ReleaseRoot(ctx, root, replica, token)
	}
	if err != nil {
		return SessionMeta{}, fmt.Errorf("release %s: %w", root, err)
	}
	fields, err := meta.Result()
	if err != nil {
		return SessionMeta{}, fmt.Errorf("release %s: meta: %w", root, err)
	}
	return ParseSessionMeta(fields)
}

// ServerTime reads Redis's clock (TIME).
func (s *Store) ServerTime(ctx context.Context) (time.Time, error) {
	return s.rdb.Time(ctx).Result()
}

// RootHolders reads who holds each session's root lease (one pipeline;
// sessions whose lease is free are left out): what the console's overview
// shows per replica and the chaos suite picks its victims by. A read error
// leaves the answer partial.
func (s *Store) RootHolders(ctx context.Context, roots []Root) (map[Root]string, error) {
	pipe := s.rdb.Pipeline()
	cmds := make([]*redis.StringCmd, len(roots))
	for i, r := range roots {
		cmds[i] = pipe.Get(ctx, keysOf(r).lease())
	}
	_, err := pipe.Exec(ctx)
	if errors.Is(err, redis.Nil) {
		err = nil
	}
	out := map[Root]string{}
	for i, c := range cmds {
		if v, e := c.Result(); e == nil {
			holder, _, _ := strings.Cut(v, " ")
			out[roots[i]] = holder
		}
	}
	return out, err
}
