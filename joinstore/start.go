package joinstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultStartGrace is how long after a start's first index write a replica
// looks at the session even when the start's last call (the index entry at
// its due time) never arrived (Config.StartGrace).
const DefaultStartGrace = time.Minute

// StartRequest describes a new session.
type StartRequest struct {
	Owner string
	// IdempotencyKey makes retries safe: the same key always names the same
	// session. Empty means every call starts a new session. It is kept with
	// the session (its meta field startKey) so that an acknowledgement names
	// its start: after Redis lost acknowledged writes, a session under the
	// same id with another key is not this start.
	IdempotencyKey           string
	XRC729, OstcID, OstcHash string
	StartStep                string
	// Payload is the root process's resumePlain (a JSON object; empty = {}).
	Payload json.RawMessage
	// WakeAt delays the first step; zero means now.
	WakeAt time.Time
	Paused bool
	// Window caps concurrent executions in the session (0 = unlimited).
	Window int
	// RootPid, when not 0, is the root pid the session must get: the
	// owner's next one (else ErrStaleRoot), or the one IdempotencyKey
	// already names.
	RootPid int64
	Now     time.Time
	// StartLimits are the start step's limits (its entry of the step
	// table), kept on the root process so that a replica adopting the
	// session claims it in the same round trip (Adopt); nil: claimed by a
	// claim round.
	StartLimits *StepLimits
	// PayloadChecked says the caller checked Payload with this store's
	// CheckPayload (size cap and shape) and it passed, so that Start does
	// not check it again (session.Starter: a start's payload is
	// checked once).
	PayloadChecked bool
	// MaxTotalGas is the session's gas budget for executions (the
	// SessionPermit's maxTotalGas; 0 = the operator's default), kept in
	// meta as maxTotalGas.
	MaxTotalGas uint64
}

// ErrStaleRoot: StartRequest.RootPid is not the owner's next root pid.
var ErrStaleRoot = errors.New("not the owner's next root pid")

// StartResult says what Start did. Ack is queued, scheduled, paused or
// already_queued (seed 001 §2.1).
type StartResult struct {
	Ack  string
	Root Root
	Pid  string
	// StartKey is the key the session was started with (the request's
	// IdempotencyKey): what names this start in session show, and in
	// xgr_sessionAlive and xgr_stepExecuted.
	StartKey string
}

// maxStartRounds bounds how many root pids one start tries: one more than
// the root pids Redis lost and a replica gave up together.
const maxStartRounds = 64

// Start allocates a root pid (idempotently by key) and creates the session
// with its root process, so that a replica runs it or nothing is left.
//
// It takes four calls on three hash tags (on a Redis Cluster, possibly
// three masters): the allocation in the owner's slot; an entry in the
// global root index at now+StartGrace; the session in its own slot; the
// index entry moved to the session's due time. A start cut after the
// second call is therefore found by a replica within StartGrace: a
// session that exists runs, an entry without a session is forgotten (the
// replica's MarkFinished leaves a tombstone, so that a start going on late
// takes another root pid rather than create a session nothing indexes),
// and the owner's index forgets the root pid with the session TTL. A retry
// with the same key completes the same session. A paused session is
// indexed when it is resumed.
//
// A root pid whose session exists under another start key means Redis
// lost acknowledged writes of the owner's counter (an append-only file cut
// back, a failover to a replica that lacked them): it is logged, the
// counter is raised above it and the start takes the next free one.
//
// A new session over one of the owner's quotas (Config.Quotas, SetQuotas)
// is refused with a *QuotaError and allocates nothing; a retry of a start
// whose key names a session is not a new session.
func (s *Store) Start(ctx context.Context, req StartRequest) (StartResult, error) {
	req.Owner = NormalizeOwner(req.Owner)
	if err := CheckOwner(req.Owner); err != nil {
		return StartResult{}, err
	}
	if req.StartStep == "" {
		return StartResult{}, fmt.Errorf("start: no start step")
	}
	payload := req.Payload
	if len(payload) == 0 {
		payload = json.RawMessage("{}")
	}
	if !req.PayloadChecked {
		if err := s.CheckPayload("the start payload", payload); err != nil {
			return StartResult{}, fmt.Errorf("start: %w", err)
		}
	}
	var obj map[string]json.RawMessage // its allow list is kept apart
	if err := json.Unmarshal(payload, &obj); err != nil || obj == nil {
		return StartResult{}, fmt.Errorf("start: payload must be a JSON object")
	}
	if req.IdempotencyKey == "-" {
		return StartResult{}, fmt.Errorf("start: idempotency key \"-\" is reserved")
	}
	wake := req.WakeAt
	if wake.IsZero() || wake.Before(req.Now) {
		wake = req.Now
	}
	var floor, forget, restore, dropped string
	for range maxStartRounds {
		root, grant, fresh, err := s.allocRoot(ctx, req, floor, forget, restore, dropped)
		if err != nil {
			return StartResult{}, err
		}
		out, err := s.createSession(ctx, req, root, fresh, payload, wake, string(obj[AllowListKey]), grant)
		if err != nil {
			return StartResult{}, err
		}
		switch out[0] {
		case "gone":
			// A replica gave this root pid up before the session existed:
			// take another one.
			floor, forget, restore, dropped = "", strconv.FormatInt(root.RootPid, 10), "", "1"
			continue
		case "taken":
			have := ""
			if len(out) > 2 {
				have = out[2]
			}
			s.log().Error("redis lost acknowledged writes: the owner's root pid counter is below a session that exists; raising it",
				"owner", req.Owner, "session", root.RootPid, "sessionStartKey", have, "startKey", req.IdempotencyKey)
			floor = strconv.FormatInt(root.RootPid, 10)
			forget, restore, dropped = floor, have, ""
			continue
		}
		if err := s.indexStarted(ctx, root, out, wake); err != nil {
			return StartResult{}, err
		}
		return StartResult{Ack: out[0], Root: root, Pid: out[1], StartKey: req.IdempotencyKey}, nil
	}
	return StartResult{}, fmt.Errorf("start for %s: no free root pid after %d tries (every one was taken or given up)", req.Owner, maxStartRounds)
}

// allocRoot runs alloc_root: the root pid of the start, and whether it was
// allocated now (fresh) rather than found under the key. floor raises the
// owner's counter, forget is a root pid the key must no longer name and
// restore the key of the session that holds it ("" each: none); dropped
// "1" says forget was given up (no session ever), so the owner's index
// forgets it too.
//
// grant is the process slots the owner granted the session ("" = no live
// process quota); a start over a quota is a *QuotaError.
func (s *Store) allocRoot(ctx context.Context, req StartRequest, floor, forget, restore, dropped string) (Root, string, bool, error) {
	expect := ""
	if req.RootPid != 0 {
		expect = strconv.FormatInt(req.RootPid, 10)
	}
	args := append([]any{req.IdempotencyKey, ms(req.Now), expect, floor, forget, restore, dropped}, s.quotaArgs(req.Owner)...)
	res, err := s.eval(ctx, scriptAllocRoot, ownerKeysOf(req.Owner).all(), args...).StringSlice()
	if err != nil {
		return Root{}, "", false, fmt.Errorf("start: allocate root: %w", err)
	}
	if len(res) > 2 && res[2] != "" {
		s.log().Error("redis lost acknowledged writes: the owner's root pid counter was below the newest session of the owner's index; raised",
			"owner", req.Owner, "counter", res[2])
	}
	if res[1] == "quota" {
		return Root{}, "", false, fmt.Errorf("start for %s: %w", req.Owner, quotaRefusal(req.Owner, res))
	}
	if res[1] == "stale" {
		return Root{}, "", false, fmt.Errorf("start: root pid %s of %s: %w (the next one is %s)", expect, req.Owner, ErrStaleRoot, res[0])
	}
	rootPid, err := strconv.ParseInt(res[0], 10, 64)
	if err != nil {
		return Root{}, "", false, fmt.Errorf("start: allocate root: bad root pid %q", res[0])
	}
	grant := ""
	if len(res) > 3 {
		grant = res[3]
	}
	return Root{Owner: req.Owner, RootPid: rootPid}, grant, res[1] == "new", nil
}

// createSession writes the pending index entry (unless the session starts
// paused) and then runs start_session.
func (s *Store) createSession(ctx context.Context, req StartRequest, root Root, fresh bool, payload json.RawMessage, wake time.Time, allow, grant string) ([]string, error) {
	exists := false
	if !fresh {
		// A retry of a start whose session exists needs no pending entry
		// (a finished session must not be indexed again): the retry below
		// indexes a live one at its due time.
		n, err := s.rdb.Exists(ctx, keysOf(root).meta()).Result()
		if err != nil {
			return nil, fmt.Errorf("start %s: %w", root, err)
		}
		exists = n == 1
	}
	if !req.Paused && !exists {
		if err := s.hook("index-entry"); err != nil {
			return nil, err
		}
		// NX: a retry does not move an entry a replica holds.
		pending := req.Now.Add(s.cfg.StartGrace)
		if err := s.rdb.ZAddNX(ctx, rootShardKey(root), redis.Z{Score: float64(pending.UnixMilli()), Member: root.String()}).Err(); err != nil {
			return nil, fmt.Errorf("start %s: index root: %w", root, err)
		}
	}
	k := keysOf(root)
	paused := "0"
	if req.Paused {
		paused = "1"
	}
	reserve, bypass := "", ""
	if l := req.StartLimits; l != nil {
		reserve, bypass = strconv.Itoa(l.Reserve), "0"
		if l.Bypass {
			bypass = "1"
		}
	}
	isFresh := "0"
	if fresh {
		isFresh = "1"
	}
	if err := s.hook("create"); err != nil {
		return nil, err
	}
	out, err := s.eval(ctx, scriptStartSession, []string{k.meta(), k.due(), k.proc(1), k.gone()},
		req.Owner, root.RootPid, req.XRC729, req.OstcID, req.OstcHash, req.StartStep, string(payload),
		s.clock(req.Now), after(req.Now, wake), paused, req.Window, reserve, bypass, allow,
		req.IdempotencyKey, isFresh, strconv.FormatUint(req.MaxTotalGas, 10), grant).StringSlice()
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", root, err)
	}
	return out, nil
}

// indexStarted moves the session's index entry to its due time.
func (s *Store) indexStarted(ctx context.Context, root Root, out []string, wake time.Time) error {
	if err := s.hook("index"); err != nil {
		return err
	}
	z := redis.Z{Score: float64(wake.UnixMilli()), Member: root.String()}
	switch out[0] {
	case "paused":
		// Not indexed until resumed (resume marks the root).
		return nil
	case "already_queued":
		// A retry: index a live session at its due time if its entry is
		// later (the pending entry) or missing, without moving an earlier
		// one (LT).
		if len(out) < 3 || out[2] != "live" {
			return nil
		}
		if err := s.rdb.ZAddLT(ctx, rootShardKey(root), z).Err(); err != nil {
			return fmt.Errorf("start %s: index root: %w", root, err)
		}
		return nil
	}
	if err := s.rdb.ZAdd(ctx, rootShardKey(root), z).Err(); err != nil {
		return fmt.Errorf("start %s: index root: %w", root, err)
	}
	return nil
}

// NextRootPid is the root pid the owner's next session will get: what
// alloc_root allocates next, counted by the same Lua (next_root.lua and
// alloc_root.lua share lib/root_seq.lua), in one read-only round trip.
func (s *Store) NextRootPid(ctx context.Context, owner string) (int64, error) {
	owner = NormalizeOwner(owner)
	if err := CheckOwner(owner); err != nil {
		return 0, err
	}
	next, _, err := s.nextRoot(ctx, owner)
	return next, err
}

// nextRoot runs next_root for owner: the next root pid and the owner's
// counter as stored.
func (s *Store) nextRoot(ctx context.Context, owner string) (next, counter int64, err error) {
	ok := ownerKeysOf(owner)
	res, err := s.eval(ctx, scriptNextRoot, []string{ok.seq(), ok.roots()}).StringSlice()
	if err != nil {
		return 0, 0, fmt.Errorf("next root pid of %s: %w", owner, err)
	}
	if len(res) == 2 {
		next, err = strconv.ParseInt(res[0], 10, 64)
		if err == nil {
			counter, err = strconv.ParseInt(res[1], 10, 64)
		}
	}
	if len(res) != 2 || err != nil {
		return 0, 0, fmt.Errorf("next root pid of %s: next_root answered %q, want {next root pid, counter}", owner, res)
	}
	return next, counter, nil
}

// hook runs the test hook of a start's stage (nil in production).
func (s *Store) hook(stage string) error {
	if s.startHook == nil {
		return nil
	}
	return s.startHook(stage)
}

// log is the store's logger (Config.Log, else slog's default).
func (s *Store) log() *slog.Logger {
	if s.cfg.Log != nil {
		return s.cfg.Log
	}
	return slog.Default()
}
