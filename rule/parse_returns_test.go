package rule

import (
	"errors"
	"testing"
)

// When saveAs names slots past 0 of a signature without return types and
// none of them is a string or bytes slot, the tuple's length is not
// derivable: a function returning a dynamic value next to fewer values
// than saveAs names would have a slot decode that data (a string's length
// word) instead of its default (spec §6.4). The document is refused,
// pointing to the return types; with return types, with a string slot or
// with slot 0 alone it is accepted.
func TestRefusesUnderivableTuple(t *testing.T) {
	parse := func(fn, saveAs string) error {
		_, err := Parse([]byte(`{"payload": {}, "contractReads": [{"to": "0x1111111111111111111111111111111111111111",
  "function": "` + fn + `", "saveAs": ` + saveAs + `}], "rules": []}`))
		return err
	}
	err := parse("slot0()", `{"0": {"key": "P", "type": "uint256"}, "1": {"key": "Tick", "type": "int64", "default": 0}}`)
	var inv *ValidationError
	if !errors.As(err, &inv) || len(inv.Problems) != 1 || inv.Problems[0].Code != CodeReturns || inv.Problems[0].Path != "contractReads[0].function" {
		t.Fatalf("slot0() with static slots 0 and 1: %v, want one %q problem at contractReads[0].function", err, CodeReturns)
	}
	for fn, saveAs := range map[string]string{
		"slot0()(uint160,int24)": `{"0": {"key": "P", "type": "uint256"}, "1": {"key": "Tick", "type": "int64"}}`,
		"name()":                 `{"0": {"key": "N", "type": "string"}, "1": {"key": "X", "type": "uint64", "default": 1}}`,
		"balanceOf()":            `{"0": {"key": "B", "type": "uint256"}}`,
	} {
		if err := parse(fn, saveAs); err != nil {
			t.Errorf("%s %s: %v", fn, saveAs, err)
		}
	}
}
