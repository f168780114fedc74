package wakeup

import "testing"

// A session's allow list, given as the raw JSON its meta keeps, decides as
// the same list in a payload does; MaySomeStep tells whether a caller may
// wake anything at all.
func TestAuthorizeSession(t *testing.T) {
	list := `{"steps": {"W1": {"rpc": ["` + alice + `"]}, "W2": {"internal": ["*"]}}, "default": {"rpc": ["` + bob + `"]}}`
	rpc := func(a string) Caller { return Caller{Scope: ScopeRPC, Address: a} }
	for _, tc := range []struct {
		list, step, caller string
		want               bool
	}{
		{list, "W1", alice, true},
		{list, "W1", bob, false}, // the step's entry overrides the default
		{list, "W3", bob, true},  // the default
		{list, "W3", alice, false},
		{list, "W2", alice, false}, // no rpc scope
		{list, "W1", runner, true}, // the runner always
		{"", "W1", alice, false},   // no list
		{"", "W1", runner, true},
		{`{"steps": `, "W1", alice, false},           // does not decode
		{`{"steps": {"W1": 1}}`, "W1", alice, false}, // does not parse
	} {
		d := AuthorizeSession(runner, tc.step, tc.list, rpc(tc.caller))
		if d.Allowed != tc.want {
			t.Errorf("AuthorizeSession(%s, %s, %s) = %+v, want %v", tc.step, tc.caller, tc.list, d, tc.want)
		}
		if d.Allowed != Authorize(runner, tc.step, decodeList(t, tc.list), rpc(tc.caller)).Allowed && tc.list != `{"steps": ` {
			t.Errorf("AuthorizeSession and Authorize differ on %s %s %s", tc.step, tc.caller, tc.list)
		}
	}
	for _, tc := range []struct {
		list, caller string
		want         bool
	}{
		{list, alice, true},
		{list, bob, true},
		{`{"steps": {"W1": {"rpc": ["` + alice + `"]}}}`, bob, false},
		{`{"steps": {"W2": {"internal": ["*"]}}}`, alice, false},
		{"", alice, false},
		{"", runner, true},
		{`{"steps": `, alice, false},
	} {
		if got := MaySomeStep(runner, tc.list, rpc(tc.caller)); got != tc.want {
			t.Errorf("MaySomeStep(%s, %s) = %v, want %v", tc.caller, tc.list, got, tc.want)
		}
	}
}

func decodeList(t *testing.T, list string) map[string]any {
	if list == "" || list == `{"steps": ` {
		return map[string]any{}
	}
	return decode(t, `{"`+Key+`": `+list+`}`)
}
