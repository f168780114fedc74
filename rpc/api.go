package rpc

import "encoding/json"

// The request and response shapes of the xgr_* methods, as the XGR
// endpoint reference gives them. Payloads and permits stay raw JSON, so
// numbers keep every digit and a permit is verified exactly as signed.

// CoreAddrs is the result of xgr_getCoreAddrs.
type CoreAddrs struct {
	Grants     string `json:"grants"`
	PublicSale string `json:"publicSale"`
	// Precompile is the control-domain verifyingContract of ControlPermits.
	Precompile string `json:"precompile"`
	// ChainID is the chain id as a 0x hex string.
	ChainID string `json:"chainId"`
}

// NextProcessIDRequest is the parameter of xgr_getNextProcessId.
type NextProcessIDRequest struct {
	From string `json:"from"`
}

// NextProcessID is the result of xgr_getNextProcessId.
type NextProcessID struct {
	// NextProcessID is the root session id the sender's next session gets
	// (decimal string): the sessionId to sign in a SessionPermit.
	NextProcessID string `json:"nextProcessId"`
}

// DataTransferRequest is the parameter of xgr_validateDataTransfer: start a
// session of an orchestration under a SessionPermit.
type DataTransferRequest struct {
	// StepID is the start step.
	StepID string `json:"stepId"`
	// Payload is the start payload (a JSON object; optional).
	Payload json.RawMessage `json:"payload,omitempty"`
	// Permit is the SessionPermit envelope.
	Permit json.RawMessage `json:"permit"`
	// Orchestration is the XRC-729 registry contract's address.
	Orchestration string `json:"orchestration"`
}

// DataTransferResult is the result of xgr_validateDataTransfer. xgr queues
// the session and runs its steps asynchronously: FinalResult is false and
// ExecutedSteps empty at this point; xgr_stepExecuted and xgr_listSessions
// follow the session.
type DataTransferResult struct {
	ProcessID     string            `json:"processId"`
	SessionID     string            `json:"sessionId"`
	Owner         string            `json:"owner"`
	Ack           string            `json:"ack"`
	FinalResult   bool              `json:"finalResult"`
	ExecutedSteps []json.RawMessage `json:"executedSteps"`
	RuleAction    string            `json:"ruleAction"`
	// Payload is the start payload as stored.
	Payload json.RawMessage `json:"payload"`
	// OutputPayload is empty until the step runs.
	OutputPayload json.RawMessage `json:"outputPayload"`
	OstcID        string          `json:"ostcId"`
	OstcHash      string          `json:"ostcHash"`
	// StartKey names this start ("permit:" and the permit's digest): pass
	// it to xgr_sessionAlive and xgr_stepExecuted to be told when the
	// session id now names another start's session (Redis lost writes).
	StartKey string `json:"startKey"`
}

// ControlRequest is the parameter of xgr_control (kill only).
type ControlRequest struct {
	// Action must equal the permit's action when given.
	Action string          `json:"action,omitempty"`
	Permit json.RawMessage `json:"permit"`
}

// ControlResult is the result of xgr_control.
type ControlResult struct {
	OK        bool   `json:"ok"`
	Owner     string `json:"owner"`
	ProcessID int64  `json:"processId"`
	Action    string `json:"action"`
	Status    string `json:"status"`
	// Affected counts the waiting processes the kill aborted at once (at
	// most joinstore.ReapBatch); the replica running the session aborts the
	// rest, and running ones are recorded aborted at their commit.
	Affected int `json:"affected"`
}

// WakeRequest is the parameter of xgr_wakeUpProcess. Pid mode: ProcessID
// set and the permit's stepId empty; step mode: ProcessID empty and the
// permit's stepId set.
type WakeRequest struct {
	ProcessID string          `json:"processId,omitempty"`
	Payload   json.RawMessage `json:"payload,omitempty"`
	Permit    json.RawMessage `json:"permit"`
}

// WakeResult is the result of xgr_wakeUpProcess.
type WakeResult struct {
	OK        bool   `json:"ok"`
	Owner     string `json:"owner"`
	SessionID int64  `json:"sessionId"`
	RootPid   string `json:"rootPid"`
	// Mode is "pid" or "step".
	Mode  string `json:"mode"`
	Woken int    `json:"woken"`
	// More: more processes wait on the step than one step-mode wake
	// considers (MaxWakeCandidates); wake again with a new permit.
	More bool `json:"more,omitempty"`
	// Processes says, for every candidate, whether it was woken and why
	// (an xgr extension of the reference's response).
	Processes []WakeNote `json:"processes,omitempty"`
}

// WakeNote says what a wake did with one candidate process.
type WakeNote struct {
	Pid    string `json:"pid"`
	Woken  bool   `json:"woken"`
	Reason string `json:"reason"`
}

// ListRequest is the parameter of xgr_listSessions. Owner mode: Permit is
// an xdalaPermit of the owner. Allow mode: Runner and ControlPermit (a
// ControlPermitV2 with action wake) list the waiting steps the signer may
// wake.
type ListRequest struct {
	View      string          `json:"view,omitempty"`
	ParentPid string          `json:"parentPid,omitempty"`
	RootID    string          `json:"rootId,omitempty"`
	Last      int             `json:"last,omitempty"`
	Permit    json.RawMessage `json:"permit,omitempty"`
	// Runner and ControlPermit select allow mode.
	Runner        string          `json:"runner,omitempty"`
	ControlPermit json.RawMessage `json:"controlPermit,omitempty"`
	// Offset skips that many sessions (server-side paging, newest first);
	// Order "asc" lists oldest first (xgr extensions).
	Offset int    `json:"offset,omitempty"`
	Order  string `json:"order,omitempty"`
}

// ListResult is the result of xgr_listSessions.
type ListResult struct {
	Sessions []SessionRow `json:"sessions"`
	// Truncated: owner mode left processes out at MaxListRows rows (an
	// xgr extension); list fewer sessions (last, offset, rootId).
	Truncated bool `json:"truncated,omitempty"`
}

// SessionRow is one process of a listed session.
type SessionRow struct {
	Owner           string `json:"owner"`
	SessionID       string `json:"sessionId"`
	Pid             string `json:"pid"`
	ParentPid       string `json:"parentPid,omitempty"`
	Step            string `json:"step"`
	Status          string `json:"status"`
	Updated         int64  `json:"updated"`
	IterationStep   int64  `json:"iterationStep"`
	XRC729          string `json:"xrc729"`
	OstcID          string `json:"ostcId"`
	JoinGroupID     string `json:"joinGroupId"`
	JoinFromGroupID string `json:"joinFromGroupId"`
	// Outcome is the session's outcome once it finished (an xgr
	// extension; joinstore.OutcomeOf, docs/runtime.md#session-outcomes):
	// killed, cancelled, failed, unfulfillable, invalid or ok; absent
	// while the session is live.
	Outcome string `json:"outcome,omitempty"`
}
