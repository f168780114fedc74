package onchain

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/txmanager"
)

// The Limit names of the refusals the preflight gives: a transaction the
// node would refuse for good is refused here, before a nonce is reserved,
// so that it never holds the executor's later nonces back.
const (
	LimitIntrinsicGas = "preflight.intrinsicGas"
	LimitTxSize       = "preflight.txSize"
	LimitBalance      = "preflight.balance"
	LimitEstimate     = "preflight.estimate"
)

// Gas a transaction costs before any code runs (EIP-2028, EIP-7623).
const (
	TxGas                 = 21000 // every transaction
	TxDataZeroGas         = 4     // per zero calldata byte
	TxDataNonZeroGas      = 16    // per non-zero calldata byte
	TxCostFloorPerToken   = 10    // EIP-7623 floor, per token (a zero byte is 1 token, a non-zero one 4)
	TxTokensPerNonZero    = 4     //
	TxOverheadBytes       = 256   // bound of a signed transaction's size beyond its calldata (see TxSizeBound)
	DefaultMaxTxBytes     = execution.DefaultMaxTxBytes
	intrinsicGasLimitText = "EIP-2028 intrinsic gas (21000 + 4 per zero and 16 per non-zero calldata byte) and EIP-7623 floor (21000 + 10 per token)"
)

// IntrinsicGas is the gas a call with data uses before its code runs
// (pure): 21000 plus 4 per zero and 16 per non-zero calldata byte
// (EIP-2028), and the calldata floor of EIP-7623 (Prague): 21000 plus 10
// per token, a zero byte 1 token and a non-zero one 4. A transaction's gas
// limit must cover both (MinGasLimit). The target is always set, so no
// contract-creation cost applies.
func IntrinsicGas(data []byte) (intrinsic, floor uint64) {
	var zero, nonZero uint64
	for _, b := range data {
		if b == 0 {
			zero++
		} else {
			nonZero++
		}
	}
	intrinsic = TxGas + zero*TxDataZeroGas + nonZero*TxDataNonZeroGas
	floor = TxGas + (zero+nonZero*TxTokensPerNonZero)*TxCostFloorPerToken
	return intrinsic, floor
}

// MinGasLimit is the least gas limit a call with data is accepted with
// (pure): the larger of its intrinsic gas and its EIP-7623 floor.
func MinGasLimit(data []byte) uint64 {
	in, floor := IntrinsicGas(data)
	return max(in, floor)
}

// TxSizeBound bounds the size of the signed transaction of a call with
// dataLen bytes of calldata (pure): the calldata plus TxOverheadBytes,
// which covers the envelope of an EIP-1559 or legacy transaction with
// every field at its largest (type and list headers, 32-byte chain id,
// fees and value, 8-byte nonce and gas, the target, the data header, an
// empty access list and the signature): about 250 bytes.
func TxSizeBound(dataLen int) int { return dataLen + TxOverheadBytes }

// CheckGas refuses a call whose gas limit is below MinGasLimit of its
// calldata or above maxGas (pure; maxGas 0 = no cap). The refusal is a
// *execution.Refusal with Limit LimitIntrinsicGas (or
// execution.LimitMaxGas above the cap).
func CheckGas(c execution.Call, gas, maxGas uint64) error {
	if need := MinGasLimit(c.Data); gas < need {
		in, floor := IntrinsicGas(c.Data)
		return &execution.Refusal{Limit: LimitIntrinsicGas, Reason: fmt.Sprintf(
			"execution to %s: gas limit %d is below the %d the node requires before any code runs for %d bytes of calldata (intrinsic %d, floor %d: %s); raise gas.limit to at least %d",
			c.To.Hex(), gas, need, len(c.Data), in, floor, intrinsicGasLimitText, need)}
	}
	if maxGas > 0 && gas > maxGas {
		return &execution.Refusal{Limit: execution.LimitMaxGas, Reason: fmt.Sprintf("execution to %s: gas limit %d is above the operator's cap %d (%s)",
			c.To.Hex(), gas, maxGas, execution.LimitMaxGas)}
	}
	return nil
}

// CheckTxSize refuses a call whose signed transaction may be larger than
// maxBytes (pure; TxSizeBound of its calldata). The refusal's Limit is
// LimitTxSize.
func CheckTxSize(c execution.Call, maxBytes int) error {
	if size := TxSizeBound(len(c.Data)); size > maxBytes {
		return &execution.Refusal{Limit: LimitTxSize, Reason: fmt.Sprintf(
			"execution to %s: %d bytes of calldata make a signed transaction of up to %d bytes; the node takes at most %d (executions.maxTxBytes): at most %d bytes of calldata fit",
			c.To.Hex(), len(c.Data), size, maxBytes, maxBytes-TxOverheadBytes)}
	}
	return nil
}

// CheckFunds refuses a call the executor cannot pay (pure): its value plus
// gas × feePerGas (the fee cap, or the legacy gas price, of the attempt
// that would be signed) above balance. The refusal's Limit is
// LimitBalance.
func CheckFunds(c execution.Call, gas uint64, feePerGas, balance *big.Int) error {
	cost := new(big.Int).Mul(new(big.Int).SetUint64(gas), feePerGas)
	if c.Value != nil {
		cost.Add(cost, c.Value)
	}
	if cost.Cmp(balance) > 0 {
		return &execution.Refusal{Limit: LimitBalance, Reason: fmt.Sprintf(
			"execution to %s: value %s wei + gas limit %d × fee %s wei = %s wei is more than the executor's balance %s wei",
			c.To.Hex(), bigOr0(c.Value), gas, feePerGas, cost, balance)}
	}
	return nil
}

func bigOr0(v *big.Int) string {
	if v == nil {
		return "0"
	}
	return v.String()
}

// balanceReader reads the executor's balance with the pending block's
// state (*ethclient.Client has it).
type balanceReader interface {
	PendingBalanceAt(ctx context.Context, account common.Address) (*big.Int, error)
}

// preflight checks a call before its nonce is reserved: what the node
// would refuse for good (gas limit below the intrinsic gas, a transaction
// above its size limit, more than the executor can pay), and, when the
// operator turns it on, the node's gas estimate of the call.
type preflight struct {
	chain      Chain
	balance    balanceReader
	fees       func(context.Context) (txmanager.Fees, error)
	from       common.Address
	maxGas     uint64
	maxTxBytes int
	estimate   bool
}

func newPreflight(c Chain, m *txmanager.Manager, x execution.Config) (*preflight, error) {
	b, ok := c.(balanceReader)
	if !ok {
		return nil, errors.New("onchain: the chain client cannot read balances (PendingBalanceAt); the preflight needs it")
	}
	maxTx := x.MaxTxBytes
	if maxTx == 0 {
		maxTx = DefaultMaxTxBytes
	}
	return &preflight{chain: c, balance: b, fees: m.NextFees, from: m.Sender(), maxGas: x.Policy.MaxGasLimit,
		maxTxBytes: maxTx, estimate: x.PreflightEstimate}, nil
}

// check runs the preflight of c sent with gas limit gas: the pure checks,
// then one balance read (and the fee market, cached by the manager), then
// eth_estimateGas when turned on. A call the node would refuse is a
// *execution.Refusal; a failed read is an error (transient).
func (p *preflight) check(ctx context.Context, key string, c execution.Call, gas uint64) error {
	if err := CheckGas(c, gas, p.maxGas); err != nil {
		return err
	}
	if err := CheckTxSize(c, p.maxTxBytes); err != nil {
		return err
	}
	fees, err := p.fees(ctx)
	if err != nil {
		return fmt.Errorf("preflight of %q: %w", key, err)
	}
	fee := fees.FeeCap
	if fees.Legacy() {
		fee = fees.GasPrice
	}
	bal, err := p.balance.PendingBalanceAt(ctx, p.from)
	if err != nil {
		return fmt.Errorf("preflight of %q: read the executor's balance: %w", key, err)
	}
	if err := CheckFunds(c, gas, fee, bal); err != nil {
		return err
	}
	if !p.estimate {
		return nil
	}
	to := c.To
	est, err := p.chain.EstimateGas(ctx, ethereum.CallMsg{From: p.from, To: &to, Gas: gas, Value: c.Value, Data: c.Data})
	if err != nil {
		if re, ok := chain.AsRevert("execution to "+to.Hex(), err); ok {
			return &execution.Refusal{Limit: LimitEstimate, Reason: fmt.Sprintf("execution to %s: the node's gas estimate reverts: %s (executions.preflightEstimate)", to.Hex(), revertText(re.Reason))}
		}
		if msg := strings.ToLower(err.Error()); strings.Contains(msg, "gas required exceeds") || strings.Contains(msg, "out of gas") ||
			strings.Contains(msg, "insufficient funds") {
			return &execution.Refusal{Limit: LimitEstimate, Reason: fmt.Sprintf("execution to %s: the node's gas estimate with gas limit %d fails: %v (executions.preflightEstimate)", to.Hex(), gas, err)}
		}
		return fmt.Errorf("preflight of %q: eth_estimateGas: %w", key, err)
	}
	if est > gas {
		return &execution.Refusal{Limit: LimitEstimate, Reason: fmt.Sprintf("execution to %s: the node estimates %d gas, above its gas limit %d (executions.preflightEstimate); raise gas.limit", to.Hex(), est, gas)}
	}
	return nil
}

func revertText(reason string) string {
	if reason == "" {
		return "no reason given"
	}
	return reason
}
