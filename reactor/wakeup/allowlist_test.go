package wakeup

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

const (
	runner = "0x1111111111111111111111111111111111111111"
	alice  = "0x2222222222222222222222222222222222222222"
	bob    = "0x3333333333333333333333333333333333333333"
	ruleA  = "0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	ruleB  = "0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
)

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return m
}

func TestParseRefuses(t *testing.T) {
	for name, tc := range map[string]struct{ doc, want string }{
		"not an object":        {`{"__wakeUp": ["0x2222222222222222222222222222222222222222"]}`, `__wakeUp: want an object`},
		"unknown top field":    {`{"__wakeUp": {"stepz": {}}}`, `unknown field "stepz"; allowed: steps, default`},
		"steps not object":     {`{"__wakeUp": {"steps": []}}`, `__wakeUp.steps: want an object`},
		"unknown scope":        {`{"__wakeUp": {"default": {"rcp": []}}}`, `__wakeUp.default: unknown scope "rcp"`},
		"rpc object form":      {`{"__wakeUp": {"steps": {"E1": {"rpc": {"allow": []}}}}}`, `__wakeUp.steps.E1.rpc: want a list of 0x addresses, got an object`},
		"rpc wildcard":         {`{"__wakeUp": {"steps": {"E1": {"rpc": ["*"]}}}}`, `__wakeUp.steps.E1.rpc[0]: wildcard "*" is not allowed here`},
		"rpc zero address":     {`{"__wakeUp": {"default": {"rpc": ["0x0000000000000000000000000000000000000000"]}}}`, `__wakeUp.default.rpc[0]: wildcard`},
		"rpc not an address":   {`{"__wakeUp": {"default": {"rpc": ["alice"]}}}`, `__wakeUp.default.rpc[0]: "alice" is not an address`},
		"rpc number":           {`{"__wakeUp": {"default": {"rpc": [1]}}}`, `__wakeUp.default.rpc[0]: want an 0x address string, got a number`},
		"internal no allow":    {`{"__wakeUp": {"default": {"internal": {"fromXRC137": []}}}}`, `__wakeUp.default.internal: the object form needs "allow"`},
		"internal wrong type":  {`{"__wakeUp": {"default": {"internal": "*"}}}`, `__wakeUp.default.internal: want a list of addresses or`},
		"fromXRC137 wildcard":  {`{"__wakeUp": {"default": {"internal": {"allow": ["*"], "fromXRC137": ["*"]}}}}`, `__wakeUp.default.internal.fromXRC137[0]: wildcard`},
		"internal extra field": {`{"__wakeUp": {"default": {"internal": {"allow": ["*"], "from": []}}}}`, `unknown field "from"; allowed: allow, fromXRC137`},
		"empty step id":        {`{"__wakeUp": {"steps": {"": {}}}}`, `a step id must not be empty`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse(decode(t, tc.doc)[Key])
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestParseAcceptsPublicForms(t *testing.T) {
	// The forms of the endpoint reference §12 and the OPS import example.
	for _, doc := range []string{
		`{"__wakeUp": {"steps": {"E1": {"rpc": ["0x2222222222222222222222222222222222222222"], "internal": ["*"]}}, "default": {"rpc": ["0x3333333333333333333333333333333333333333"]}}}`,
		`{"__wakeUp": {"default": {"internal": {"allow": ["0x2222222222222222222222222222222222222222"], "fromXRC137": ["0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"]}, "rpc": []}}}`,
		`{"__wakeUp": {"steps": {"B1": {"internal": {"allow": ["0x0000000000000000000000000000000000000000"], "fromXRC137": []}}}}}`,
		`{"__wakeUp": {}}`,
	} {
		if _, err := Parse(decode(t, doc)[Key]); err != nil {
			t.Errorf("%s: %v", doc, err)
		}
	}
}

func TestAuthorize(t *testing.T) {
	internal := func(addr, rule string) Caller { return Caller{Scope: ScopeInternal, Address: addr, Rule: rule} }
	rpc := func(addr string) Caller { return Caller{Scope: ScopeRPC, Address: addr} }
	const (
		stepRPC      = `{"__wakeUp": {"steps": {"E1": {"rpc": ["0x2222222222222222222222222222222222222222"]}}, "default": {"rpc": ["0x3333333333333333333333333333333333333333"]}}}`
		internalList = `{"__wakeUp": {"steps": {"E1": {"internal": ["0x2222222222222222222222222222222222222222"]}}}}`
		wildcard     = `{"__wakeUp": {"default": {"internal": ["*"]}}}`
		zeroWildcard = `{"__wakeUp": {"default": {"internal": ["0x0000000000000000000000000000000000000000"]}}}`
		bound        = `{"__wakeUp": {"steps": {"E1": {"internal": {"allow": ["*"], "fromXRC137": ["0xAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"]}}}}}`
		boundEmpty   = `{"__wakeUp": {"steps": {"E1": {"internal": {"allow": ["*"], "fromXRC137": []}}}}}`
		objectNoFrom = `{"__wakeUp": {"steps": {"E1": {"internal": {"allow": ["0x2222222222222222222222222222222222222222"]}}}}}`
		stepNoScope  = `{"__wakeUp": {"steps": {"E1": {"rpc": ["0x2222222222222222222222222222222222222222"]}}, "default": {"internal": ["*"]}}}`
		broken       = `{"__wakeUp": {"steps": {"E1": {"rpc": ["*"]}}}}`
		// Rule spec §8.5.2: an internal wake-up is allowed by
		// "ResumePlain.__wakeUp.default.internal or
		// ResumePlain.__wakeUp.steps[stepId].internal": the union, so a
		// narrow step list next to a permissive default still allows.
		narrowStep = `{"__wakeUp": {"steps": {"E1": {"internal": ["0x2222222222222222222222222222222222222222"]}}, "default": {"internal": ["*"]}}}`
		narrowBoth = `{"__wakeUp": {"steps": {"E1": {"internal": ["0x2222222222222222222222222222222222222222"]}}, "default": {"internal": ["0x2222222222222222222222222222222222222222"]}}}`
		boundStep  = `{"__wakeUp": {"steps": {"E1": {"internal": {"allow": ["*"], "fromXRC137": ["0xAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"]}}}, "default": {"internal": ["*"]}}}`
	)
	for name, tc := range map[string]struct {
		doc    string
		step   string
		caller Caller
		allow  bool
		reason string
	}{
		"runner always (rpc)":             {`{}`, "E1", rpc(strings.ToUpper(runner[:2]) + runner[2:]), true, "runner"},
		"runner always (internal)":        {`{}`, "E1", internal(runner, ""), true, "runner"},
		"no allow list":                   {`{}`, "E1", rpc(alice), false, "no __wakeUp allow list"},
		"operator without caller denied":  {`{}`, "E1", rpc(""), false, "(no caller)"},
		"rpc step entry lists":            {stepRPC, "E1", rpc(alice), true, "__wakeUp.steps.E1.rpc lists"},
		"rpc case-insensitive":            {stepRPC, "E1", rpc(strings.ToUpper(alice)), true, ""},
		"step entry overrides default":    {stepRPC, "E1", rpc(bob), false, "__wakeUp.steps.E1.rpc does not list"},
		"default applies to other steps":  {stepRPC, "E2", rpc(bob), true, "__wakeUp.default.rpc"},
		"default does not list":           {stepRPC, "E2", rpc(alice), false, "__wakeUp.default.rpc does not list"},
		"missing entry and default":       {internalList, "E2", internal(alice, ""), false, `no entry for step "E2" and no default`},
		"missing scope denies":            {internalList, "E1", rpc(alice), false, "has no rpc scope"},
		"step entry without scope":        {stepNoScope, "E1", internal(alice, ""), true, "__wakeUp.default.internal allows"},
		"no internal scope anywhere":      {stepRPC, "E1", internal(alice, ""), false, "__wakeUp.steps.E1 has no internal scope (nor has the default)"},
		"narrow step list, open default":  {narrowStep, "E1", internal(bob, ""), true, "__wakeUp.default.internal allows"},
		"narrow step list lists":          {narrowStep, "E1", internal(alice, ""), true, "__wakeUp.steps.E1.internal allows"},
		"neither list allows":             {narrowBoth, "E1", internal(bob, ""), false, "__wakeUp.steps.E1.internal does not allow " + bob + "; __wakeUp.default.internal does not allow"},
		"bound step, unbound default":     {boundStep, "E1", internal(bob, ruleB), true, "__wakeUp.default.internal allows"},
		"internal list":                   {internalList, "E1", internal(alice, ruleA), true, "internal allows"},
		"internal list other":             {internalList, "E1", internal(bob, ruleA), false, "does not allow"},
		"internal star":                   {wildcard, "X", internal(bob, ""), true, ""},
		"internal zero address":           {zeroWildcard, "X", internal(bob, ""), true, ""},
		"star is internal only":           {wildcard, "X", rpc(bob), false, "no rpc scope"},
		"bound to the emitting rule":      {bound, "E1", internal(bob, ruleA), true, ""},
		"bound: other rule":               {bound, "E1", internal(bob, ruleB), false, "fromXRC137 does not list the emitting rule " + ruleB},
		"bound: rule not from a contract": {bound, "E1", internal(bob, ""), false, "fromXRC137 does not list"},
		"bound empty denies":              {boundEmpty, "E1", internal(bob, ruleA), false, "fromXRC137 is empty"},
		"object form without fromXRC137":  {objectNoFrom, "E1", internal(alice, ruleB), true, ""},
		"unparsable list denies":          {broken, "E1", rpc(alice), false, "does not parse"},
	} {
		t.Run(name, func(t *testing.T) {
			d := Authorize(runner, tc.step, decode(t, tc.doc), tc.caller)
			if d.Allowed != tc.allow || !strings.Contains(d.Reason, tc.reason) {
				t.Fatalf("Authorize = %+v, want allowed=%v with reason containing %q", d, tc.allow, tc.reason)
			}
		})
	}
}

func TestMergeOrderAndReservedKeys(t *testing.T) {
	plain := decode(t, `{"a": 1, "keep": 9007199254740993, "__wakeUp": {"default": {"internal": ["*"]}}}`)
	base := decode(t, `{"a": 2, "b": 18446744073709551615, "__wakeUp": "overwrite?", "_from": "x"}`)
	overlay := decode(t, `{"b": 123456789012345678901234567890, "c": true, "_when": "valid"}`)
	got, _ := json.Marshal(Merge(plain, base, overlay))
	want := `{"__wakeUp":{"default":{"internal":["*"]}},"a":2,"b":123456789012345678901234567890,"c":true,"keep":9007199254740993}`
	if !bytes.Equal(got, []byte(want)) {
		t.Fatalf("Merge = %s\nwant    %s", got, want)
	}
	if _, ok := plain["b"]; ok {
		t.Fatal("Merge modified its input")
	}
}
