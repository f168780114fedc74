package permit

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

const corpusDir = "testdata/fuzz/FuzzVerify"

// fuzzSeeds are the committed seed corpus of FuzzVerify: valid permits of
// every kind and small variations that reach each stage of the checks.
// TestFuzzCorpusIsCurrent keeps the files equal to this list; to rewrite
// them run XGR_UPDATE_FUZZ_CORPUS=1 go test -run TestFuzzCorpusIsCurrent ./rpc/permit
func fuzzSeeds(t testing.TB) map[string][]byte {
	session := signedSession(t)
	control := signedControl(t, false)
	return map[string][]byte{
		"session":             session,
		"session-stringhash":  signedSessionStringHash(t),
		"control":             control,
		"control-nostep":      signedControlNoStep(t),
		"control-v2":          signedControl(t, true),
		"xdala":               signedXdala(t),
		"session-v2":          signedSessionV2(t),
		"control-v3":          signedControlV3(t),
		"control-v3-otherpid": edit(t, signedControlV3(t), func(env map[string]any) { obj(env, "message")["pid"] = "42:1" }),
		"grant":               signedGrant(t),
		"grant-otherrid":      must(SignGrant(keyA, chainID, func() GrantMsg { m := grantMsg(); m.RID = common.Hash{1}; return m }())),
		"grant-otherentries":  must(SignGrant(keyA, chainID, func() GrantMsg { m := grantMsg(); m.EntriesHash = common.Hash{2}; return m }())),
		"grant-scope3":        edit(t, signedGrant(t), func(env map[string]any) { obj(env, "message")["scope"] = "3" }),
		"xdala-otherdomain":   edit(t, signedXdala(t), func(env map[string]any) { obj(env, "domain")["name"] = "Other dApp" }),
		"session-farexpiry":   edit(t, session, func(env map[string]any) { obj(env, "message")["expiry"] = "0x" + strings.Repeat("f", 64) }),
		"session-numbers": edit(t, session, func(env map[string]any) {
			m := obj(env, "message")
			m["sessionId"], m["maxTotalGas"], m["expiry"] = json.Number("42"), json.Number("5e6"), "0x6b49d458"
		}),
		"session-changed":   edit(t, session, func(env map[string]any) { obj(env, "message")["ostcId"] = "x" }),
		"session-v0":        setSig(t, session, func(s []byte) []byte { s[64] -= 27; return s }),
		"session-badtypes":  edit(t, session, func(env map[string]any) { typeList(env, "SessionPermit")[3].(map[string]any)["type"] = "uint" }),
		"control-badaction": edit(t, control, func(env map[string]any) { obj(env, "message")["action"] = "stop" }),
		"control-nocontract": edit(t, control, func(env map[string]any) {
			delete(obj(env, "domain"), "verifyingContract")
		}),
		"duplicate":     append([]byte(`{"primaryType":"xdalaPermit",`), session[1:]...),
		"truncated":     session[:len(session)/2],
		"nested":        []byte(`{"domain":[[[[[[[[[[]]]]]]]]]]}`),
		"huge-exponent": []byte(`{"domain":{"name":"XDaLa Permit","version":"1","chainId":1e999999999},"types":{"xdalaPermit":[{"name":"from","type":"address"},{"name":"expiry","type":"uint256"}],"EIP712Domain":[{"name":"name","type":"string"},{"name":"version","type":"string"},{"name":"chainId","type":"uint256"}]},"primaryType":"xdalaPermit","message":{"from":"0x0000000000000000000000000000000000000001","expiry":1},"signature":"0x"}`),
	}
}

func corpusFile(raw []byte) []byte {
	return []byte("go test fuzz v1\n[]byte(" + strconv.Quote(string(raw)) + ")\n")
}

func TestFuzzCorpusIsCurrent(t *testing.T) {
	seeds := fuzzSeeds(t)
	if os.Getenv("XGR_UPDATE_FUZZ_CORPUS") == "1" {
		if err := os.RemoveAll(corpusDir); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(corpusDir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, raw := range seeds {
			if err := os.WriteFile(filepath.Join(corpusDir, name), corpusFile(raw), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	entries, err := os.ReadDir(corpusDir)
	if err != nil {
		t.Fatalf("%v: run XGR_UPDATE_FUZZ_CORPUS=1 go test -run TestFuzzCorpusIsCurrent ./rpc/permit", err)
	}
	var have []string
	for _, e := range entries {
		have = append(have, e.Name())
		got, err := os.ReadFile(filepath.Join(corpusDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if want, ok := seeds[e.Name()]; !ok || string(got) != string(corpusFile(want)) {
			t.Errorf("%s/%s is stale or unknown: run XGR_UPDATE_FUZZ_CORPUS=1 go test -run TestFuzzCorpusIsCurrent ./rpc/permit", corpusDir, e.Name())
		}
	}
	for name := range seeds {
		if !slices.Contains(have, name) {
			t.Errorf("%s/%s is missing: run XGR_UPDATE_FUZZ_CORPUS=1 go test -run TestFuzzCorpusIsCurrent ./rpc/permit", corpusDir, name)
		}
	}
}

// FuzzVerify: Verify never panics, every refusal is an *Error with a known
// code, a message and a path under the permit, and whatever it accepts is
// consistent (the signer is message.from, exactly one message is set, the
// session id is in range, the expiry within the lifetime cap, a bound
// permit signs the request's payload hash, or its RID, scope and entries
// hash).
func FuzzVerify(f *testing.F) {
	want := expect()
	f.Fuzz(func(t *testing.T, raw []byte) {
		v, err := Verify(raw, want)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not an *Error: %v", err, err)
			}
			if v != nil {
				t.Fatalf("both a result and an error: %v", err)
			}
			if !slices.Contains(Codes(), pe.Code) || pe.Code == CodeConfig || pe.Msg == "" {
				t.Fatalf("unexpected code %q or empty message: %v", pe.Code, err)
			}
			if !strings.HasPrefix(pe.Path, "permit") {
				t.Fatalf("path %q is not under the permit: %v", pe.Path, err)
			}
			return
		}
		set := 0
		var from common.Address
		if v.Session != nil {
			set, from = set+1, v.Session.From
		}
		if v.Control != nil {
			set, from = set+1, v.Control.From
		}
		if v.Xdala != nil {
			set, from = set+1, v.Xdala.From
		}
		if v.Grant != nil {
			set, from = set+1, v.Grant.From
		}
		if set != 1 || from != v.Signer || v.Signer == (common.Address{}) {
			t.Fatalf("inconsistent result %+v", v)
		}
		if (v.Kind == KindXdala || v.Kind == KindGrant) != (v.SessionID == 0) || v.SessionID < 0 {
			t.Fatalf("session id %d for %s", v.SessionID, v.Kind)
		}
		if v.Domain.ChainID.Cmp(want.ChainID) != 0 {
			t.Fatalf("chain %s", v.Domain.ChainID)
		}
		if v.Expiry.After(want.Now.Add(want.Skew + DefaultMaxLifetime)) {
			t.Fatalf("expiry %v past the lifetime cap", v.Expiry)
		}
		if g := v.Grant; g != nil {
			if r := want.Request; g.RID != r.RID || g.Scope != r.Scope || g.EntriesHash != r.EntriesHash {
				t.Fatalf("GrantPermit accepted for %+v, request %+v", g, r)
			}
			return
		}
		if v.Kind.Bound() {
			var h common.Hash
			if v.Session != nil {
				h = v.Session.PayloadHash
			} else {
				h = v.Control.PayloadHash
			}
			if req, _ := PayloadHash(want.Request.Payload); h != req {
				t.Fatalf("bound permit accepted with payload hash %s, request's %s", h, req)
			}
		}
	})
}

// FuzzCanonicalPayload: CanonicalPayload never panics; what it returns is
// valid JSON, its own canonical form (so re-sending the canonical text
// keeps the hash) and, compacted, the input compacted but for string
// escapes.
func FuzzCanonicalPayload(f *testing.F) {
	for _, s := range []string{string(payload), `{}`, `null`, ``, `[1, "a\u0000\ud83d\ude00", {"x": -0.5e-3}]`, `"\ud800"`, `{"a":1}{}`, "{\"a\":\"\xff\"}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		canon, err := CanonicalPayload(raw)
		if err != nil {
			return
		}
		if !json.Valid(canon) {
			t.Fatalf("%q: canonical text %q is not JSON", raw, canon)
		}
		again, err := CanonicalPayload(canon)
		if err != nil || string(again) != string(canon) {
			t.Fatalf("%q: not idempotent: %q then %q (%v)", raw, canon, again, err)
		}
		var a, b any
		if trimmed := bytes.TrimSpace(raw); json.Unmarshal(trimmed, &a) == nil && string(trimmed) != "null" {
			if err := json.Unmarshal(canon, &b); err != nil || !reflect.DeepEqual(a, b) {
				t.Fatalf("%q: canonical text %q means something else", raw, canon)
			}
		}
	})
}
