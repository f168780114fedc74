package txmanager

import (
	"fmt"
	"math/big"
)

// Fees are the prices of one attempt: TipCap and FeeCap for an EIP-1559
// transaction, or GasPrice alone for a legacy one (a chain without a base
// fee).
type Fees struct {
	TipCap, FeeCap *big.Int
	GasPrice       *big.Int
}

// Legacy reports whether the fees are a legacy gas price.
func (f Fees) Legacy() bool { return f.GasPrice != nil }

func (f Fees) String() string {
	if f.Legacy() {
		return "gasPrice " + f.GasPrice.String()
	}
	return "tip " + f.TipCap.String() + " feeCap " + f.FeeCap.String()
}

// Market is what the chain says fees are now: the head's base fee (nil on
// a chain without one), the node's suggested tip and its suggested legacy
// gas price.
type Market struct {
	BaseFee, Tip, GasPrice *big.Int
}

// FeePolicy bounds what the manager pays.
type FeePolicy struct {
	// MaxFeePerGas caps the fee cap (EIP-1559) or the gas price (legacy)
	// of every attempt.
	MaxFeePerGas *big.Int
	// BumpPercent is how much each bump raises the tip and the fee cap (or
	// the gas price), at least; nodes replace a pending transaction only
	// when both rise by 10% or more, so it is at least 10.
	BumpPercent uint64
}

// Check reports a policy the manager cannot work with.
func (p FeePolicy) Check() error {
	if p.MaxFeePerGas == nil || p.MaxFeePerGas.Sign() <= 0 {
		return fmt.Errorf("MaxFeePerGas %v: want a positive cap in wei", p.MaxFeePerGas)
	}
	if p.BumpPercent < 10 {
		return fmt.Errorf("BumpPercent %d: want at least 10 (nodes refuse a replacement that raises its fees by less)", p.BumpPercent)
	}
	return nil
}

// InitialFees prices a first attempt: on an EIP-1559 chain the suggested tip
// and a fee cap of twice the base fee plus the tip (room for six full
// blocks of base fee growth), both within the cap; on a legacy chain the
// suggested gas price within the cap.
func InitialFees(p FeePolicy, m Market) Fees {
	if m.BaseFee == nil {
		return Fees{GasPrice: minBig(m.GasPrice, p.MaxFeePerGas)}
	}
	feeCap := new(big.Int).Add(new(big.Int).Mul(m.BaseFee, big.NewInt(2)), m.Tip)
	feeCap = minBig(feeCap, p.MaxFeePerGas)
	return Fees{TipCap: minBig(m.Tip, feeCap), FeeCap: feeCap}
}

// BumpFees prices the attempt that replaces prev: tip and fee cap each at
// least BumpPercent above prev's, and at least what InitialFees would pay
// now (the market may have moved more). ok is false when the cap does not
// leave room for a bump of BumpPercent: the attempt stays as it is.
func BumpFees(p FeePolicy, prev Fees, m Market) (next Fees, ok bool) {
	now := InitialFees(p, m)
	if prev.Legacy() || now.Legacy() {
		if !prev.Legacy() {
			// The chain lost its base fee: a legacy replacement must beat the fee cap.
			prev = Fees{GasPrice: prev.FeeCap}
		}
		floor := raise(prev.GasPrice, p.BumpPercent)
		price := maxBig(floor, now.GasPrice)
		if price.Cmp(p.MaxFeePerGas) > 0 {
			return prev, false
		}
		return Fees{GasPrice: price}, true
	}
	tipFloor, capFloor := raise(prev.TipCap, p.BumpPercent), raise(prev.FeeCap, p.BumpPercent)
	tip := maxBig(tipFloor, now.TipCap)
	feeCap := maxBig(capFloor, new(big.Int).Add(new(big.Int).Mul(m.BaseFee, big.NewInt(2)), tip))
	feeCap = minBig(feeCap, p.MaxFeePerGas)
	if feeCap.Cmp(capFloor) < 0 {
		return prev, false
	}
	if tip.Cmp(feeCap) > 0 {
		tip = new(big.Int).Set(feeCap)
	}
	if tip.Cmp(tipFloor) < 0 {
		return prev, false
	}
	return Fees{TipCap: tip, FeeCap: feeCap}, true
}

// raise is v·(100+pct)/100, rounded up, and at least v+1 (a zero tip
// becomes 1 wei, not 0).
func raise(v *big.Int, pct uint64) *big.Int {
	r := new(big.Int).Mul(v, new(big.Int).SetUint64(100+pct))
	r.Add(r, big.NewInt(99))
	r.Div(r, big.NewInt(100))
	if r.Cmp(v) <= 0 {
		r.Add(v, big.NewInt(1))
	}
	return r
}

func minBig(a, b *big.Int) *big.Int {
	if a.Cmp(b) <= 0 {
		return new(big.Int).Set(a)
	}
	return new(big.Int).Set(b)
}

func maxBig(a, b *big.Int) *big.Int {
	if a.Cmp(b) >= 0 {
		return new(big.Int).Set(a)
	}
	return new(big.Int).Set(b)
}
