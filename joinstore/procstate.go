package joinstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// AllowListKey is the payload key whose raw value (the session's `__wakeUp`
// allow list) Start keeps in the session's meta as wakeUp, so that who may
// wake is decided without reading any process payload. Payload flow keeps
// it: step outputs, wake overlays and join meta cannot set "_" keys, so
// every process of a session carries the list its start payload had.
const AllowListKey = "__wakeUp"

// WakeGate is what deciding who may wake processes of a session needs, read
// without any process payload.
type WakeGate struct {
	// Killed: the session was killed.
	Killed bool
	// AllowList is the raw JSON of the start payload's __wakeUp value (""
	// when it had none).
	AllowList string
	// Last is the session's last allocated iter.
	Last int64
	// Applied: the wake id asked about was applied before.
	Applied bool
}

// WakeGate reads the session's gate in one round trip: an HMGET of its
// meta and, for a non-empty wake id, whether that id was applied
// (ErrNoSession when the session does not exist). A session started
// before meta kept the allow list has it read from its root process's
// payload instead (one field of one process); a root process whose record
// expired leaves it empty.
func (s *Store) WakeGate(ctx context.Context, root Root, id string) (WakeGate, error) {
	k := keysOf(root)
	pipe := s.rdb.Pipeline()
	meta := pipe.HMGet(ctx, k.meta(), "owner", "killedAt", "wakeUp", "iter")
	var applied *redis.BoolCmd
	if id != "" {
		applied = pipe.HExists(ctx, k.woken(), id)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return WakeGate{}, err
	}
	m := meta.Val()
	if len(m) != 4 {
		return WakeGate{}, fmt.Errorf("%s: meta read %d fields", root, len(m))
	}
	if m[0] == nil {
		return WakeGate{}, fmt.Errorf("%s: %w", root, ErrNoSession)
	}
	str := func(v any) string { s, _ := v.(string); return s }
	g := WakeGate{Killed: str(m[1]) != "", AllowList: str(m[2])}
	g.Last, _ = strconv.ParseInt(str(m[3]), 10, 64)
	g.Applied = applied != nil && applied.Val()
	if m[2] == nil {
		plain, err := s.rdb.HGet(ctx, k.proc(1), fieldResumePlain).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return WakeGate{}, err
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal([]byte(plain), &obj) == nil {
			g.AllowList = string(obj[AllowListKey])
		}
	}
	return g, nil
}

// ProcState is a process's state without its payload: what authorizing a
// wake and listing need.
type ProcState struct {
	Iter            int64
	Pid, ParentPid  string
	Step            string // resumeStep
	Status          ProcStatus
	UpdatedAt       time.Time
	JoinGroupID     string
	JoinFromGroupID string
	Paused          bool
	// JoinOpen: a join target whose join has not closed.
	JoinOpen bool
	Killed   bool
}

// stateFields are the fields ProcStates reads, in ProcState's order.
var stateFields = []string{fieldPid, fieldParentPid, fieldResumeStep, fieldStatus, fieldUpdatedAt, fieldJoinGroupID,
	fieldJoinFromGroupID, fieldPaused, fieldTarget, fieldClosed, fieldKilledAt}

// statePage is how many processes ProcStates reads per round trip.
const statePage = 512

// ProcStates reads the state fields (never the payload) of the session's
// processes with iters 1..last, in iter order, a page of HMGETs per round
// trip, and returns the first limit that keep accepts; more reports that
// another one would have been accepted. Memory is bounded by a page and
// limit, whatever the session's size.
func (s *Store) ProcStates(ctx context.Context, root Root, last int64, keep func(ProcState) bool, limit int) (out []ProcState, more bool, err error) {
	k := keysOf(root)
	for lo := int64(1); lo <= last; lo += statePage {
		hi := min(lo+statePage-1, last)
		pipe := s.rdb.Pipeline()
		cmds := make([]*redis.SliceCmd, 0, hi-lo+1)
		for it := lo; it <= hi; it++ {
			cmds = append(cmds, pipe.HMGet(ctx, k.proc(it), stateFields...))
		}
		if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
			return nil, false, err
		}
		for i, c := range cmds {
			v := c.Val()
			if len(v) != len(stateFields) || v[0] == nil {
				continue // no record (expired)
			}
			r, _, err := selectedFields(root.Pid(lo+int64(i)), stateFields, v)
			if err != nil {
				return nil, false, err
			}
			p := ProcState{Iter: lo + int64(i), Pid: r.Pid, ParentPid: r.ParentPid, Step: r.ResumeStep, Status: r.Status, UpdatedAt: r.UpdatedAt,
				JoinGroupID: r.JoinGroupID, Paused: r.Paused, JoinOpen: r.Join.Open(), Killed: !r.KilledAt.IsZero()}
			if r.Join != nil {
				p.JoinFromGroupID = r.Join.FromGroupID
			}
			if !keep(p) {
				continue
			}
			if len(out) >= limit {
				return out, true, nil
			}
			out = append(out, p)
		}
	}
	return out, false, nil
}
