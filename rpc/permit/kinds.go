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
)

// Kinds lists every permit kind.
func Kinds() []Kind { return []Kind{KindSession, KindControl, KindControlV2, KindXdala} }

// SessionDomainName and SessionDomainVersion are the only domain name and
// version a SessionPermit may carry.
const (
	SessionDomainName    = "XDaLa SessionPermit"
	SessionDomainVersion = "1"
)

// DefaultControlDomainName and DefaultControlDomainVersion are the domain
// name and version SignControl uses (those the XDaLa clients use). Verify
// accepts any non-empty name and version on control permits.
const (
	DefaultControlDomainName    = "XDaLa Control"
	DefaultControlDomainVersion = "1"
)

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

// SessionMsg is the message of a SessionPermit. Integers are kept exact.
type SessionMsg struct {
	// From is the signer, who must own the orchestration (checked by the gateway).
	From common.Address
	// OstcID is the orchestration's semantic id.
	OstcID string
	// OstcHash is the keccak256 of the orchestration's JSON text.
	OstcHash common.Hash
	// SessionID is the root session id (1..2^63-1 after Verify).
	SessionID *big.Int
	// MaxTotalGas caps the gas of the whole session.
	MaxTotalGas *big.Int
	// Expiry is the last valid moment, in unix seconds.
	Expiry *big.Int
}

// ControlMsg is the message of a ControlPermit or a ControlPermitV2.
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

	variants = map[Kind][][]field{
		KindSession:   {sessionFields, sessionFieldsStringHash},
		KindControl:   {controlFields, controlFieldsNoStep},
		KindControlV2: {controlV2Fields},
		KindXdala:     {xdalaFields},
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
func (k Kind) isControl() bool { return k == KindControl || k == KindControlV2 }

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
