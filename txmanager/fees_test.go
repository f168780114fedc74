package txmanager

import (
	"math/big"
	"testing"
)

func gwei(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1e9)) }

var policy = FeePolicy{MaxFeePerGas: gwei(100), BumpPercent: 10}

func TestInitialFees(t *testing.T) {
	f := InitialFees(policy, Market{BaseFee: gwei(10), Tip: gwei(2)})
	if f.Legacy() || f.TipCap.Cmp(gwei(2)) != 0 || f.FeeCap.Cmp(gwei(22)) != 0 {
		t.Fatalf("EIP-1559: %s; want tip 2 gwei, feeCap 22 gwei", f)
	}
	// The cap bounds the fee cap and the tip with it.
	f = InitialFees(FeePolicy{MaxFeePerGas: gwei(1), BumpPercent: 10}, Market{BaseFee: gwei(10), Tip: gwei(2)})
	if f.FeeCap.Cmp(gwei(1)) != 0 || f.TipCap.Cmp(gwei(1)) != 0 {
		t.Fatalf("capped: %s; want both 1 gwei", f)
	}
	f = InitialFees(policy, Market{GasPrice: gwei(7)})
	if !f.Legacy() || f.GasPrice.Cmp(gwei(7)) != 0 {
		t.Fatalf("legacy: %s; want gasPrice 7 gwei", f)
	}
	f = InitialFees(policy, Market{GasPrice: gwei(700)})
	if f.GasPrice.Cmp(gwei(100)) != 0 {
		t.Fatalf("legacy capped: %s; want 100 gwei", f)
	}
}

func TestBumpFeesRaisesBothByTheBumpPercent(t *testing.T) {
	prev := Fees{TipCap: gwei(2), FeeCap: gwei(22)}
	// The market did not move: both rise by exactly 10%.
	next, ok := BumpFees(policy, prev, Market{BaseFee: gwei(1), Tip: gwei(1)})
	if !ok || next.TipCap.Cmp(big.NewInt(2.2e9)) != 0 || next.FeeCap.Cmp(big.NewInt(24.2e9)) != 0 {
		t.Fatalf("bump: %s ok=%v; want tip 2.2 gwei, feeCap 24.2 gwei", next, ok)
	}
	// The base fee jumped: the fee cap follows the market.
	next, ok = BumpFees(policy, prev, Market{BaseFee: gwei(40), Tip: gwei(1)})
	if !ok || next.FeeCap.Cmp(big.NewInt(82.2e9)) != 0 || next.TipCap.Cmp(big.NewInt(2.2e9)) != 0 {
		t.Fatalf("bump after a base fee jump: %s ok=%v; want tip 2.2 gwei, feeCap 82.2 gwei", next, ok)
	}
	// Above the cap the market is cut, the +10% floor still fits.
	next, ok = BumpFees(policy, prev, Market{BaseFee: gwei(60), Tip: gwei(1)})
	if !ok || next.FeeCap.Cmp(gwei(100)) != 0 {
		t.Fatalf("bump at the cap: %s ok=%v; want feeCap 100 gwei", next, ok)
	}
	// No room for +10% under the cap: no bump.
	if next, ok = BumpFees(policy, Fees{TipCap: gwei(2), FeeCap: gwei(95)}, Market{BaseFee: gwei(60), Tip: gwei(1)}); ok {
		t.Fatalf("bump over the cap: %s; want none", next)
	}
	// A zero tip rises to at least 1 wei.
	next, ok = BumpFees(policy, Fees{TipCap: big.NewInt(0), FeeCap: gwei(2)}, Market{BaseFee: gwei(1), Tip: big.NewInt(0)})
	if !ok || next.TipCap.Sign() <= 0 {
		t.Fatalf("bump of a zero tip: %s ok=%v", next, ok)
	}
}

func TestBumpFeesLegacy(t *testing.T) {
	next, ok := BumpFees(policy, Fees{GasPrice: gwei(10)}, Market{GasPrice: gwei(5)})
	if !ok || !next.Legacy() || next.GasPrice.Cmp(gwei(11)) != 0 {
		t.Fatalf("legacy bump: %s ok=%v; want 11 gwei", next, ok)
	}
	next, ok = BumpFees(policy, Fees{GasPrice: gwei(10)}, Market{GasPrice: gwei(30)})
	if !ok || next.GasPrice.Cmp(gwei(30)) != 0 {
		t.Fatalf("legacy bump to the market: %s ok=%v; want 30 gwei", next, ok)
	}
	if _, ok = BumpFees(policy, Fees{GasPrice: gwei(95)}, Market{GasPrice: gwei(30)}); ok {
		t.Fatal("legacy bump over the cap: want none")
	}
}

func TestFeePolicyCheck(t *testing.T) {
	if err := (FeePolicy{MaxFeePerGas: gwei(1), BumpPercent: 9}).Check(); err == nil {
		t.Fatal("BumpPercent 9 accepted; nodes refuse such replacements")
	}
	if err := (FeePolicy{BumpPercent: 10}).Check(); err == nil {
		t.Fatal("no MaxFeePerGas accepted")
	}
}

func TestFinality(t *testing.T) {
	f := Finality{Mode: "confirmations", Confirmations: 1}
	if n, ok := f.finalHead(7, 0); !ok || n != 7 {
		t.Fatalf("1 confirmation at head 7: %d %v; want 7 (mined is final)", n, ok)
	}
	f.Confirmations = 12
	if _, ok := f.finalHead(10, 0); ok {
		t.Fatal("12 confirmations at head 10: want nothing final")
	}
	if n, _ := f.finalHead(20, 0); n != 9 {
		t.Fatalf("12 confirmations at head 20: %d; want 9", n)
	}
	if n, ok := (Finality{Mode: "finalized"}).finalHead(20, 5); !ok || n != 5 {
		t.Fatalf("finalized tag 5: %d %v", n, ok)
	}
	for _, bad := range []Finality{{Mode: "confirmations"}, {Mode: "latest"}} {
		if bad.Check() == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

func TestDueForBumpAndGaps(t *testing.T) {
	if dueForBump(10, 12, 3) || !dueForBump(10, 13, 3) {
		t.Fatal("an attempt signed at 10 is due for a bump after 3 blocks at head 13, not before")
	}
	got := gaps(5, 9, map[uint64]bool{5: true, 7: true})
	if len(got) != 2 || got[0] != 6 || got[1] != 8 {
		t.Fatalf("gaps: %v; want [6 8]", got)
	}
	if g := gaps(9, 9, nil); len(g) != 0 {
		t.Fatalf("no assigned nonce above the mined one: %v", g)
	}
}

func TestRequestCheck(t *testing.T) {
	ok := Request{Key: "0xabc/1/1:2", To: [20]byte{1}}
	if err := ok.check(0); err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]Request{
		"empty key":   {To: [20]byte{1}},
		"fill key":    {Key: "fill:3", To: [20]byte{1}},
		"space":       {Key: "a b", To: [20]byte{1}},
		"no to":       {Key: "k"},
		"negative":    {Key: "k", To: [20]byte{1}, Value: big.NewInt(-1)},
		"gas too big": {Key: "k", To: [20]byte{1}, GasLimit: 2e6},
	} {
		if err := r.check(1e6); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
