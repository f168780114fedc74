package execution

import (
	"context"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// Call is a selected branch's execution, resolved and encoded: what would
// be signed. Nothing is signed by building one.
type Call struct {
	// To is the called contract.
	To common.Address `json:"to"`
	// Function is the signature as the rule names it, e.g.
	// "settle(uint256,address)"; empty for a plain value transfer.
	Function string `json:"function,omitempty"`
	// Data is the ABI-encoded calldata (selector and arguments).
	Data hexutil.Bytes `json:"data"`
	// Value is the wei sent along; nil is 0.
	Value *big.Int `json:"value,omitempty"`
	// GasLimit is the rule's gas.limit; 0 when the rule sets none (the
	// operator's cap or an estimate applies).
	GasLimit uint64 `json:"gasLimit,omitempty"`
}

// Scope is who and what an execution is for: what policy and authority
// are checked against.
type Scope struct {
	// Owner is the session's runner (the permit signer).
	Owner common.Address
	// Session is the root session id; Pid the executing process.
	Session uint64
	Pid     string
	// Registry is the orchestration's registry; RuleContract the step's
	// XRC-137 contract (zero for rules not read from chain).
	Registry     common.Address
	RuleContract common.Address
	// MaxTotalGas is the SessionPermit's maxTotalGas: it can only lower
	// the operator's ceiling (Policy.MaxSessionGas); 0 sets none.
	MaxTotalGas uint64
}

// Outcome is a final execution.
type Outcome struct {
	TxHash  common.Hash `json:"txHash"`
	Block   uint64      `json:"block"`
	GasUsed uint64      `json:"gasUsed"`
	// Status is the receipt's status: 1 success, 0 reverted.
	Status uint64 `json:"status"`
	// RevertReason is the decoded reason of a revert, when the node gives one.
	RevertReason string `json:"revertReason,omitempty"`
	// Lost is set when the transaction can no longer be included (its
	// nonce was used by another transaction, or the node refused it for
	// good: intrinsic gas, funds, size, dropped); Error says why. Nothing
	// was executed, and the step fails with Error.
	Lost  bool   `json:"lost,omitempty"`
	Error string `json:"error,omitempty"`
	// ValueWei and FeeWei are what the transaction moved and cost: its
	// value and gasUsed × effectiveGasPrice (decimal wei; "" when the
	// actuator does not know); FinalAt is when it became final (zero when
	// unknown). They feed the billing meter (joinstore.Store.MeterExecution)
	// and are not kept on the process.
	ValueWei string    `json:"-"`
	FeeWei   string    `json:"-"`
	FinalAt  time.Time `json:"-"`
}

// Actuator performs executions. Implementations are safe for concurrent
// use by many sessions.
type Actuator interface {
	// Send checks the policy and the runner's authority and records the
	// call under key before anything is broadcast. It is idempotent per
	// key: a second Send of a key that exists returns nil and never signs
	// again. A policy, authority or input error is a *Refusal (nothing
	// is recorded); other errors are transient.
	Send(ctx context.Context, s Scope, key string, c Call) error
	// Outcome reports key's outcome once it is final; ok is false while
	// the transaction is pending or not yet final.
	Outcome(ctx context.Context, key string) (o Outcome, ok bool, err error)
}

// Refusal is a hard error: the call is not sent, and sending it again
// would be refused again. The step that asked for it fails with Reason.
type Refusal struct {
	// Limit names the policy, limit or authority rule that refused, e.g.
	// "executions.maxGasLimit" or "authority".
	Limit  string
	Reason string
}

func (r *Refusal) Error() string { return r.Reason }
