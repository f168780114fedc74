package chain

import (
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
)

// PackConstructor packs JSON constructor arguments (as decoded into any:
// numbers as json.Number, float64 or strings, "0x…" for addresses and
// bytes) for the constructor of parsed. Elementary parameter types only:
// integers, bool, address, string, bytes, bytesN; an argument is named by
// its position, type and name when it does not fit.
func PackConstructor(parsed abi.ABI, args []any) ([]byte, error) {
	in := parsed.Constructor.Inputs
	if len(args) != len(in) {
		return nil, fmt.Errorf("the constructor takes %d arguments, constructorArgs has %d", len(in), len(args))
	}
	vals := make([]any, len(args))
	for i, a := range args {
		v, err := constructorArg(in[i].Type, a)
		if err != nil {
			return nil, fmt.Errorf("constructorArgs[%d] (%s %s): %w", i, in[i].Type.String(), in[i].Name, err)
		}
		vals[i] = v
	}
	return parsed.Pack("", vals...)
}

// constructorArg is the Go value go-ethereum packs for t.
func constructorArg(t abi.Type, a any) (any, error) {
	text := fmt.Sprint(a)
	switch t.T {
	case abi.IntTy, abi.UintTy:
		n, ok := new(big.Int).SetString(strings.TrimSpace(text), 0)
		if !ok {
			return nil, fmt.Errorf("%v is not an integer", a)
		}
		if t.Size <= 64 { // go-ethereum wants the sized Go type
			if t.T == abi.UintTy {
				switch t.Size {
				case 8:
					return uint8(n.Uint64()), nil
				case 16:
					return uint16(n.Uint64()), nil
				case 32:
					return uint32(n.Uint64()), nil
				}
				return n.Uint64(), nil
			}
			switch t.Size {
			case 8:
				return int8(n.Int64()), nil
			case 16:
				return int16(n.Int64()), nil
			case 32:
				return int32(n.Int64()), nil
			}
			return n.Int64(), nil
		}
		return n, nil
	case abi.BoolTy:
		b, ok := a.(bool)
		if !ok {
			return nil, fmt.Errorf("%v is not true or false", a)
		}
		return b, nil
	case abi.AddressTy:
		if !common.IsHexAddress(text) {
			return nil, fmt.Errorf("%v is not an address", a)
		}
		return common.HexToAddress(text), nil
	case abi.StringTy:
		return text, nil
	case abi.BytesTy:
		return common.FromHex(text), nil
	case abi.FixedBytesTy:
		b := common.FromHex(text)
		if len(b) != t.Size {
			return nil, fmt.Errorf("%v is not %d bytes of hex", a, t.Size)
		}
		return byteArray(t.Size, b), nil
	}
	return nil, errors.New("this parameter type is not supported in constructorArgs")
}

// byteArray makes the [n]byte value go-ethereum packs for bytesN.
func byteArray(n int, b []byte) any {
	arr := reflect.New(reflect.ArrayOf(n, reflect.TypeFor[byte]())).Elem()
	reflect.Copy(arr, reflect.ValueOf(b))
	return arr.Interface()
}
