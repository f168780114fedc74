package joinstore

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// SessionStatus is a session's status: live until its last process ends.
type SessionStatus string

// Session statuses.
const (
	SessionLive     SessionStatus = "live"
	SessionFinished SessionStatus = "finished"
)

// SessionMeta is a session's meta hash (xgr:{T}:meta), typed: the only way
// to read a session's meta (Store.SessionMeta, and the reads that return
// one). ParseSessionMeta is the one place that reads it from the hash's
// fields and Fields the one that writes them back as stored; the
// transition scripts (lua/) write the hash. A field the hash lacks is the
// zero value.
type SessionMeta struct {
	Owner   string
	RootPid int64
	Status  SessionStatus
	// Live counts the processes waiting or running; Steps the steps
	// committed; Iter the last allocated iter; Window the session's window
	// (0 = none); Fence the last fencing token issued in the session (root
	// leases, process leases, join locks).
	Live, Steps, Iter int64
	Window            int64
	Fence             int64
	// Paused: the whole session was paused (pause with the session's own
	// flag): the children of its running processes are created paused.
	// A resume clears it.
	Paused bool
	// WakeUp is the start payload's __wakeUp allow list as stored (raw
	// JSON; "" when the payload has none).
	WakeUp string
	// XRC729 is the registry, OstcID and OstcHash the orchestration pinned
	// at the start, StartStep its first step.
	XRC729, OstcID, OstcHash, StartStep string
	CreatedAt, FinishedAt               time.Time
	// KilledAt and KillReason: a kill, a cap or a cancel ended the session
	// (zero when none did).
	KilledAt   time.Time
	KillReason string
	// KillKind says what set KilledAt: KillKindKill, KillKindCancel,
	// KillKindCap or KillKindQuota ("" for a session killed before xgr
	// recorded it: a kill).
	KillKind string
	// Outcome tallies, kept by the transitions (docs/runtime.md "Session
	// outcomes"): Killed counts processes killed one by one while the
	// session was not killed as a whole; Failed steps aborted by a hard
	// error and processes abandoned; Unfulfillable joins that could no
	// longer close; InvalidEnds steps that evaluated invalid and led
	// nowhere.
	Killed, Failed, Unfulfillable, InvalidEnds int64
	// StartKey names the start that created the session (its idempotency
	// key, or "permit:<digest>" for a gateway start).
	StartKey string
	// MaxTotalGas is the gas budget of the permit that started the session
	// (decimal, up to a uint256; "" when none): execution parses it.
	MaxTotalGas string
	// GasUsed is the gas the session's committed steps used: validation
	// gas and execution gas (Commit.Gas), counted against its budget.
	GasUsed int64
	// Holder and PrevHolder name the replica that last adopted the session
	// and the one before it (MetaHolder, MetaPrevHolder).
	Holder, PrevHolder string
	// Stalled says why the replica that last held the session could not
	// run it (its orchestration unknown there, or not the pinned text);
	// StalledAt and StalledBy when and which replica; Stalls how many
	// tries in a row failed so ("" and zero when none: a replica that
	// opens the session clears them, Store.Stall and Unstall).
	Stalled, StalledBy string
	StalledAt          time.Time
	Stalls             int64
}

// MetaHolder and MetaPrevHolder are the meta fields naming the replica
// that last adopted the session (adopt_root) and the one before it.
const (
	MetaHolder     = "holder"
	MetaPrevHolder = "prevHolder"
)

// Session meta field names, as the scripts write them.
const (
	metaOwner      = "owner"
	metaRootPid    = "rootPid"
	metaStatus     = "status"
	metaLive       = "live"
	metaSteps      = "steps"
	metaIter       = "iter"
	metaWindow     = "window"
	metaXRC729     = "xrc729"
	metaOstcID     = "ostcId"
	metaOstcHash   = "ostcHash"
	metaStartStep  = "startStep"
	metaCreatedAt  = "createdAt"
	metaFinishedAt = "finishedAt"
	metaKilledAt   = "killedAt"
	metaKillReason = "killReason"
	metaStartKey   = "startKey"
	metaKillKind   = "killKind"
	metaKilled     = "killed"
	metaFailed     = "failed"
	metaUnfulfill  = "unfulfillable"
	metaInvalidEnd = "invalidEnds"
	metaMaxGas     = "maxTotalGas"
	metaGasUsed    = "gasUsed"
	metaFence      = "fence"
	metaPaused     = "paused"
	metaWakeUp     = "wakeUp"
	metaStalled    = "stalled"
	metaStalledAt  = "stalledAt"
	metaStalledBy  = "stalledBy"
	metaStalls     = "stalls"
)

// ParseSessionMeta maps the fields of a session's meta hash. A field that
// does not parse (a number, a time in unix milliseconds) is an error
// (ErrBadRecord) naming the session and the field.
func ParseSessionMeta(fields map[string]string) (SessionMeta, error) {
	name := fields[metaOwner] + ":" + fields[metaRootPid]
	r := recordReader{kind: "session", name: name, fields: fields}
	m := SessionMeta{
		Owner: fields[metaOwner], RootPid: r.int(metaRootPid), Status: SessionStatus(fields[metaStatus]),
		Live: r.int(metaLive), Steps: r.int(metaSteps), Iter: r.int(metaIter), Window: r.int(metaWindow),
		XRC729: fields[metaXRC729], OstcID: fields[metaOstcID], OstcHash: fields[metaOstcHash], StartStep: fields[metaStartStep],
		CreatedAt: r.time(metaCreatedAt), FinishedAt: r.time(metaFinishedAt), KilledAt: r.time(metaKilledAt),
		KillReason: fields[metaKillReason], StartKey: fields[metaStartKey], KillKind: fields[metaKillKind],
		Killed: r.int(metaKilled), Failed: r.int(metaFailed), Unfulfillable: r.int(metaUnfulfill), InvalidEnds: r.int(metaInvalidEnd),
		MaxTotalGas: fields[metaMaxGas], GasUsed: r.int(metaGasUsed), Holder: fields[MetaHolder], PrevHolder: fields[MetaPrevHolder],
		Fence: r.int(metaFence), Paused: r.flag(metaPaused), WakeUp: fields[metaWakeUp],
		Stalled: fields[metaStalled], StalledBy: fields[metaStalledBy], StalledAt: r.time(metaStalledAt), Stalls: r.int(metaStalls),
	}
	switch m.Status {
	case SessionLive, SessionFinished, "":
	default:
		r.fail(metaStatus, "want live or finished")
	}
	return m, r.err
}

// Fields is the meta as its hash stores it (field name → text: decimal
// numbers, times in unix milliseconds, "1" for a flag that is set), for a
// view that shows the record as stored (the console's session JSON). The
// fields every session has are always there; the others (holder and
// prevHolder, the kill's, finishedAt, paused, the outcome tallies) only
// when set. ParseSessionMeta(m.Fields()) is m again.
func (m SessionMeta) Fields() map[string]string {
	num := func(n int64) string { return strconv.FormatInt(n, 10) }
	f := map[string]string{
		metaOwner: m.Owner, metaRootPid: num(m.RootPid), metaStatus: string(m.Status),
		metaLive: num(m.Live), metaSteps: num(m.Steps), metaIter: num(m.Iter), metaWindow: num(m.Window), metaFence: num(m.Fence),
		metaXRC729: m.XRC729, metaOstcID: m.OstcID, metaOstcHash: m.OstcHash, metaStartStep: m.StartStep,
		metaStartKey: m.StartKey, metaMaxGas: m.MaxTotalGas, metaWakeUp: m.WakeUp,
	}
	for name, t := range map[string]time.Time{metaCreatedAt: m.CreatedAt, metaFinishedAt: m.FinishedAt, metaKilledAt: m.KilledAt, metaStalledAt: m.StalledAt} {
		if !t.IsZero() {
			f[name] = num(t.UnixMilli())
		}
	}
	for name, v := range map[string]string{metaKillReason: m.KillReason, metaKillKind: m.KillKind, metaStalled: m.Stalled, metaStalledBy: m.StalledBy} {
		if v != "" {
			f[name] = v
		}
	}
	for name, n := range map[string]int64{metaKilled: m.Killed, metaFailed: m.Failed, metaUnfulfill: m.Unfulfillable, metaInvalidEnd: m.InvalidEnds, metaGasUsed: m.GasUsed, metaStalls: m.Stalls} {
		if n != 0 {
			f[name] = num(n)
		}
	}
	if m.Holder != "" {
		// The scripts that record a holder record the one before it too.
		f[MetaHolder], f[MetaPrevHolder] = m.Holder, m.PrevHolder
	}
	if m.Paused {
		f[metaPaused] = "1"
	}
	return f
}

// SessionMeta reads a session's meta hash, typed (ErrNotFound when the
// session does not exist; ErrBadRecord, naming the field, when a field
// does not parse).
func (s *Store) SessionMeta(ctx context.Context, root Root) (SessionMeta, error) {
	fields, err := s.rdb.HGetAll(ctx, keysOf(root).meta()).Result()
	if err != nil {
		return SessionMeta{}, fmt.Errorf("session %s: %w", root, err)
	}
	if len(fields) == 0 {
		return SessionMeta{}, fmt.Errorf("session %s: %w", root, ErrNotFound)
	}
	return ParseSessionMeta(fields)
}

// CheckSession checks that a session exists, without reading it: nil, or
// ErrNotFound (naming the session) when it does not.
func (s *Store) CheckSession(ctx context.Context, root Root) error {
	n, err := s.rdb.Exists(ctx, keysOf(root).meta()).Result()
	switch {
	case err != nil:
		return fmt.Errorf("session %s: %w", root, err)
	case n == 0:
		return fmt.Errorf("session %s: %w", root, ErrNotFound)
	}
	return nil
}

// MarshalJSON writes the meta with the stored field names, numbers as
// numbers and times in TimeFormat (absent when unset).
func (m SessionMeta) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Owner      string        `json:"owner"`
		RootPid    int64         `json:"rootPid"`
		Status     SessionStatus `json:"status"`
		Live       int64         `json:"live"`
		Steps      int64         `json:"steps"`
		Iter       int64         `json:"iter"`
		Window     int64         `json:"window"`
		XRC729     string        `json:"xrc729,omitempty"`
		OstcID     string        `json:"ostcId"`
		OstcHash   string        `json:"ostcHash"`
		StartStep  string        `json:"startStep"`
		CreatedAt  *jsonTime     `json:"createdAt,omitempty"`
		FinishedAt *jsonTime     `json:"finishedAt,omitempty"`
		KilledAt   *jsonTime     `json:"killedAt,omitempty"`
		KillReason string        `json:"killReason,omitempty"`
		KillKind   string        `json:"killKind,omitempty"`
		StartKey   string        `json:"startKey,omitempty"`
		Outcome    Outcome       `json:"outcome,omitempty"`
		Killed     int64         `json:"killed,omitempty"`
		Failed     int64         `json:"failed,omitempty"`
		Unfulfill  int64         `json:"unfulfillable,omitempty"`
		InvalidEnd int64         `json:"invalidEnds,omitempty"`
		Stalled    string        `json:"stalled,omitempty"`
		StalledAt  *jsonTime     `json:"stalledAt,omitempty"`
		StalledBy  string        `json:"stalledBy,omitempty"`
		Stalls     int64         `json:"stalls,omitempty"`
	}{m.Owner, m.RootPid, m.Status, m.Live, m.Steps, m.Iter, m.Window, m.XRC729, m.OstcID, m.OstcHash, m.StartStep,
		timeJSON(m.CreatedAt), timeJSON(m.FinishedAt), timeJSON(m.KilledAt), m.KillReason, m.KillKind, m.StartKey,
		OutcomeOf(m), m.Killed, m.Failed, m.Unfulfillable, m.InvalidEnds, m.Stalled, timeJSON(m.StalledAt), m.StalledBy, m.Stalls})
}
