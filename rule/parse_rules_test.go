package rule

import (
	"strings"
	"testing"
)

// Rule document spec §3 marks "rules" as required ("rules | array | Yes"),
// while the published IterationOfPi example (Iterationstep.json) has no
// "rules". xgr follows the example: a document without "rules" is read as
// "rules": [] (§3: "If rules is empty, the step is valid unless forced
// invalid by missing required inputs") with a warning that cites §3, so
// that `rule validate --strict` refuses it.
func TestParseMissingRulesWarnsCitingSpec(t *testing.T) {
	pi := mustParse(t, repairedPi(t))
	w := findProblem(pi.Warnings, "rules", CodeRequired)
	if w == nil || !strings.Contains(w.Message, "§3") || !strings.Contains(w.Message, `"rules": []`) {
		t.Fatalf("IterationOfPi without rules: %v", pi.Warnings)
	}
	r := eval(t, pi, map[string]any{"Iter": 0, "S": 0.0, "Pi": 0.0}, Sources{})
	if !r.Valid {
		t.Errorf("no rules: the step is valid: %+v", r)
	}
	if d := mustParse(t, []byte(`{"payload": {}, "rules": []}`)); len(d.Warnings) != 0 {
		t.Errorf(`"rules": [] is not warned about: %v`, d.Warnings)
	}
}
