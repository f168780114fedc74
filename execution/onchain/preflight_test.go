package onchain

import (
	"bytes"
	"crypto/ecdsa"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/xgr-sidecar/xgr/execution"
)

var to = common.HexToAddress("0x000000000000000000000000000000000000bEEF")

// IntrinsicGas agrees with go-ethereum's core.IntrinsicGas and
// core.FloorDataGas (Prague rules) on calldata of every shape.
func TestIntrinsicGasMatchesGeth(t *testing.T) {
	for _, data := range [][]byte{nil, {0}, {1}, {0, 1, 0, 2}, bytes.Repeat([]byte{0xab}, 129*1024), bytes.Repeat([]byte{0}, 1000),
		append(bytes.Repeat([]byte{0}, 77), bytes.Repeat([]byte{9}, 33)...)} {
		in, floor := IntrinsicGas(data)
		from := common.HexToAddress("0x70997970C51812dc3A010C7d01b50e0d17dc79C8")
		want, err := core.IntrinsicGas(data, nil, nil, from, &to, nil, prague)
		if err != nil {
			t.Fatal(err)
		}
		wantFloor, err := core.FloorDataGas(prague, from, &to, nil, data, nil)
		if err != nil {
			t.Fatal(err)
		}
		if in != want || floor != wantFloor {
			t.Errorf("%d bytes: IntrinsicGas = %d, floor %d; geth says %d, floor %d", len(data), in, floor, want, wantFloor)
		}
		if MinGasLimit(data) != max(want, wantFloor) {
			t.Errorf("%d bytes: MinGasLimit %d", len(data), MinGasLimit(data))
		}
	}
	if in, floor := IntrinsicGas([]byte{0, 1}); in != 21000+4+16 || floor != 21000+10*(1+4) {
		t.Errorf("IntrinsicGas(0x0001) = %d, %d; want 21020, 21050", in, floor)
	}
}

// prague is go-ethereum's rule set with Prague (EIP-7623) and without
// Amsterdam.
var prague = params.Rules{IsHomestead: true, IsIstanbul: true, IsBerlin: true, IsLondon: true, IsShanghai: true, IsCancun: true, IsPrague: true}

func refusal(t *testing.T, err error, limit string) *execution.Refusal {
	t.Helper()
	var r *execution.Refusal
	if !errors.As(err, &r) || r.Limit != limit {
		t.Fatalf("got %v; want a refusal with limit %s", err, limit)
	}
	return r
}

func TestCheckGas(t *testing.T) {
	c := execution.Call{To: to, Data: []byte{1, 2, 3}} // intrinsic 21048, floor 21120
	if err := CheckGas(c, 21120, 1_000_000); err != nil {
		t.Errorf("at the floor: %v", err)
	}
	r := refusal(t, CheckGas(c, 1, 1_000_000), LimitIntrinsicGas)
	if !strings.Contains(r.Reason, "gas limit 1 is below the 21120") || !strings.Contains(r.Reason, "at least 21120") {
		t.Errorf("reason %q", r.Reason)
	}
	refusal(t, CheckGas(c, 21119, 0), LimitIntrinsicGas)
	refusal(t, CheckGas(c, 1_000_001, 1_000_000), execution.LimitMaxGas)
	if err := CheckGas(c, 5_000_000, 0); err != nil {
		t.Errorf("no cap: %v", err)
	}
}

func TestCheckTxSize(t *testing.T) {
	max := DefaultMaxTxBytes
	if err := CheckTxSize(execution.Call{To: to, Data: make([]byte, max-TxOverheadBytes)}, max); err != nil {
		t.Errorf("the largest calldata that fits: %v", err)
	}
	r := refusal(t, CheckTxSize(execution.Call{To: to, Data: make([]byte, max-TxOverheadBytes+1)}, max), LimitTxSize)
	if !strings.Contains(r.Reason, "at most 130816 bytes of calldata fit") {
		t.Errorf("reason %q", r.Reason)
	}
	// The 16 × 8000-character strings: about 129 KiB of calldata.
	refusal(t, CheckTxSize(execution.Call{To: to, Data: make([]byte, 129*1024)}, max), LimitTxSize)
}

// TxSizeBound bounds the signed size of EIP-1559 and legacy transactions
// with every field at its largest.
func TestTxSizeBound(t *testing.T) {
	key, _ := crypto.GenerateKey()
	huge := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	for _, n := range []int{0, 1, 55, 56, 255, 256, 65535, 65536, 130816, 1 << 20} {
		data := bytes.Repeat([]byte{0xff}, n)
		id := new(big.Int).Lsh(big.NewInt(1), 250)
		for _, inner := range []types.TxData{
			&types.DynamicFeeTx{ChainID: id, Nonce: ^uint64(0) - 1, GasTipCap: huge, GasFeeCap: huge, Gas: ^uint64(0), To: &to, Value: huge, Data: data},
			&types.LegacyTx{Nonce: ^uint64(0) - 1, GasPrice: huge, Gas: ^uint64(0), To: &to, Value: huge, Data: data},
		} {
			tx := signed(t, key, id, inner)
			if int(tx.Size()) > TxSizeBound(n) {
				t.Errorf("%T with %d bytes of calldata: signed size %d above the bound %d", inner, n, tx.Size(), TxSizeBound(n))
			}
		}
	}
}

func signed(t *testing.T, key *ecdsa.PrivateKey, id *big.Int, inner types.TxData) *types.Transaction {
	t.Helper()
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(id), inner)
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

func TestCheckFunds(t *testing.T) {
	gwei := big.NewInt(1e9)
	c := execution.Call{To: to, Value: big.NewInt(1000)}
	// 100000 × 1 gwei + 1000 = 100000000001000
	if err := CheckFunds(c, 100_000, gwei, big.NewInt(100_000_000_001_000)); err != nil {
		t.Errorf("exactly the balance: %v", err)
	}
	r := refusal(t, CheckFunds(c, 100_000, gwei, big.NewInt(100_000_000_000_999)), LimitBalance)
	if !strings.Contains(r.Reason, "value 1000 wei + gas limit 100000 × fee 1000000000 wei = 100000000001000 wei is more than the executor's balance 100000000000999 wei") {
		t.Errorf("reason %q", r.Reason)
	}
	if err := CheckFunds(execution.Call{To: to}, 21000, gwei, big.NewInt(21000e9)); err != nil {
		t.Errorf("no value: %v", err)
	}
}
