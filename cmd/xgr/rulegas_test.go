package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestRuleGas quotes the guide's worked examples on the command line, as
// text and as JSON, and refuses what it cannot quote.
func TestRuleGas(t *testing.T) {
	for file, want := range map[string]uint64{"minimal.json": 15_000, "mid.json": 26_950, "advanced.json": 47_000} {
		path := "../../rule/testdata/gas/" + file
		out, code := run(t, "rule", "gas", "--json", path)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", file, code, out)
		}
		var got struct {
			Estimate struct {
				ValidationGas uint64 `json:"validationGas"`
			} `json:"estimate"`
			Breakdown struct {
				Common  uint64 `json:"common"`
				OnValid struct {
					Total uint64 `json:"total"`
				} `json:"onValid"`
			} `json:"breakdown"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil || got.Estimate.ValidationGas != want || got.Breakdown.OnValid.Total != want {
			t.Fatalf("%s: %+v %v\n%s", file, got, err, out)
		}
		text, code := run(t, "rule", "gas", path)
		if code != 0 || !strings.Contains(text, "validation gas "+itoa(want)) || !strings.Contains(text, "base") {
			t.Fatalf("%s: exit %d:\n%s", file, code, text)
		}
	}
	// IterationOfPi waits an hour on onValid: 200 per spawned child.
	pi := "../../examples/iteration-of-pi/rules/Iterationstep-Addr.json"
	one, _ := run(t, "rule", "gas", "--json", "--valid-spawns", "1", pi)
	three, _ := run(t, "rule", "gas", "--json", "--valid-spawns", "3", pi)
	var a, b struct {
		Estimate struct {
			ValidationGas uint64 `json:"validationGas"`
		} `json:"estimate"`
	}
	if json.Unmarshal([]byte(one), &a) != nil || json.Unmarshal([]byte(three), &b) != nil || b.Estimate.ValidationGas != a.Estimate.ValidationGas+400 {
		t.Fatalf("spawns 1: %s\nspawns 3: %s", one, three)
	}
	bad := writeFile(t, "bad.json", `{"payload": {}, "rules": ["[A] >"]}`)
	for _, args := range [][]string{
		{"rule", "gas", bad},
		{"rule", "gas", "--valid-spawns", "33", "../../rule/testdata/gas/minimal.json"},
		{"rule", "gas"},
		{"rule", "gas", "nosuchfile.json"},
	} {
		if out, code := run(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2: %s", args, code, out)
		}
	}
}

func itoa(n uint64) string {
	b, _ := json.Marshal(n)
	return string(b)
}
