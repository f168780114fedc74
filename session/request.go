package session

import (
	"encoding/json"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
)

// Request asks for a new session. Each front door fills in what it has:
// the gateway a permit's signer (Owner), sessionId (RootPid), digest (Key)
// and maxTotalGas; a trigger its owner and start key; the CLI its flags;
// the console a template session's orchestration.
type Request struct {
	// Owner owns the session and runs it (its runner): an EVM address,
	// in any letter case.
	Owner string
	// Registry is the XRC-729 registry the orchestration is recorded
	// under: a 0x address (on chain: the runner's authority on it is
	// checked) or a label of sessions of a local file ("file",
	// "simulate").
	Registry string
	OstcID   string
	// OstcHash pins the orchestration's text (0x and 64 hex digits); ""
	// runs whatever the Source serves and records its hash.
	OstcHash string
	// Step is the start step (required; a front door that has none from
	// its caller asks registry.Orchestration.StartStep).
	Step string
	// Payload is the start payload, a JSON object (empty or null: {}).
	Payload json.RawMessage
	// Key is the idempotency key: the same key always names the same
	// session. "" starts a new session every time; "-" is reserved.
	Key string
	// WakeAt delays the first step (zero: now).
	WakeAt time.Time
	// Paused creates the session paused.
	Paused bool
	// Window caps concurrent executions in the session (0: no cap).
	Window int
	// RootPid, when not 0, is the root pid the session must get (a
	// SessionPermit's sessionId): KindStaleRoot otherwise.
	RootPid int64
	// MaxTotalGas is the session's gas budget for its executions (a
	// SessionPermit's maxTotalGas; 0: the operator's ceiling).
	MaxTotalGas uint64
}

// Started is a session that was created, or that the request's Key had
// created before (Replayed).
type Started struct {
	// Ack is queued, scheduled, paused or already_queued.
	Ack  string
	Root joinstore.Root
	// Pid is the root process's pid.
	Pid string
	// Key is the start key the session was started with.
	Key string
	// Orchestration is the orchestration the session runs; its Hash is the
	// session's ostcHash.
	Orchestration *registry.Orchestration
}

// Replayed says that the request's key had started this session before:
// nothing new was created.
func (s Started) Replayed() bool { return s.Ack == "already_queued" }
