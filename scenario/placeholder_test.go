package scenario

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseRef(t *testing.T) {
	for _, tc := range []struct {
		in   string
		ok   bool
		want Ref
		err  string
	}{
		{"$actor.address:owner", true, Ref{Kind: RefActorAddress, Name: "owner"}, ""},
		{"$session.id:kyc", true, Ref{Kind: RefSessionID, Name: "kyc"}, ""},
		{"$session.owner:kyc", true, Ref{Kind: RefSessionOwner, Name: "kyc"}, ""},
		{"$contract.address:order_process:RequestKyc", true, Ref{Kind: RefContractAddress, Name: "order_process", Alias: "RequestKyc"}, ""},
		{"plain text", false, Ref{}, ""},
		{"$5 off", false, Ref{}, ""},
		{"", false, Ref{}, ""},
		{"$actor.address:", true, Ref{}, "want one name after the colon"},
		{"$session.id:a:b", true, Ref{}, "want one name after the colon"},
		{"$contract.address:bundle", true, Ref{}, "want BUNDLEKEY:ALIAS"},
		{"$contract.address::Alias", true, Ref{}, "want BUNDLEKEY:ALIAS"},
		{"$session.pid:x", true, Ref{}, `unknown kind "session.pid"`},
	} {
		ref, ok, err := ParseRef(tc.in)
		if ok != tc.ok || (tc.err == "" && (err != nil || ref != tc.want)) || (tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err))) {
			t.Errorf("ParseRef(%q) = %+v, %v, %v", tc.in, ref, ok, err)
		}
		if tc.err == "" && tc.ok && ref.String() != tc.in {
			t.Errorf("%q round-trips as %q", tc.in, ref.String())
		}
	}
}

func TestResolve(t *testing.T) {
	env := Env{
		Actors:    map[string]string{"owner": "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"},
		Sessions:  map[string]SessionRef{"kyc": {Owner: "0x70997970c51812dc3a010c7d01b50e0d17dc79c8", ID: 7}},
		Contracts: map[string]map[string]string{"order": {"RequestKyc": "0x5fbdb2315678afecb367f032d93f642f64180aa3"}},
	}
	in := map[string]any{
		"Runner":  "$session.owner:kyc",
		"Session": "$session.id:kyc",
		"Keep":    "$5 off",
		"N":       json.Number("19900"),
		"__wakeUp": map[string]any{"steps": map[string]any{"wait": map[string]any{"internal": map[string]any{
			"allow":      []any{"$actor.address:owner"},
			"fromXRC137": []any{"$contract.address:order:RequestKyc"},
		}}}},
	}
	got, err := env.Resolve(in, "steps[0].payload")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"Runner":  "0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
		"Session": int64(7),
		"Keep":    "$5 off",
		"N":       json.Number("19900"),
		"__wakeUp": map[string]any{"steps": map[string]any{"wait": map[string]any{"internal": map[string]any{
			"allow":      []any{"0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"},
			"fromXRC137": []any{"0x5fbdb2315678afecb367f032d93f642f64180aa3"},
		}}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v", got)
	}
	if in["Runner"] != "$session.owner:kyc" {
		t.Error("Resolve modified its input")
	}
	// The session id is a JSON number in the start payload.
	b, _ := json.Marshal(got)
	if !strings.Contains(string(b), `"Session":7`) {
		t.Errorf("encoded: %s", b)
	}
	for _, tc := range []struct {
		in   any
		path string
		msg  string
	}{
		{map[string]any{"a": "$actor.address:nobody"}, "p.a", `no actor "nobody" (actors: "owner")`},
		{[]any{"x", "$session.id:later"}, "p[1]", `no session was saved as "later" (yet); sessions so far: "kyc"`},
		{"$contract.address:other:X", "p", `no bundle "other" was deployed (bundles: "order")`},
		{"$contract.address:order:X", "p", `bundle "order" has no XRC-137 item with alias "X" (aliases: "RequestKyc")`},
		{map[string]any{"a": "$actor.adress:x"}, "p.a", "unknown kind"},
	} {
		_, err := env.Resolve(tc.in, "p")
		var pe *PlaceholderError
		if !errors.As(err, &pe) || pe.Path != tc.path || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("Resolve(%v) = %v; want %s at %s", tc.in, err, tc.msg, tc.path)
		}
	}
}

func TestAddrPlaceholders(t *testing.T) {
	text := []byte(`{"contractReads":[{"to":"${addr:feed}"},{"to":"${addr:token}"},{"to":"${addr:feed}"}]}`)
	if got := AddrKeys(text); !reflect.DeepEqual(got, []string{"feed", "token"}) {
		t.Errorf("AddrKeys = %v", got)
	}
	out, err := SubstituteAddrs(text, map[string]string{"feed": "0xaa", "token": "0xbb"})
	if err != nil || string(out) != `{"contractReads":[{"to":"0xaa"},{"to":"0xbb"},{"to":"0xaa"}]}` {
		t.Errorf("SubstituteAddrs = %s, %v", out, err)
	}
	if _, err := SubstituteAddrs(text, map[string]string{"feed": "0xaa"}); err == nil || !strings.Contains(err.Error(), "${addr:token}") {
		t.Errorf("missing key: %v", err)
	}
}

func TestStartPayload(t *testing.T) {
	wake := func(step, who string) map[string]any {
		return map[string]any{"steps": map[string]any{step: map[string]any{"rpc": []any{who}}}}
	}
	for _, tc := range []struct {
		name       string
		plan, step map[string]any
		wakeUps    []map[string]any
		want       map[string]any
	}{
		{"step overlays plan", map[string]any{"A": 1, "B": 2}, map[string]any{"B": 3, "C": 4}, nil,
			map[string]any{"A": 1, "B": 3, "C": 4}},
		{"no allow list anywhere", map[string]any{"A": 1}, nil, []map[string]any{nil, {}}, map[string]any{"A": 1}},
		{"plan runtime.wakeUp materialized", map[string]any{"A": 1}, nil, []map[string]any{wake("w1", "0x1")},
			map[string]any{"A": 1, WakeUpKey: wake("w1", "0x1")}},
		{"legacy payload.__wakeUp kept, runtime entries merged by step", map[string]any{WakeUpKey: wake("w1", "0x1")}, nil,
			[]map[string]any{wake("w2", "0x2"), wake("w1", "0x3")},
			map[string]any{WakeUpKey: map[string]any{"steps": map[string]any{"w1": map[string]any{"rpc": []any{"0x3"}}, "w2": map[string]any{"rpc": []any{"0x2"}}}}}},
		{"default replaced", nil, nil, []map[string]any{{"default": "a"}, {"default": "b"}}, map[string]any{WakeUpKey: map[string]any{"default": "b"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := StartPayload(tc.plan, tc.step, tc.wakeUps...); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}
