package indexer

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Start is a session a trigger log asks for.
type Start struct {
	// Key makes the start idempotent: chain id, tx hash, log index, trigger.
	Key     string
	Trigger string
	Block   uint64
	Owner   common.Address
	// Payload is the session's start payload (a JSON object).
	Payload json.RawMessage
}

// StartKeyOf names a trigger start: (chain id, tx hash, log index, trigger).
func StartKeyOf(chainID uint64, l types.Log, trigger string) string {
	return strconv.FormatUint(chainID, 10) + ":" + l.TxHash.Hex() + ":" + strconv.FormatUint(uint64(l.Index), 10) + ":" + trigger
}

// Match reads a log with a trigger: ok is false when the log is not the
// trigger's event or its indexed arguments do not pass the topic filters.
func (t Trigger) Match(chainID uint64, l types.Log) (Start, bool, error) {
	if l.Address != t.Contract || len(l.Topics) == 0 || l.Topics[0] != t.Event.ID {
		return Start{}, false, nil
	}
	args := map[string]any{}
	var indexed abi.Arguments
	for _, a := range t.Event.Inputs {
		if a.Indexed {
			indexed = append(indexed, a)
		}
	}
	if len(l.Topics)-1 != len(indexed) {
		return Start{}, false, nil // same topic0, other indexing: not this event
	}
	if err := abi.ParseTopicsIntoMap(args, indexed, l.Topics[1:]); err != nil {
		return Start{}, false, fmt.Errorf("trigger %s: topics of log %d in tx %s: %w", t.Name, l.Index, l.TxHash.Hex(), err)
	}
	if err := t.Event.Inputs.NonIndexed().UnpackIntoMap(args, l.Data); err != nil {
		return Start{}, false, fmt.Errorf("trigger %s: data of log %d in tx %s: %w", t.Name, l.Index, l.TxHash.Hex(), err)
	}
	for name, want := range t.Topics {
		if !sameValue(args[name], want) {
			return Start{}, false, nil
		}
	}
	s := Start{Key: StartKeyOf(chainID, l, t.Name), Trigger: t.Name, Block: l.BlockNumber}
	owner, err := t.resolve(t.Owner, args, l)
	if err != nil {
		return Start{}, false, err
	}
	str, _ := owner.(string)
	if !common.IsHexAddress(str) {
		return Start{}, false, fmt.Errorf("trigger %s: owner %v is not an address", t.Name, owner)
	}
	s.Owner = common.HexToAddress(str)
	payload := make(map[string]any, len(t.Payload))
	for _, f := range t.Payload {
		v, err := t.resolve(f.Value, args, l)
		if err != nil {
			return Start{}, false, err
		}
		payload[f.Key] = v
	}
	if s.Payload, err = json.Marshal(payload); err != nil {
		return Start{}, false, err
	}
	return s, true, nil
}

func (t Trigger) resolve(v Value, args map[string]any, l types.Log) (any, error) {
	switch {
	case v.literal:
		return v.Literal, nil
	case v.Arg != "":
		a, ok := args[v.Arg]
		if !ok {
			return nil, fmt.Errorf("trigger %s: the log has no argument %q", t.Name, v.Arg)
		}
		return jsonValue(a), nil
	}
	switch v.Log {
	case "blockNumber":
		return l.BlockNumber, nil
	case "blockHash":
		return l.BlockHash.Hex(), nil
	case "txHash":
		return l.TxHash.Hex(), nil
	case "txIndex":
		return l.TxIndex, nil
	case "logIndex":
		return l.Index, nil
	case "address":
		return l.Address.Hex(), nil
	}
	return nil, fmt.Errorf("trigger %s: unknown log field %q", t.Name, v.Log)
}

// jsonValue turns an ABI value into what a payload holds: addresses as
// checksummed hex, (u)int256-sized integers as decimal strings (the XRC
// convention), small integers as numbers, bytes as 0x hex.
func jsonValue(v any) any {
	switch x := v.(type) {
	case common.Address:
		return x.Hex()
	case *big.Int:
		return x.String()
	case common.Hash:
		return x.Hex()
	case []byte:
		return "0x" + hex.EncodeToString(x)
	case string, bool, uint8, uint16, uint32, uint64, int8, int16, int32, int64:
		return x
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Array && rv.Type().Elem().Kind() == reflect.Uint8 {
		b := make([]byte, rv.Len())
		reflect.Copy(reflect.ValueOf(b), rv)
		return "0x" + hex.EncodeToString(b)
	}
	return fmt.Sprint(v)
}

// sameValue compares a decoded argument with a filter written in the config.
func sameValue(got any, want string) bool {
	g := jsonValue(got)
	switch x := g.(type) {
	case string:
		return strings.EqualFold(x, want)
	default:
		return fmt.Sprint(x) == want
	}
}
