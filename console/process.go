package console

import (
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
)

// ProcessView is a process as the page reads it, under the record's field
// names: flags as booleans, times as unix milliseconds (0 or absent: none),
// and payloads, inboxes and fail maps as their stored JSON text, so that
// the page shows every digit without parsing numbers into floats.
type ProcessView struct {
	Pid           string `json:"pid"`
	ParentPid     string `json:"parentPid"`
	ThreadHeadPid string `json:"threadHeadPid,omitempty"`
	Status        string `json:"status"`
	Paused        bool   `json:"paused"`
	ResumeStep    string `json:"resumeStep"`
	LastStep      string `json:"lastStep,omitempty"`
	// LastEvalValid is the last evaluation's verdict (null: none).
	LastEvalValid *bool  `json:"lastEvalValid"`
	AbortReason   string `json:"abortReason,omitempty"`
	// ResumePlain is the payload's JSON text.
	ResumePlain string `json:"resumePlain"`
	JoinGroupID string `json:"joinGroupId"`
	NextWakeAt  int64  `json:"nextWakeAt,omitempty"`
	CreatedAt   int64  `json:"createdAt,omitempty"`
	UpdatedAt   int64  `json:"updatedAt,omitempty"`
	KilledAt    int64  `json:"killedAt,omitempty"`
	// Lease is the fencing token of the lease it runs under (absent: none),
	// held by Worker until LeaseUntil.
	Lease      int64  `json:"lease,omitempty"`
	LeaseUntil int64  `json:"leaseUntil,omitempty"`
	Worker     string `json:"worker,omitempty"`
	// Target: a join target; the join fields follow.
	Target          bool     `json:"target"`
	JoinFromGroupID string   `json:"joinFromGroupId,omitempty"`
	Expect          []string `json:"expect,omitempty"`
	K               int      `json:"k,omitempty"`
	Policy          string   `json:"policy,omitempty"`
	// Inbox and Fail are JSON text.
	Inbox    string `json:"inbox,omitempty"`
	Fail     string `json:"fail,omitempty"`
	Closed   bool   `json:"closed"`
	ClosedAt int64  `json:"closedAt,omitempty"`
	// Sealed: its step's rule asks for sealed logs; its payload and inbox
	// are then the JSON string "sealed" (joinstore.Process.Redacted).
	Sealed bool `json:"sealed,omitempty"`
}

// viewOf is the page's view of a process record: a sealed one's
// redacted.
func viewOf(p joinstore.Process) ProcessView {
	p = p.Redacted()
	v := ProcessView{Pid: p.Pid, ParentPid: p.ParentPid, ThreadHeadPid: p.ThreadHeadPid, Status: string(p.Status),
		Paused: p.Paused, ResumeStep: p.ResumeStep, LastStep: p.LastStep, LastEvalValid: p.Valid,
		AbortReason: p.AbortReason, ResumePlain: string(p.ResumePlain), JoinGroupID: p.JoinGroupID,
		NextWakeAt: millis(p.NextWakeAt), CreatedAt: millis(p.CreatedAt), UpdatedAt: millis(p.UpdatedAt), KilledAt: millis(p.KilledAt),
		Sealed: p.Sealed}
	if l := p.Lease; l != nil {
		v.Lease, v.LeaseUntil, v.Worker = l.Token, millis(l.Until), l.Holder
	}
	if j := p.Join; j != nil {
		v.Target, v.JoinFromGroupID, v.K, v.Policy = true, j.FromGroupID, j.K, j.Policy.String()
		v.Inbox, v.Fail, v.Closed, v.ClosedAt = string(j.Inbox), string(j.Fail), j.Closed, millis(j.ClosedAt)
		v.Expect = []string{}
		for _, f := range j.From {
			v.Expect = append(v.Expect, f.Node)
		}
	}
	return v
}

// views is viewOf over a session's processes.
func views(procs []joinstore.Process) []ProcessView {
	out := make([]ProcessView, len(procs))
	for i, p := range procs {
		out[i] = viewOf(p)
	}
	return out
}

// millis is t in unix milliseconds, 0 for the zero time.
func millis(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}
