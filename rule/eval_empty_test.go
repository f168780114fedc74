package rule

import (
	"encoding/json"
	"reflect"
	"testing"
)

// Payload guide §6 ("Required vs. Optional"): "If a field is required and
// missing/empty, the step becomes invalid" and "“Empty” means: null, empty
// string "", or empty arrays/maps. 0 is not empty."; §8: "Empty required
// field → provide a value or mark the field Optional". An empty value of a
// field with a default takes the default (spec §4.2: the default makes the
// key optional).
func TestEvalEmptyInputs(t *testing.T) {
	d := mustParse(t, []byte(`{
  "payload": {
    "Name":  {"type": "string"},
    "Memo":  {"type": "string", "default": "none"},
    "Count": {"type": "int64",  "default": 3}
  },
  "rules": ["[Name] != \"\""],
  "onValid": {"payload": {"Memo": "[Memo]", "Count": "[Count]"}}
}`))
	for name, empty := range map[string]any{"null": nil, `""`: "", "[]": []any{}, "{}": map[string]any{}} {
		r := eval(t, d, map[string]any{"Name": empty, "Memo": "x"}, Sources{})
		if r.Valid || !hasReason(r, ReasonMissingInput, "payload") || !reflect.DeepEqual(r.Reasons[0].Keys, []string{"Name"}) || !r.Rules[0].Skipped {
			t.Errorf("required Name %s: %+v", name, r)
		}
		r = eval(t, d, map[string]any{"Name": "n", "Memo": empty, "Count": empty}, Sources{})
		if !r.Valid || r.Output["Memo"] != "none" || r.Output["Count"] != int64(3) {
			t.Errorf("Memo and Count %s take their defaults: %+v", name, r)
		}
	}
	// 0 and false are values, not empty.
	r := eval(t, d, map[string]any{"Name": "n", "Count": json.Number("0")}, Sources{})
	if !r.Valid || r.Output["Count"] != int64(0) {
		t.Errorf("Count 0: %+v", r)
	}
}
