package chain

import (
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
)

func constructorABI(t *testing.T, inputs string) abi.ABI {
	t.Helper()
	parsed, err := abi.JSON(strings.NewReader(`[{"type":"constructor","inputs":` + inputs + `}]`))
	if err != nil {
		t.Fatal(err)
	}
	return parsed
}

// Every supported type packs from its JSON form exactly as go-ethereum
// packs the typed Go value.
func TestPackConstructor(t *testing.T) {
	parsed := constructorABI(t, `[{"name":"a","type":"uint8"},{"name":"b","type":"int32"},{"name":"c","type":"uint64"},{"name":"d","type":"uint256"},
		{"name":"e","type":"int256"},{"name":"f","type":"bool"},{"name":"g","type":"address"},{"name":"h","type":"string"},{"name":"i","type":"bytes"},{"name":"j","type":"bytes4"}]`)
	big1, _ := new(big.Int).SetString("123456789012345678901234567890", 10)
	addr := common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3")
	got, err := PackConstructor(parsed, []any{json.Number("255"), float64(-7), "0x10", "123456789012345678901234567890", json.Number("-1"), true,
		addr.Hex(), "hi", "0xbeef", "0x01020304"})
	if err != nil {
		t.Fatal(err)
	}
	want, err := parsed.Pack("", uint8(255), int32(-7), uint64(16), big1, big.NewInt(-1), true, addr, "hi", []byte{0xbe, 0xef}, [4]byte{1, 2, 3, 4})
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("packed\n%x\nwant\n%x", got, want)
	}
}

// A wrong argument is named by position, type and name, with what is
// wrong.
func TestPackConstructorRefusals(t *testing.T) {
	for _, tc := range []struct {
		inputs string
		args   []any
		want   string
	}{
		{`[{"name":"n","type":"uint256"}]`, []any{}, "the constructor takes 1 arguments, constructorArgs has 0"},
		{`[{"name":"n","type":"uint256"}]`, []any{"ten"}, "constructorArgs[0] (uint256 n): ten is not an integer"},
		{`[{"name":"ok","type":"bool"}]`, []any{"true"}, "constructorArgs[0] (bool ok): true is not true or false"},
		{`[{"name":"to","type":"address"}]`, []any{"0x12"}, "constructorArgs[0] (address to): 0x12 is not an address"},
		{`[{"name":"k","type":"bytes32"}]`, []any{"0x01"}, "constructorArgs[0] (bytes32 k): 0x01 is not 32 bytes of hex"},
		{`[{"name":"xs","type":"uint256[]"}]`, []any{"[1]"}, "constructorArgs[0] (uint256[] xs): this parameter type is not supported in constructorArgs"},
	} {
		_, err := PackConstructor(constructorABI(t, tc.inputs), tc.args)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s %v: %v, want %q", tc.inputs, tc.args, err, tc.want)
		}
	}
}
