package permit

import (
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// Kind is a permit's primaryType.
type Kind string

// The permit kinds of the XDaLa Permit Catalog and the XGR endpoint reference.
const (
	// KindSession authorizes starting or continuing one session of one
	// orchestration (xgr_validateDataTransfer).
	KindSession Kind = "SessionPermit"
	// KindControl authorizes a control action (kill, wake, ...) on one
	// root session, signed by the session's runner.
	KindControl Kind = "ControlPermit"
	// KindControlV2 is KindControl with an explicit runner, so that an
	// allow-listed caller (from) can act on another runner's session.
	KindControlV2 Kind = "ControlPermitV2"
	// KindXdala authenticates a caller: only a signer and an expiry.
	KindXdala Kind = "xdalaPermit"
	// KindSessionV2 is KindSession bound to its request: it also signs the
	// XRC-729 registry, the start step and the hash of the start payload
	// (an xgr extension; see PayloadHash).
	KindSessionV2 Kind = "SessionPermitV2"
	// KindControlV3 is KindControlV2 bound to its request: it also signs
	// the process id (pid mode; "" in step mode) and the hash of the wake
	// payload (an xgr extension; see PayloadHash).
	KindControlV3 Kind = "ControlPermitV3"
	// KindGrant is the bound version of KindXdala for xgr_manageGrants: it
	// also signs the RID, the scope and EntriesHash of the grant entries
	// (and their references), so that it writes only that change (an xgr
	// extension; see EntriesHash).
	KindGrant Kind = "GrantPermit"
)

// Kinds lists every permit kind: the reference's four, then the bound ones.
func Kinds() []Kind {
	return []Kind{KindSession, KindControl, KindControlV2, KindXdala, KindSessionV2, KindControlV3, KindGrant}
}

// Bound reports whether a permit of kind k signs the request it
// authorizes (payload, step, registry or process), so that it cannot be
// used with another request.
func (k Kind) Bound() bool { return k == KindSessionV2 || k == KindControlV3 || k == KindGrant }

// BoundVersion is the bound kind that replaces the unbound kind k
// (SessionPermit: SessionPermitV2; ControlPermit and ControlPermitV2:
// ControlPermitV3; xdalaPermit: GrantPermit, where a method takes both),
// or "" when k has none.
func (k Kind) BoundVersion() Kind {
	switch k {
	case KindSession:
		return KindSessionV2
	case KindControl, KindControlV2:
		return KindControlV3
	case KindXdala:
		return KindGrant
	}
	return ""
}

// The domains are pinned: Verify accepts exactly these names and versions.
// SessionDomainName and SessionDomainVersion are the permit catalog's, for
// SessionPermit and SessionPermitV2.
const (
	SessionDomainName    = "XDaLa SessionPermit"
	SessionDomainVersion = "1"
)

// ControlDomainName and ControlDomainVersion are the domain of
// ControlPermit, ControlPermitV2 and ControlPermitV3 (the reference leaves
// the name open; these are the ones the XDaLa clients and xgr sign).
const (
	ControlDomainName    = "XDaLa Control"
	ControlDomainVersion = "1"
)

// XdalaDomainName and XdalaDomainVersion are the domain of an xdalaPermit
// (the permit catalog's example) and of a GrantPermit.
const (
	XdalaDomainName    = "XDaLa Permit"
	XdalaDomainVersion = "1"
)

// domainOf is the pinned domain name and version of kind k.
func (k Kind) domainOf() (name, version string) {
	switch {
	case k == KindSession || k == KindSessionV2:
		return SessionDomainName, SessionDomainVersion
	case k.isControl():
		return ControlDomainName, ControlDomainVersion
	}
	return XdalaDomainName, XdalaDomainVersion
}

// Action is a control permit's message.action.
type Action string

// The actions a control permit may sign. Which of them an endpoint accepts
// is the gateway's decision (xgr_control takes only kill, xgr_wakeUpProcess
// only wake).
const (
	ActionKill   Action = "kill"
	ActionWake   Action = "wake"
	ActionPause  Action = "pause"
	ActionResume Action = "resume"
)

// Actions lists every action a control permit may carry.
func Actions() []Action { return []Action{ActionKill, ActionWake, ActionPause, ActionResume} }

func validAction(s string) bool {
	for _, a := range Actions() {
		if string(a) == s {
			return true
		}
	}
	return false
}

// SessionMsg is the message of a SessionPermit or a SessionPermitV2.
// Integers are kept exact.
type SessionMsg struct {
	// From is the signer, who must own the orchestration (checked by the gateway).
	From common.Address
	// Registry is the XRC-729 registry the session may start under
	// (SessionPermitV2 only; zero in a SessionPermit).
	Registry common.Address
	// OstcID is the orchestration's semantic id.
	OstcID string
	// OstcHash is the keccak256 of the orchestration's JSON text.
	OstcHash common.Hash
	// StartStep is the step the session may start at (SessionPermitV2
	// only, non-empty there; "" in a SessionPermit).
	StartStep string
	// PayloadHash is PayloadHash of the start payload (SessionPermitV2
	// only; zero in a SessionPermit).
	PayloadHash common.Hash
	// SessionID is the root session id (1..2^63-1 after Verify).
	SessionID *big.Int
	// MaxTotalGas is the signed gas budget of the whole session's
	// executions. It can only lower the operator's ceiling
	// (executions.maxSessionGas); 0 sets none.
	MaxTotalGas *big.Int
	// Expiry is the last valid moment, in unix seconds.
	Expiry *big.Int
}

// ControlMsg is the message of a ControlPermit, ControlPermitV2 or
// ControlPermitV3.
type ControlMsg struct {
	// From is the signer.
	From common.Address
	// Runner is the owner of the session acted on. A ControlPermit has no
	// runner field: Verify sets Runner = From for it, and SignControl
	// refuses a Runner other than From (or zero) unless v2 is set.
	Runner common.Address
	// SessionID is the root session id (1..2^63-1 after Verify).
	SessionID *big.Int
	// Action is what the signer allows.
	Action Action
	// StepID restricts a wake to the processes waiting on this step; ""
	// when the permit has no stepId field (the catalog's ControlPermit) or
	// signs it empty.
	StepID string
	// Pid is the process a pid-mode wake wakes ("<sessionId>:<iteration>"),
	// "" in step mode (ControlPermitV3 only; "" in the others).
	Pid string
	// PayloadHash is PayloadHash of the wake payload (ControlPermitV3
	// only; zero in the others).
	PayloadHash common.Hash
	// Expiry is the last valid moment, in unix seconds.
	Expiry *big.Int
}

// GrantMsg is the message of a GrantPermit: an xdalaPermit bound to one
// xgr_manageGrants request.
type GrantMsg struct {
	// From is the signer, who must be the request's owner.
	From common.Address
	// RID is the request's rid.
	RID common.Hash
	// Scope is the request's scope: 1 (rules) or 2 (logs).
	Scope uint8
	// EntriesHash is EntriesHash of the request's entries and references.
	EntriesHash common.Hash
	// Expiry is the last valid moment, in unix seconds.
	Expiry *big.Int
}

// XdalaMsg is the message of an xdalaPermit.
type XdalaMsg struct {
	// From is the signer.
	From common.Address
	// Expiry is the last valid moment, in unix seconds.
	Expiry *big.Int
}

// field is one member of an EIP-712 struct type.
type field = apitypes.Type

// Canonical definitions. Each kind lists its accepted variants; the first
// is the one the Go signer produces.
var (
	sessionFields = []field{
		{Name: "from", Type: "address"},
		{Name: "ostcId", Type: "string"},
		{Name: "ostcHash", Type: "bytes32"},
		{Name: "sessionId", Type: "uint256"},
		{Name: "maxTotalGas", Type: "uint256"},
		{Name: "expiry", Type: "uint256"},
	}
	// sessionFieldsStringHash is what the public XDaLa demo client signs:
	// ostcHash typed string. Its value must still be a bytes32 in hex.
	sessionFieldsStringHash = []field{
		{Name: "from", Type: "address"},
		{Name: "ostcId", Type: "string"},
		{Name: "ostcHash", Type: "string"},
		{Name: "sessionId", Type: "uint256"},
		{Name: "maxTotalGas", Type: "uint256"},
		{Name: "expiry", Type: "uint256"},
	}
	// controlFields is the endpoint reference's ControlPermit (with stepId).
	controlFields = []field{
		{Name: "from", Type: "address"},
		{Name: "sessionId", Type: "uint256"},
		{Name: "action", Type: "string"},
		{Name: "stepId", Type: "string"},
		{Name: "expiry", Type: "uint256"},
	}
	// controlFieldsNoStep is the permit catalog's ControlPermit (no stepId).
	controlFieldsNoStep = []field{
		{Name: "from", Type: "address"},
		{Name: "sessionId", Type: "uint256"},
		{Name: "action", Type: "string"},
		{Name: "expiry", Type: "uint256"},
	}
	controlV2Fields = []field{
		{Name: "from", Type: "address"},
		{Name: "runner", Type: "address"},
		{Name: "sessionId", Type: "uint256"},
		{Name: "action", Type: "string"},
		{Name: "stepId", Type: "string"},
		{Name: "expiry", Type: "uint256"},
	}
	xdalaFields = []field{
		{Name: "from", Type: "address"},
		{Name: "expiry", Type: "uint256"},
	}
	// sessionV2Fields is SessionPermit plus the request it is bound to.
	sessionV2Fields = []field{
		{Name: "from", Type: "address"},
		{Name: "registry", Type: "address"},
		{Name: "ostcId", Type: "string"},
		{Name: "ostcHash", Type: "bytes32"},
		{Name: "startStep", Type: "string"},
		{Name: "payloadHash", Type: "bytes32"},
		{Name: "sessionId", Type: "uint256"},
		{Name: "maxTotalGas", Type: "uint256"},
		{Name: "expiry", Type: "uint256"},
	}
	// controlV3Fields is ControlPermitV2 plus the request it is bound to.
	controlV3Fields = []field{
		{Name: "from", Type: "address"},
		{Name: "runner", Type: "address"},
		{Name: "sessionId", Type: "uint256"},
		{Name: "action", Type: "string"},
		{Name: "stepId", Type: "string"},
		{Name: "pid", Type: "string"},
		{Name: "payloadHash", Type: "bytes32"},
		{Name: "expiry", Type: "uint256"},
	}

	// grantFields is xdalaPermit plus the xgr_manageGrants request it is
	// bound to.
	grantFields = []field{
		{Name: "from", Type: "address"},
		{Name: "rid", Type: "bytes32"},
		{Name: "scope", Type: "uint256"},
		{Name: "entriesHash", Type: "bytes32"},
		{Name: "expiry", Type: "uint256"},
	}

	variants = map[Kind][][]field{
		KindSession:   {sessionFields, sessionFieldsStringHash},
		KindControl:   {controlFields, controlFieldsNoStep},
		KindControlV2: {controlV2Fields},
		KindXdala:     {xdalaFields},
		KindSessionV2: {sessionV2Fields},
		KindControlV3: {controlV3Fields},
		KindGrant:     {grantFields},
	}

	// Domain types, in the order ethers.js, viem and MetaMask derive them
	// from the domain's members.
	domainFields = []field{
		{Name: "name", Type: "string"},
		{Name: "version", Type: "string"},
		{Name: "chainId", Type: "uint256"},
	}
	domainFieldsContract = []field{
		{Name: "name", Type: "string"},
		{Name: "version", Type: "string"},
		{Name: "chainId", Type: "uint256"},
		{Name: "verifyingContract", Type: "address"},
	}
)

// isControl reports whether k is bound to the control-domain contract.
func (k Kind) isControl() bool { return k == KindControl || k == KindControlV2 || k == KindControlV3 }

// domainTypes returns the EIP712Domain definition of kind k.
func (k Kind) domainTypes() []field {
	if k.isControl() {
		return domainFieldsContract
	}
	return domainFields
}

func knownKind(s string) (Kind, bool) {
	for _, k := range Kinds() {
		if string(k) == s {
			return k, true
		}
	}
	return "", false
}

// describe writes a field list as "[from address, expiry uint256]".
func describe(fs []field) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, f := range fs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f.Name)
		b.WriteByte(' ')
		b.WriteString(f.Type)
	}
	b.WriteByte(']')
	return b.String()
}

func sameFields(a, b []field) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
