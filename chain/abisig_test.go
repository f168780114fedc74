package chain

import (
	"errors"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/xgr-sidecar/xgr/rule"
)

func TestParseSignature(t *testing.T) {
	cases := []struct {
		sig, canonical, selector string
		returns                  string // "" when not declared
	}{
		{"balanceOf(address)", "balanceOf(address)", "0x70a08231", ""},
		{"balanceOf(address)(uint256)", "balanceOf(address)", "0x70a08231", "(uint256)"},
		{"allowance(address,address)", "allowance(address,address)", "0xdd62ed3e", ""},
		{"getReserves()(uint112,uint112,uint32)", "getReserves()", "0x0902f1ac", "(uint112,uint112,uint32)"},
		{"f(uint,int[2],(uint,bytes32)[])", "f(uint256,int256[2],(uint256,bytes32)[])", "", ""},
		{"slot0()", "slot0()", "0x3850c7bd", ""},
	}
	for _, c := range cases {
		s, err := ParseSignature(c.sig)
		if err != nil {
			t.Errorf("%s: %v", c.sig, err)
			continue
		}
		if s.Method.Sig != c.canonical {
			t.Errorf("%s: canonical %s, want %s", c.sig, s.Method.Sig, c.canonical)
		}
		if c.selector != "" && hexutil.Encode(s.Method.ID) != c.selector {
			t.Errorf("%s: selector %s, want %s", c.sig, hexutil.Encode(s.Method.ID), c.selector)
		}
		if got := map[bool]string{true: typeList(s.Method.Outputs), false: ""}[s.HasReturns]; got != c.returns {
			t.Errorf("%s: returns %q, want %q", c.sig, got, c.returns)
		}
	}
	for _, bad := range []string{"balanceOf", "(address)", "f(address", "f(uint7)", "f(address)(uint256", "f(address)x", "f(address)(uint256)(bool)",
		"f((uint256,bytes32)[2])"} { // the last passes the document check; go-ethereum's selector parser takes no static tuple arrays
		if _, err := ParseSignature(bad); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("%q: want an error naming the signature, got %v", bad, err)
		}
	}
}

func TestCalldata(t *testing.T) {
	s, err := ParseSignature("transfer(address,uint256)")
	if err != nil {
		t.Fatal(err)
	}
	to := "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
	data, err := s.Calldata([]rule.ReadArg{{Type: rule.TypeAddress, Value: to}, {Type: rule.TypeUint256, Value: "1000000000000000000000"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "0xa9059cbb" +
		"00000000000000000000000070997970c51812dc3a010c7d01b50e0d17dc79c8" +
		"00000000000000000000000000000000000000000000003635c9adc5dea00000"
	if hexutil.Encode(data) != want {
		t.Errorf("calldata\n got %s\nwant %s", hexutil.Encode(data), want)
	}
	if _, err := s.Calldata([]rule.ReadArg{{Type: rule.TypeAddress, Value: to}}); !errors.Is(err, rule.ErrInvalidRead) || !strings.Contains(err.Error(), "takes 2 argument(s), the read gives 1") {
		t.Errorf("count mismatch: %v", err)
	}
}

func TestABIValue(t *testing.T) {
	typ := func(name string) abi.Type {
		t.Helper()
		ty, err := abi.NewType(name, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		return ty
	}
	max256, _ := new(big.Int).SetString("115792089237316195423570985008687907853269984665640564039457584007913129639935", 10)
	ok := []struct {
		abiType string
		arg     rule.ReadArg
		want    any
	}{
		{"uint8", rule.ReadArg{Type: rule.TypeInt64, Value: int64(255)}, uint8(255)},
		{"int8", rule.ReadArg{Type: rule.TypeInt64, Value: int64(-128)}, int8(-128)},
		{"uint64", rule.ReadArg{Type: rule.TypeUint64, Value: uint64(1 << 63)}, uint64(1 << 63)},
		{"int24", rule.ReadArg{Type: rule.TypeInt64, Value: int64(-8388608)}, big.NewInt(-8388608)},
		{"uint256", rule.ReadArg{Type: rule.TypeUint256, Value: max256.String()}, max256},
		{"int256", rule.ReadArg{Type: rule.TypeDouble, Value: 42.0}, big.NewInt(42)},
		{"bool", rule.ReadArg{Type: rule.TypeBool, Value: true}, true},
		{"address", rule.ReadArg{Type: rule.TypeAddress, Value: "0x" + strings.Repeat("ab", 20)}, common.HexToAddress("0x" + strings.Repeat("ab", 20))},
		{"string", rule.ReadArg{Type: rule.TypeString, Value: "BTC"}, "BTC"},
		{"bytes", rule.ReadArg{Type: rule.TypeBytes, Value: "0x0102"}, []byte{1, 2}},
		{"bytes4", rule.ReadArg{Type: rule.TypeBytes, Value: "0x01020304"}, [4]byte{1, 2, 3, 4}},
	}
	for _, c := range ok {
		got, err := abiValue(typ(c.abiType), c.arg)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s from %v: %#v, %v; want %#v", c.abiType, c.arg, got, err, c.want)
		}
	}
	bad := []struct {
		abiType string
		arg     rule.ReadArg
		why     string
	}{
		{"uint8", rule.ReadArg{Type: rule.TypeInt64, Value: int64(256)}, "int64 value 256 cannot be passed as ABI uint8: out of range"},
		{"uint256", rule.ReadArg{Type: rule.TypeInt64, Value: int64(-1)}, "out of range"},
		{"int8", rule.ReadArg{Type: rule.TypeInt64, Value: int64(128)}, "out of range"},
		{"uint256", rule.ReadArg{Type: rule.TypeDecimal, Value: "1.5"}, "not a whole number"},
		{"uint256", rule.ReadArg{Type: rule.TypeDouble, Value: 0.5}, "not a whole number"},
		{"bool", rule.ReadArg{Type: rule.TypeInt64, Value: int64(1)}, "not a bool"},
		{"address", rule.ReadArg{Type: rule.TypeString, Value: "alice"}, "40 hex digits"},
		{"string", rule.ReadArg{Type: rule.TypeInt64, Value: int64(1)}, "not a string"},
		{"bytes4", rule.ReadArg{Type: rule.TypeBytes, Value: "0x0102"}, "2 bytes, bytes4 takes exactly 4"},
		{"bytes", rule.ReadArg{Type: rule.TypeString, Value: "hello"}, "not a 0x hex string"},
		{"uint256[]", rule.ReadArg{Type: rule.TypeString, Value: "[1]"}, "elementary ABI types"},
	}
	for _, c := range bad {
		if _, err := abiValue(typ(c.abiType), c.arg); err == nil || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%s from %v: %v; want an error containing %q", c.abiType, c.arg, err, c.why)
		}
	}
}

func TestDecodeSlots(t *testing.T) {
	args := abi.Arguments{}
	for _, n := range []string{"uint256", "string", "int64", "bool", "bytes32", "address", "uint256"} {
		ty, _ := abi.NewType(n, "", nil)
		args = append(args, abi.Argument{Type: ty})
	}
	tag := [32]byte{0xaa, 31: 0xbb}
	self := common.HexToAddress("0x" + strings.Repeat("12", 20))
	data, err := args.Pack(big.NewInt(7), "hello", int64(-42), true, tag, self, big.NewInt(3))
	if err != nil {
		t.Fatal(err)
	}
	slots := []rule.ReturnSlot{
		{Index: 0, Type: rule.TypeUint256}, {Index: 1, Type: rule.TypeString}, {Index: 2, Type: rule.TypeInt64},
		{Index: 3, Type: rule.TypeBool}, {Index: 4, Type: rule.TypeBytes32}, {Index: 5, Type: rule.TypeAddress},
		{Index: 40, Type: rule.TypeUint64},
	}
	got := decodeSlots(data, slots)
	want := []any{big.NewInt(7), "hello", big.NewInt(-42), true, "0xaa000000000000000000000000000000000000000000000000000000000000bb", self.Hex()}
	// Slot 6 is not asked for; slot 40 lies past the data (9 words) and is left out.
	if len(got) != 6 || !reflect.DeepEqual(got[:6], want) {
		t.Errorf("slots: %#v", got)
	}
	// Each cast value goes through rule.Cast as the evaluator does.
	for i, typ := range []rule.Type{rule.TypeUint256, rule.TypeString, rule.TypeInt64, rule.TypeBool, rule.TypeBytes32, rule.TypeAddress} {
		if _, err := rule.Cast(typ, got[i]); err != nil {
			t.Errorf("slot %d: %v", i, err)
		}
	}
	// A slot that does not decode is an error element; the others stand.
	got = decodeSlots(data, []rule.ReturnSlot{{Index: 0, Type: rule.TypeBool}, {Index: 2, Type: rule.TypeInt64}})
	if err, ok := got[0].(error); !ok || !strings.Contains(err.Error(), "return slot 0 as ABI bool") {
		t.Errorf("bool from 7: %#v", got[0])
	}
	if !reflect.DeepEqual(got[2], big.NewInt(-42)) {
		t.Errorf("slot 2 after a failed slot 0: %#v", got[2])
	}
	if got := decodeSlots(nil, slots); len(got) != 0 {
		t.Errorf("no data: %#v", got)
	}
}

func TestPlain(t *testing.T) {
	type tuple struct {
		A *big.Int
		B common.Address
	}
	addr := common.HexToAddress("0x" + strings.Repeat("0f", 20))
	cases := []struct{ in, want any }{
		{[]byte{0xca, 0xfe}, "0xcafe"},
		{[2]byte{1, 2}, "0x0102"},
		{addr, addr.Hex()},
		{[]*big.Int{big.NewInt(1), big.NewInt(2)}, []any{big.NewInt(1), big.NewInt(2)}},
		{tuple{big.NewInt(5), addr}, []any{big.NewInt(5), addr.Hex()}},
		{uint16(9), uint16(9)},
	}
	for _, c := range cases {
		if got := plain(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("plain(%#v) = %#v, want %#v", c.in, got, c.want)
		}
	}
}

// FuzzParseSignature: whatever passes the document check parses or fails
// with an error, never a panic (not even a recovered one), and a parsed method's selector is stable.
func FuzzParseSignature(f *testing.F) {
	for _, s := range []string{"balanceOf(address)", "f(uint,int[2],(uint,bytes32)[])(bool)", "f((uint256,bytes32)[2])", "g()", "h(bytes32[][3])(string)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sig string) {
		s, err := ParseSignature(sig)
		if err != nil {
			if strings.Contains(err.Error(), "selector parser failed") {
				t.Fatalf("%q passed the document check but panicked the selector parser: %v", sig, err)
			}
			return
		}
		again, err := ParseSignature(sig)
		if err != nil || string(again.Method.ID) != string(s.Method.ID) {
			t.Fatalf("%q: second parse differs: %v", sig, err)
		}
	})
}
