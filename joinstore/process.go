package joinstore

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/xgr-sidecar/xgr/registry"
)

// ProcStatus is a process's status.
type ProcStatus string

// Process statuses: a process waits, runs, and ends done or aborted. A
// running process whose selected branch has an execution is executing
// until the execution's outcome is final (it holds a lease meanwhile, as
// a running one does).
const (
	StatusWaiting   ProcStatus = "waiting"
	StatusRunning   ProcStatus = "running"
	StatusExecuting ProcStatus = "executing"
	StatusDone      ProcStatus = "done"
	StatusAborted   ProcStatus = "aborted"
)

// Live reports whether the process still waits, runs or executes.
func (s ProcStatus) Live() bool {
	return s == StatusWaiting || s == StatusRunning || s == StatusExecuting
}

// Finished reports whether the process ended (done or aborted).
func (s ProcStatus) Finished() bool { return s == StatusDone || s == StatusAborted }

// Process is one process record (proc_rt, the hash xgr:{T}:p:<iter>),
// typed. ParseProcess is the one place that reads it from the hash's
// fields; the transition scripts (lua/) write them. A field the record
// lacks is the zero value.
type Process struct {
	// Iter is the process's iteration, from Pid.
	Iter int64
	// Pid is "<rootPid>:<iter>"; ParentPid is the committing process that
	// created it ("" for the root process); ThreadHeadPid the head of its
	// thread.
	Pid, ParentPid, ThreadHeadPid string
	Status                        ProcStatus
	// Paused: the process does not become due until it is resumed.
	Paused bool
	// ResumeStep is the step it runs (or ran last); LastStep the step it
	// last committed ("" before its commit).
	ResumeStep, LastStep string
	// Valid is the verdict of its last evaluation (lastEvalValid); nil when
	// no rule was evaluated.
	Valid *bool
	// AbortReason says why it aborted, when the store recorded a reason.
	AbortReason string
	// ResumePlain is its payload: the input of a process that has not run,
	// the next payload (input overlaid by output) of one that has.
	ResumePlain json.RawMessage
	// JoinGroupID is the group the process belongs to.
	JoinGroupID string
	// NextWakeAt is when it becomes due.
	NextWakeAt time.Time
	CreatedAt  time.Time
	// UpdatedAt is the last change; a wake compares it to see that the
	// process is still as it read it.
	UpdatedAt time.Time
	// KilledAt is when a kill reached it (zero when none did).
	KilledAt time.Time
	// Lease is the claim it runs under; nil when none.
	Lease *Lease
	// Reserve and Bypass are the root process's step limits: child iters a
	// claim reserves, and whether it may run with the window full.
	Reserve int
	Bypass  bool
	// Join holds the join fields of a join target; nil for a process that
	// is none.
	Join *JoinTarget
	// Execution is the step's execution: set from the moment the process
	// executes (begin_exec) on; nil for a step that executed nothing.
	Execution *ProcExecution
	// Sealed: the step's rule asks for sealed logs (docs/runtime.md,
	// "Sealed steps"), known from the moment it executes (begin_exec) or
	// commits. Views show Redacted, never its payloads.
	Sealed bool
}

// SealedValue stands, in a view of a sealed process (Process.Redacted),
// for each of its payload values: the JSON string "sealed".
var SealedValue = json.RawMessage(`"sealed"`)

// Redacted is p as a view outside the step's sealed log bundle shows it:
// for a sealed process (p.Sealed), its payload (ResumePlain), its join
// inbox and its execution's record and outcome are SealedValue; its
// execution's key, flip and transaction hash stay. Other processes are
// returned as they are. Views (the console, xgr session show, summaries)
// read records through it; the runtime reads the records themselves.
func (p Process) Redacted() Process {
	if !p.Sealed {
		return p
	}
	if p.ResumePlain != nil {
		p.ResumePlain = SealedValue
	}
	if j := p.Join; j != nil && j.Inbox != nil {
		c := *j
		c.Inbox = SealedValue
		p.Join = &c
	}
	if x := p.Execution; x != nil {
		c := *x
		if c.Record != nil {
			c.Record = SealedValue
		}
		if c.Outcome != nil {
			c.Outcome = SealedValue
		}
		p.Execution = &c
	}
	return p
}

// ProcExecution is what a process keeps of its step's execution.
type ProcExecution struct {
	// Key is the execution's idempotency key (execution.Actuator).
	Key string
	// Record is the step's decision as the session machine stored it
	// before it sent the execution (opaque here): what finishes the step.
	Record json.RawMessage
	// Flipped: the execution reverted and the step flipped to its
	// onInvalid branch, whose own execution Key now names.
	Flipped bool
	// Outcome is the final outcome, recorded when the step committed (nil
	// before): {"key", "outcome", "reverted"} as the session machine writes
	// it, "outcome" and "reverted" being execution.Outcome objects.
	Outcome json.RawMessage
	// TxHash is the final outcome's transaction hash ("" before, or when
	// it has none).
	TxHash string
}

// Lease is the claim a running process holds.
type Lease struct {
	// Token is the fencing token; a commit or release with another fails.
	Token int64
	// Holder is the worker (replica) that claimed it.
	Holder string
	// Until is when the lease expires unless renewed.
	Until time.Time
	// FirstChild is the first of the Reserved child iters the claim
	// reserved (0 and 0 when it reserved none).
	FirstChild, Reserved int64
}

// JoinTarget is the join state kept on a join target's record.
type JoinTarget struct {
	// FromGroupID is the fresh group of the join's producers.
	FromGroupID string
	// From are the expected producer steps in order, with the outcome each
	// must have (expect and requireWhen).
	From   []registry.From
	K      int
	Policy registry.Policy
	// Inbox maps a from step to its accepted piece; Fail a from step to why
	// it failed; FromSeen the pids already delivered. JSON objects as
	// stored (nil when the record has none).
	Inbox, FromSeen, Fail json.RawMessage
	// Closed: the join was decided; ClosedAt when.
	Closed   bool
	ClosedAt time.Time
}

// Open reports whether the join has not been decided yet.
func (j *JoinTarget) Open() bool { return j != nil && !j.Closed }

// ErrBadRecord: a stored record has a field that does not parse.
var ErrBadRecord = errors.New("bad record")

// The proc_rt field names, as the transition scripts write them.
const (
	fieldPid             = "pid"
	fieldParentPid       = "parentPid"
	fieldThreadHeadPid   = "threadHeadPid"
	fieldStatus          = "status"
	fieldPaused          = "paused"
	fieldResumeStep      = "resumeStep"
	fieldLastStep        = "lastStep"
	fieldLastEvalValid   = "lastEvalValid"
	fieldAbortReason     = "abortReason"
	fieldResumePlain     = "resumePlain"
	fieldJoinGroupID     = "joinGroupId"
	fieldNextWakeAt      = "nextWakeAt"
	fieldCreatedAt       = "createdAt"
	fieldUpdatedAt       = "updatedAt"
	fieldKilledAt        = "killedAt"
	fieldLease           = "lease"
	fieldLeaseUntil      = "leaseUntil"
	fieldWorker          = "worker"
	fieldReserved        = "reserved"
	fieldReserve         = "reserve"
	fieldBypass          = "bypass"
	fieldTarget          = "target"
	fieldJoinFromGroupID = "joinFromGroupId"
	fieldExpect          = "expect"
	fieldRequireWhen     = "requireWhen"
	fieldK               = "k"
	fieldPolicy          = "policy"
	fieldInbox           = "inbox"
	fieldFromSeen        = "fromSeen"
	fieldFail            = "fail"
	fieldClosed          = "closed"
	fieldClosedAt        = "closedAt"
	fieldExecKey         = "execKey"
	fieldExecRecord      = "execRecord"
	fieldExecFlipped     = "execFlipped"
	fieldExecOutcome     = "execOutcome"
	fieldSealed          = "sealed"
)

// ParseProcess maps the fields of a process's Redis hash to a Process. A
// missing field is the zero value; a field that does not parse (a number,
// a time in unix milliseconds, a flag, a status, JSON) is an error
// (ErrBadRecord) naming the process and the field.
func ParseProcess(fields map[string]string) (Process, error) {
	return parseProcess(fields[fieldPid], fields)
}

// parseProcess is ParseProcess naming the process name in errors.
func parseProcess(name string, fields map[string]string) (Process, error) {
	if name == "" {
		name = "(no pid)"
	}
	r := recordReader{name: name, fields: fields}
	p := Process{
		Pid: fields[fieldPid], ParentPid: fields[fieldParentPid], ThreadHeadPid: fields[fieldThreadHeadPid],
		Status:     r.status(fieldStatus),
		Paused:     r.flag(fieldPaused),
		ResumeStep: fields[fieldResumeStep], LastStep: fields[fieldLastStep],
		Valid:       r.valid(fieldLastEvalValid),
		AbortReason: fields[fieldAbortReason],
		ResumePlain: r.json(fieldResumePlain),
		JoinGroupID: fields[fieldJoinGroupID],
		NextWakeAt:  r.time(fieldNextWakeAt),
		CreatedAt:   r.time(fieldCreatedAt),
		UpdatedAt:   r.time(fieldUpdatedAt),
		KilledAt:    r.time(fieldKilledAt),
		Reserve:     int(r.int(fieldReserve)),
		Bypass:      r.flag(fieldBypass),
		Sealed:      r.flag(fieldSealed),
	}
	if p.Pid != "" {
		if _, it, err := ParsePid(p.Pid); err != nil {
			r.fail(fieldPid, "want <rootPid>:<iter>")
		} else {
			p.Iter = it
		}
	}
	if fields[fieldLease] != "" || fields[fieldLeaseUntil] != "" || fields[fieldWorker] != "" || fields[fieldReserved] != "" {
		l := &Lease{Token: r.int(fieldLease), Holder: fields[fieldWorker], Until: r.time(fieldLeaseUntil)}
		if v := fields[fieldReserved]; v != "" {
			a, b, ok := strings.Cut(v, ":")
			first, err1 := strconv.ParseInt(a, 10, 64)
			n, err2 := strconv.ParseInt(b, 10, 64)
			if !ok || err1 != nil || err2 != nil {
				r.fail(fieldReserved, "want <first child iter>:<count>")
			}
			l.FirstChild, l.Reserved = first, n
		}
		p.Lease = l
	}
	if r.flag(fieldTarget) {
		p.Join = r.join()
	}
	if fields[fieldExecKey] != "" {
		p.Execution = &ProcExecution{Key: fields[fieldExecKey], Record: r.json(fieldExecRecord),
			Flipped: r.flag(fieldExecFlipped), Outcome: r.json(fieldExecOutcome)}
		if o := p.Execution.Outcome; o != nil {
			var v struct {
				Outcome struct {
					TxHash string `json:"txHash"`
				} `json:"outcome"`
			}
			if json.Unmarshal(o, &v) == nil {
				p.Execution.TxHash = v.Outcome.TxHash
			}
		}
	}
	return p, r.err
}

// recordReader reads typed fields of one record, keeping the first error.
type recordReader struct {
	// kind names the record in errors ("" is "process").
	kind   string
	name   string
	fields map[string]string
	err    error
}

func (r *recordReader) fail(field, want string) {
	if r.err == nil {
		r.err = fmt.Errorf("%s %s: field %s %q: %s: %w", cmp.Or(r.kind, "process"), r.name, field, r.fields[field], want, ErrBadRecord)
	}
}

func (r *recordReader) int(field string) int64 {
	v := r.fields[field]
	if v == "" {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		r.fail(field, "want an integer")
	}
	return n
}

// time reads unix milliseconds ("" is the zero time).
func (r *recordReader) time(field string) time.Time {
	v := r.fields[field]
	if v == "" {
		return time.Time{}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		r.fail(field, "want a time in unix milliseconds")
		return time.Time{}
	}
	return time.UnixMilli(n)
}

// flag reads "1" (true), "0" or "" (false).
func (r *recordReader) flag(field string) bool {
	switch r.fields[field] {
	case "", "0":
		return false
	case "1":
		return true
	}
	r.fail(field, "want 0 or 1")
	return false
}

// valid reads a verdict: "1", "0", or "" (none).
func (r *recordReader) valid(field string) *bool {
	switch r.fields[field] {
	case "":
		return nil
	case "0", "1":
		b := r.fields[field] == "1"
		return &b
	}
	r.fail(field, "want 0, 1 or empty")
	return nil
}

func (r *recordReader) status(field string) ProcStatus {
	switch s := ProcStatus(r.fields[field]); s {
	case "", StatusWaiting, StatusRunning, StatusExecuting, StatusDone, StatusAborted:
		return s
	}
	r.fail(field, "want waiting, running, executing, done or aborted")
	return ""
}

// json reads JSON text as stored ("" is nil).
func (r *recordReader) json(field string) json.RawMessage {
	v := r.fields[field]
	if v == "" {
		return nil
	}
	if !json.Valid([]byte(v)) {
		r.fail(field, "want JSON")
		return nil
	}
	return json.RawMessage(v)
}

// join reads a join target's fields.
func (r *recordReader) join() *JoinTarget {
	j := &JoinTarget{FromGroupID: r.fields[fieldJoinFromGroupID], K: int(r.int(fieldK)),
		Inbox: r.json(fieldInbox), FromSeen: r.json(fieldFromSeen), Fail: r.json(fieldFail),
		Closed: r.flag(fieldClosed), ClosedAt: r.time(fieldClosedAt)}
	switch r.fields[fieldPolicy] {
	case "", "drain":
	case "kill":
		j.Policy = registry.PolicyKill
	default:
		r.fail(fieldPolicy, "want kill or drain")
	}
	var expect []string
	if v := r.fields[fieldExpect]; v != "" && json.Unmarshal([]byte(v), &expect) != nil {
		r.fail(fieldExpect, "want a JSON list of step ids")
	}
	var when map[string]string
	if v := r.fields[fieldRequireWhen]; v != "" && json.Unmarshal([]byte(v), &when) != nil {
		r.fail(fieldRequireWhen, "want a JSON object of step ids to valid, invalid or any")
	}
	for _, node := range expect {
		f := registry.From{Node: node}
		switch when[node] {
		case "valid":
			f.When = registry.WhenValid
		case "invalid":
			f.When = registry.WhenInvalid
		case "", "any":
		default:
			r.fail(fieldRequireWhen, "want valid, invalid or any for "+node)
		}
		j.From = append(j.From, f)
	}
	return j
}

// jsonTime is a time as JSON: RFC 3339 with milliseconds, in UTC.
type jsonTime time.Time

// TimeFormat is how process records print times: RFC 3339 with
// milliseconds, in UTC.
const TimeFormat = "2006-01-02T15:04:05.000Z07:00"

func (t jsonTime) MarshalJSON() ([]byte, error) {
	return []byte(`"` + time.Time(t).UTC().Format(TimeFormat) + `"`), nil
}

func timeJSON(t time.Time) *jsonTime {
	if t.IsZero() {
		return nil
	}
	j := jsonTime(t)
	return &j
}

// MarshalJSON writes the record with the stored field names, numbers as
// numbers, flags as booleans, times as RFC 3339 with milliseconds in UTC
// (absent when unset), payloads as JSON (digits as stored), the lease and
// the join fields as objects of their own. A sealed process is written
// Redacted, with "sealed": true: this is a view (xgr session show --json),
// not the record.
func (p Process) MarshalJSON() ([]byte, error) {
	p = p.Redacted()
	type lease struct {
		Token      int64     `json:"token"`
		Holder     string    `json:"holder"`
		Until      *jsonTime `json:"until,omitempty"`
		FirstChild int64     `json:"firstChild,omitempty"`
		Reserved   int64     `json:"reserved,omitempty"`
	}
	type join struct {
		FromGroupID string            `json:"fromGroupId"`
		Expect      []string          `json:"expect"`
		RequireWhen map[string]string `json:"requireWhen"`
		K           int               `json:"k"`
		Policy      string            `json:"policy"`
		Inbox       json.RawMessage   `json:"inbox,omitempty"`
		FromSeen    json.RawMessage   `json:"fromSeen,omitempty"`
		Fail        json.RawMessage   `json:"fail,omitempty"`
		Closed      bool              `json:"closed"`
		ClosedAt    *jsonTime         `json:"closedAt,omitempty"`
	}
	type execution struct {
		Key     string          `json:"key"`
		TxHash  string          `json:"txHash,omitempty"`
		Flipped bool            `json:"flipped,omitempty"`
		Record  json.RawMessage `json:"record,omitempty"`
		Outcome json.RawMessage `json:"outcome,omitempty"`
	}
	out := struct {
		Iter          int64           `json:"iter"`
		Pid           string          `json:"pid"`
		ParentPid     string          `json:"parentPid"`
		ThreadHeadPid string          `json:"threadHeadPid,omitempty"`
		Status        ProcStatus      `json:"status"`
		Paused        bool            `json:"paused"`
		ResumeStep    string          `json:"resumeStep"`
		LastStep      string          `json:"lastStep,omitempty"`
		LastEvalValid *bool           `json:"lastEvalValid"`
		AbortReason   string          `json:"abortReason,omitempty"`
		ResumePlain   json.RawMessage `json:"resumePlain,omitempty"`
		JoinGroupID   string          `json:"joinGroupId"`
		NextWakeAt    *jsonTime       `json:"nextWakeAt,omitempty"`
		CreatedAt     *jsonTime       `json:"createdAt,omitempty"`
		UpdatedAt     *jsonTime       `json:"updatedAt,omitempty"`
		KilledAt      *jsonTime       `json:"killedAt,omitempty"`
		Lease         *lease          `json:"lease,omitempty"`
		Reserve       int             `json:"reserve,omitempty"`
		Bypass        bool            `json:"bypass,omitempty"`
		Join          *join           `json:"join,omitempty"`
		Execution     *execution      `json:"execution,omitempty"`
		Sealed        bool            `json:"sealed,omitempty"`
	}{
		Iter: p.Iter, Pid: p.Pid, ParentPid: p.ParentPid, ThreadHeadPid: p.ThreadHeadPid, Status: p.Status, Paused: p.Paused,
		ResumeStep: p.ResumeStep, LastStep: p.LastStep, LastEvalValid: p.Valid, AbortReason: p.AbortReason,
		ResumePlain: p.ResumePlain, JoinGroupID: p.JoinGroupID, NextWakeAt: timeJSON(p.NextWakeAt),
		CreatedAt: timeJSON(p.CreatedAt), UpdatedAt: timeJSON(p.UpdatedAt), KilledAt: timeJSON(p.KilledAt),
		Reserve: p.Reserve, Bypass: p.Bypass, Sealed: p.Sealed,
	}
	if l := p.Lease; l != nil {
		out.Lease = &lease{Token: l.Token, Holder: l.Holder, Until: timeJSON(l.Until), FirstChild: l.FirstChild, Reserved: l.Reserved}
	}
	if j := p.Join; j != nil {
		o := &join{FromGroupID: j.FromGroupID, Expect: []string{}, RequireWhen: map[string]string{}, K: j.K, Policy: j.Policy.String(),
			Inbox: j.Inbox, FromSeen: j.FromSeen, Fail: j.Fail, Closed: j.Closed, ClosedAt: timeJSON(j.ClosedAt)}
		for _, f := range j.From {
			o.Expect = append(o.Expect, f.Node)
			o.RequireWhen[f.Node] = f.When.String()
		}
		out.Join = o
	}
	if x := p.Execution; x != nil {
		out.Execution = &execution{Key: x.Key, TxHash: x.TxHash, Flipped: x.Flipped, Record: x.Record, Outcome: x.Outcome}
	}
	return json.Marshal(out)
}

// selectedFields maps the reply of an HMGET of names (a process record's
// fields) through parseProcess; ok is false when the record has none of
// them (it does not exist).
func selectedFields(name string, names []string, vals []any) (p Process, ok bool, err error) {
	m := make(map[string]string, len(names))
	for i, n := range names {
		if i < len(vals) {
			if v, isStr := vals[i].(string); isStr {
				m[n], ok = v, true
			}
		}
	}
	if !ok {
		return Process{}, false, nil
	}
	p, err = parseProcess(name, m)
	return p, true, err
}
