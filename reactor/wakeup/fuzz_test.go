package wakeup

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzParse: any JSON value either parses or is refused with an error
// that names the __wakeUp path; a parsed list never panics Authorize, and
// the runner is always allowed.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"steps": {"E1": {"rpc": ["0x2222222222222222222222222222222222222222"], "internal": ["*"]}}, "default": {"rpc": []}}`,
		`{"default": {"internal": {"allow": ["0x0000000000000000000000000000000000000000"], "fromXRC137": []}}}`,
		`{"steps": {"B1": {"internal": {"allow": ["*"], "fromXRC137": ["0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"]}}}}`,
		`{"steps": {"E1": {"rpc": ["*"]}}}`, `[]`, `null`, `{"steps": {"": {}}}`,
	} {
		f.Add([]byte(s), "E1", "0x2222222222222222222222222222222222222222", "0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
	}
	f.Fuzz(func(t *testing.T, raw []byte, step, caller, rule string) {
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			return
		}
		if _, err := Parse(v); err != nil && !strings.HasPrefix(err.Error(), Key) {
			t.Fatalf("error without its path: %v", err)
		}
		plain := map[string]any{Key: v}
		for _, scope := range []Scope{ScopeRPC, ScopeInternal} {
			Authorize("0x1111111111111111111111111111111111111111", step, plain, Caller{Scope: scope, Address: caller, Rule: rule})
			if d := Authorize(caller, step, plain, Caller{Scope: scope, Address: caller, Rule: rule}); caller != "" && !d.Allowed {
				t.Fatalf("the runner was denied: %+v", d)
			}
		}
	})
}
