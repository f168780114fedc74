package chain_test

import (
	"context"
	"math/big"
	"testing"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/rule"
	"github.com/xgr-sidecar/xgr/testenv"
)

// Rule spec §6.2 writes contract-read signatures without return types, and
// §6.4 says: "If the call succeeds but returns fewer values than
// referenced by saveAs, only the out-of-range indices use defaults". A
// saveAs index past the returned tuple takes its default; it never reads
// the dynamic data after the head (a string's length word or text) as a
// value. The head ends at the first dynamic offset a string slot holds.
func TestReadSlotPastTupleTakesDefault(t *testing.T) {
	a := testenv.StartAnvil(t)
	tok := testenv.DeployTestToken(t, a, "Test Token", big.NewInt(1000))
	doc, err := rule.Parse([]byte(`{
  "payload": {"Token": {"type": "address"}, "Holder": {"type": "address"}},
  "contractReads": [
    {"to": "[Token]", "function": "name()",
     "saveAs": {"0": {"key": "Name", "type": "string"}, "1": {"key": "Extra", "type": "uint256", "default": "7"}}},
    {"to": "[Token]", "function": "snapshot(address)", "args": [{"type": "address", "value": "[Holder]"}],
     "saveAs": {"1": {"key": "Label", "type": "string"}, "5": {"key": "Self", "type": "address"},
                "6": {"key": "Seventh", "type": "uint64", "default": 9}, "7": {"key": "Eighth", "type": "uint64", "default": 8}}}
  ],
  "rules": []
}`))
	if err != nil {
		t.Fatal(err)
	}
	reads := &chain.Reads{Default: a.Client}
	res, err := rule.Evaluate(context.Background(), doc, map[string]any{"Token": tok.Address.Hex(), "Holder": a.Address(1).Hex()}, rule.Sources{Reads: reads})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"Name": "Test Token", "Extra": "7", "Label": "Test Token", "Self": tok.Address.Hex(), "Seventh": uint64(9), "Eighth": uint64(8)}
	for k, v := range want {
		if res.Extracted[k] != v {
			t.Errorf("%s = %#v, want %#v", k, res.Extracted[k], v)
		}
	}
	if len(res.Reads) != 2 || len(res.Reads[0].Defaulted) != 1 || len(res.Reads[1].Defaulted) != 2 || !res.Valid {
		t.Errorf("reads: %+v", res.Reads)
	}
}
