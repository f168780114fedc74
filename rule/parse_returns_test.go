package rule

import "testing"

// When saveAs names slots past 0 of a signature without return types and
// none of them is a string or bytes slot, the tuple's length is not
// derivable (issue 28.1): rule validate says so and points to the return
// types; with return types, or with a string slot, it says nothing.
func TestValidateWarnsUnderivableTuple(t *testing.T) {
	warned := func(fn, saveAs string) bool {
		doc, err := Parse([]byte(`{"payload": {}, "contractReads": [{"to": "0x1111111111111111111111111111111111111111",
  "function": "` + fn + `", "saveAs": ` + saveAs + `}], "rules": []}`))
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range doc.Warnings {
			if w.Code == CodeReturns && w.Path == "contractReads[0].function" {
				return true
			}
		}
		return false
	}
	if !warned("slot0()", `{"0": {"key": "P", "type": "uint256"}, "1": {"key": "Tick", "type": "int64", "default": 0}}`) {
		t.Error("slot0() with static slots 0 and 1: no warning")
	}
	for fn, saveAs := range map[string]string{
		"slot0()(uint160,int24)": `{"0": {"key": "P", "type": "uint256"}, "1": {"key": "Tick", "type": "int64"}}`,
		"name()":                 `{"0": {"key": "N", "type": "string"}, "1": {"key": "X", "type": "uint64", "default": 1}}`,
		"balanceOf()":            `{"0": {"key": "B", "type": "uint256"}}`,
	} {
		if warned(fn, saveAs) {
			t.Errorf("%s %s: warned", fn, saveAs)
		}
	}
}
