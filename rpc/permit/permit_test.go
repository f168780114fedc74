package permit

import (
	"bytes"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// Fixed test keys, chain and clock: signatures are deterministic (RFC 6979),
// so every envelope below is the same on every run.
var (
	keyA     = testKey("xgr permit test key A")
	keyB     = testKey("xgr permit test key B")
	addrA    = crypto.PubkeyToAddress(keyA.PublicKey)
	addrB    = crypto.PubkeyToAddress(keyB.PublicKey)
	chainID  = big.NewInt(1337)
	contract = common.HexToAddress("0x00000000000000000000000000000000000000A7")
	now      = time.Unix(1_800_000_000, 0)
	expiry   = big.NewInt(1_800_000_600)
	ostcHash = crypto.Keccak256Hash([]byte(`{"id":"hello_xdala"}`))
	registry = common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3")
	// payload is the request payload the bound fixtures sign, as a client
	// might send it (whitespace, HTML characters, escapes, a big number).
	payload     = []byte(`{ "order": "<a&b>", "note": "caf\u00e9\n", "amount": 18446744073709551617, "ok": [true, null] }`)
	payloadHash = crypto.Keccak256Hash([]byte(`{"order":"<a&b>","note":"café\n","amount":18446744073709551617,"ok":[true,null]}`))
)

func testKey(seed string) *ecdsa.PrivateKey {
	k, err := crypto.ToECDSA(crypto.Keccak256([]byte(seed)))
	if err != nil {
		panic(err)
	}
	return k
}

// expect is the fixtures' Expect; its Request is the one the bound
// fixtures (sessionV2Msg, controlV3Msg, grantMsg) sign.
func expect() Expect {
	return Expect{ChainID: chainID, ControlContract: contract, Now: now, Skew: 30 * time.Second,
		Request: &Request{Registry: registry, Step: "A1", Pid: "", Payload: payload,
			RID: grantRID, Scope: 2, EntriesHash: EntriesHash(grantEntries(), grantRefs())}}
}

func sessionV2Msg() SessionMsg {
	m := sessionMsg()
	m.Registry, m.StartStep, m.PayloadHash = registry, "A1", payloadHash
	return m
}

func controlV3Msg() ControlMsg {
	m := controlMsg()
	m.Runner, m.PayloadHash = addrB, payloadHash
	return m
}

func signedSessionV2(t testing.TB) []byte { return must(SignSessionV2(keyA, chainID, sessionV2Msg())) }

func signedControlV3(t testing.TB) []byte {
	return must(SignControlV3(keyA, chainID, contract, controlV3Msg()))
}

func sessionMsg() SessionMsg {
	return SessionMsg{OstcID: "hello_xdala", OstcHash: ostcHash, SessionID: big.NewInt(42),
		MaxTotalGas: big.NewInt(5_000_000), Expiry: expiry}
}

func controlMsg() ControlMsg {
	return ControlMsg{SessionID: big.NewInt(42), Action: ActionWake, StepID: "E1", Expiry: expiry}
}

// must returns a fixture envelope; a fixture that cannot be signed is a
// bug in the test.
func must(raw []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return raw
}

func signedSession(t testing.TB) []byte {
	return must(SignSession(keyA, chainID, sessionMsg()))
}

func signedControl(t testing.TB, v2 bool) []byte {
	m := controlMsg()
	if v2 {
		m.Runner = addrB
	}
	return must(SignControl(keyA, chainID, contract, m, v2))
}

func signedXdala(t testing.TB) []byte {
	return must(SignXdala(keyA, chainID, XdalaMsg{Expiry: expiry}))
}

// signedControlNoStep signs the permit catalog's ControlPermit (no stepId),
// which the public signers do not produce.
func signedControlNoStep(t testing.TB) []byte {
	msg := object{{"from", lowerHex(addrA)}, {"sessionId", "42"}, {"action", "kill"}, {"expiry", expiry.String()}}
	return must(signEnvelope(keyA, KindControl, controlFieldsNoStep, "XDaLa Control", "1", chainID, &contract, msg))
}

// signedSessionStringHash signs the SessionPermit variant with ostcHash
// typed string, as the public XDaLa demo client does.
func signedSessionStringHash(t testing.TB) []byte {
	msg := object{{"from", lowerHex(addrA)}, {"ostcId", "hello_xdala"}, {"ostcHash", ostcHash.Hex()},
		{"sessionId", "42"}, {"maxTotalGas", 5_000_000}, {"expiry", json.Number(expiry.String())}}
	return must(signEnvelope(keyA, KindSession, sessionFieldsStringHash, SessionDomainName, SessionDomainVersion, chainID, nil, msg))
}

// edit decodes an envelope (numbers kept exact), lets f change it and
// encodes it again.
func edit(t testing.TB, raw []byte, f func(env map[string]any)) []byte {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var env map[string]any
	if err := dec.Decode(&env); err != nil {
		t.Fatal(err)
	}
	f(env)
	out, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func obj(env map[string]any, key string) map[string]any { return env[key].(map[string]any) }

func typeList(env map[string]any, name string) []any { return obj(env, "types")[name].([]any) }

// resign replaces the signature with key's signature over the envelope's
// EIP-712 digest, as go-ethereum computes it (without Verify's checks, so
// that envelopes Verify refuses can be signed too).
func resign(t testing.TB, raw []byte, key *ecdsa.PrivateKey) []byte {
	t.Helper()
	var td apitypes.TypedData
	if err := json.Unmarshal(raw, &td); err != nil {
		t.Fatal(err)
	}
	d, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := crypto.Sign(d, key)
	if err != nil {
		t.Fatal(err)
	}
	sig[64] += 27
	return edit(t, raw, func(env map[string]any) { env["signature"] = hexutil.Encode(sig) })
}

// setSig rewrites the signature bytes.
func setSig(t testing.TB, raw []byte, f func(sig []byte) []byte) []byte {
	return edit(t, raw, func(env map[string]any) {
		sig := hexutil.MustDecode(env["signature"].(string))
		env["signature"] = hexutil.Encode(f(sig))
	})
}

func TestAcceptsEveryKindAndVariant(t *testing.T) {
	cases := []struct {
		name   string
		raw    []byte
		kind   Kind
		check  func(t *testing.T, v *Verified)
		expect func(e *Expect)
	}{
		{name: "SessionPermit", raw: signedSession(t), kind: KindSession, check: func(t *testing.T, v *Verified) {
			s := v.Session
			if s == nil || s.From != addrA || s.OstcID != "hello_xdala" || s.OstcHash != ostcHash ||
				s.SessionID.Int64() != 42 || s.MaxTotalGas.Int64() != 5_000_000 || s.Expiry.Cmp(expiry) != 0 {
				t.Fatalf("session message %+v", s)
			}
			if v.Domain.Name != SessionDomainName || v.Domain.Version != "1" || v.Domain.VerifyingContract != (common.Address{}) {
				t.Fatalf("domain %+v", v.Domain)
			}
		}},
		{name: "SessionPermit ostcHash typed string", raw: signedSessionStringHash(t), kind: KindSession, check: func(t *testing.T, v *Verified) {
			if v.Session.OstcHash != ostcHash || v.Session.MaxTotalGas.Int64() != 5_000_000 {
				t.Fatalf("session message %+v", v.Session)
			}
		}},
		{name: "ControlPermit with stepId", raw: signedControl(t, false), kind: KindControl, check: func(t *testing.T, v *Verified) {
			c := v.Control
			if c == nil || c.From != addrA || c.Runner != addrA || c.Action != ActionWake || c.StepID != "E1" || c.SessionID.Int64() != 42 {
				t.Fatalf("control message %+v", c)
			}
			if v.Domain.VerifyingContract != contract || v.Domain.Name != ControlDomainName {
				t.Fatalf("domain %+v", v.Domain)
			}
		}},
		{name: "ControlPermit without stepId (catalog)", raw: signedControlNoStep(t), kind: KindControl, check: func(t *testing.T, v *Verified) {
			if c := v.Control; c.StepID != "" || c.Action != ActionKill || c.Runner != addrA {
				t.Fatalf("control message %+v", c)
			}
		}},
		{name: "ControlPermitV2", raw: signedControl(t, true), kind: KindControlV2, check: func(t *testing.T, v *Verified) {
			if c := v.Control; c.From != addrA || c.Runner != addrB || c.StepID != "E1" {
				t.Fatalf("control message %+v", c)
			}
		}},
		{name: "xdalaPermit", raw: signedXdala(t), kind: KindXdala, check: func(t *testing.T, v *Verified) {
			if v.Xdala == nil || v.Xdala.From != addrA || v.SessionID != 0 || v.Domain.Name != XdalaDomainName || v.Domain.Version != "1" {
				t.Fatalf("xdala %+v", v)
			}
		}},
		{name: "SessionPermitV2", raw: signedSessionV2(t), kind: KindSessionV2, check: func(t *testing.T, v *Verified) {
			s := v.Session
			if s == nil || s.From != addrA || s.Registry != registry || s.StartStep != "A1" || s.PayloadHash != payloadHash ||
				s.OstcHash != ostcHash || s.SessionID.Int64() != 42 || v.SessionID != 42 || v.Domain.Name != SessionDomainName {
				t.Fatalf("session v2 %+v %+v", s, v.Domain)
			}
		}},
		{name: "ControlPermitV3 step mode", raw: signedControlV3(t), kind: KindControlV3, check: func(t *testing.T, v *Verified) {
			c := v.Control
			if c == nil || c.From != addrA || c.Runner != addrB || c.StepID != "E1" || c.Pid != "" || c.PayloadHash != payloadHash ||
				v.Domain.Name != ControlDomainName || v.Domain.VerifyingContract != contract {
				t.Fatalf("control v3 %+v %+v", c, v.Domain)
			}
		}},
		{name: "ControlPermitV3 pid mode, no payload", raw: must(SignControlV3(keyA, chainID, contract, func() ControlMsg {
			m := controlMsg()
			m.StepID, m.Pid, m.PayloadHash = "", "42:2", crypto.Keccak256Hash([]byte("{}"))
			return m
		}())), kind: KindControlV3, expect: func(e *Expect) { e.Request = &Request{Pid: "42:2", Payload: []byte(" null ")} },
			check: func(t *testing.T, v *Verified) {
				if c := v.Control; c.Pid != "42:2" || c.Runner != addrA {
					t.Fatalf("control v3 %+v", c)
				}
			}},
		{name: "RequireBound leaves kinds without an accepted bound version", raw: signedControl(t, true), kind: KindControlV2,
			expect: func(e *Expect) { e.RequireBound, e.Kinds = true, []Kind{KindControl, KindControlV2} }},
		{name: "RequireBound accepts the bound kinds", raw: signedSessionV2(t), kind: KindSessionV2,
			expect: func(e *Expect) { e.RequireBound, e.Kinds = true, []Kind{KindSession, KindSessionV2} }},
		{name: "expiry at the lifetime cap", raw: must(SignXdala(keyA, chainID, XdalaMsg{Expiry: big.NewInt(now.Unix() + 30 + 3600)})), kind: KindXdala},
		{name: "expiry within a longer cap", raw: must(SignXdala(keyA, chainID, XdalaMsg{Expiry: big.NewInt(now.Unix() + 7*24*3600)})), kind: KindXdala,
			expect: func(e *Expect) { e.MaxLifetime = 7 * 24 * time.Hour }},
		{name: "v as 0/1", raw: setSig(t, signedSession(t), func(s []byte) []byte { s[64] -= 27; return s }), kind: KindSession},
		{name: "expired within the skew", raw: must(SignXdala(keyA, chainID, XdalaMsg{Expiry: big.NewInt(now.Unix() - 30)})), kind: KindXdala},
		{name: "accepted kind", raw: signedXdala(t), kind: KindXdala, expect: func(e *Expect) { e.Kinds = []Kind{KindXdala} }},
		{name: "largest session id", raw: must(SignSession(keyA, chainID, func() SessionMsg {
			m := sessionMsg()
			m.SessionID = big.NewInt(1<<63 - 1)
			m.MaxTotalGas = new(big.Int).Add(new(big.Int).Lsh(big.NewInt(1), 255), big.NewInt(1))
			return m
		}())), kind: KindSession, check: func(t *testing.T, v *Verified) {
			if v.SessionID != 1<<63-1 || v.Session.MaxTotalGas.String() != "57896044618658097711785492504343953926634992332820282019728792003956564819969" {
				t.Fatalf("exact numbers lost: %d %s", v.SessionID, v.Session.MaxTotalGas)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := expect()
			if tc.expect != nil {
				tc.expect(&want)
			}
			v, err := Verify(tc.raw, want)
			if err != nil {
				t.Fatalf("refused: %v\n%s", err, tc.raw)
			}
			if v.Kind != tc.kind || v.Signer != addrA {
				t.Fatalf("kind %s signer %s", v.Kind, v.Signer.Hex())
			}
			if tc.check != nil {
				tc.check(t, v)
			}
		})
	}
}

// The digest is the permit's identity: it must not depend on how numbers
// and addresses are spelled, and every spelling must verify.
func TestSpellingsOfTheSameSignedValues(t *testing.T) {
	base := signedSession(t)
	v0, err := Verify(base, expect())
	if err != nil {
		t.Fatal(err)
	}
	spellings := map[string]func(env map[string]any){
		"JSON numbers": func(env map[string]any) {
			m := obj(env, "message")
			m["sessionId"], m["maxTotalGas"], m["expiry"] = json.Number("42"), json.Number("5000000"), json.Number(expiry.String())
		},
		"hex strings": func(env map[string]any) {
			m := obj(env, "message")
			m["sessionId"], m["maxTotalGas"], m["expiry"] = "0x2a", "0X4C4B40", fmt.Sprintf("%#x", expiry)
		},
		"exponent and fraction": func(env map[string]any) {
			m := obj(env, "message")
			m["maxTotalGas"], m["sessionId"] = json.Number("5e6"), json.Number("42.000")
		},
		"leading zeros":      func(env map[string]any) { obj(env, "message")["sessionId"] = "00042" },
		"chainId as strings": func(env map[string]any) { obj(env, "domain")["chainId"] = "1337" },
		"chainId as hex":     func(env map[string]any) { obj(env, "domain")["chainId"] = "0x539" },
		"checksummed from":   func(env map[string]any) { obj(env, "message")["from"] = addrA.Hex() },
		"uppercase from": func(env map[string]any) {
			obj(env, "message")["from"] = "0x" + strings.ToUpper(addrA.Hex()[2:])
		},
		"uppercase ostcHash": func(env map[string]any) {
			obj(env, "message")["ostcHash"] = "0x" + strings.ToUpper(ostcHash.Hex()[2:])
		},
	}
	for name, f := range spellings {
		t.Run(name, func(t *testing.T) {
			v, err := Verify(edit(t, base, f), expect())
			if err != nil {
				t.Fatal(err)
			}
			if v.Digest != v0.Digest {
				t.Fatalf("digest changed: %s vs %s", v.Digest, v0.Digest)
			}
		})
	}
}

type refusal struct {
	name string
	raw  []byte
	want func(e *Expect)
	code Code
	path string
	msg  string // a substring of the message
}

func refusals(t testing.TB) []refusal {
	session := signedSession(t)
	control := signedControl(t, false)
	controlV2 := signedControl(t, true)
	xdala := signedXdala(t)
	sessionV2 := signedSessionV2(t)
	controlV3 := signedControlV3(t)
	request := func(f func(r *Request)) func(e *Expect) {
		return func(e *Expect) {
			r := *e.Request
			f(&r)
			e.Request = &r
		}
	}
	maxUint256, _ := new(big.Int).SetString("115792089237316195423570985008687907853269984665640564039457584007913129639935", 10)
	sEdit := func(f func(env map[string]any)) []byte { return edit(t, session, f) }
	msgSet := func(raw []byte, k string, v any) []byte {
		return edit(t, raw, func(env map[string]any) { obj(env, "message")[k] = v })
	}
	domSet := func(raw []byte, k string, v any) []byte {
		return edit(t, raw, func(env map[string]any) { obj(env, "domain")[k] = v })
	}
	halfS := func(s []byte) []byte { // s' = n - s, v flipped: the malleable twin
		sv := new(big.Int).SetBytes(s[32:64])
		copy(s[32:64], common.LeftPadBytes(new(big.Int).Sub(curveN, sv).Bytes(), 32))
		s[64] = 55 - s[64] // 27 <-> 28
		return s
	}
	big2to64 := new(big.Int).Lsh(big.NewInt(1), 64)
	return []refusal{
		// malformed / missing
		{name: "not JSON", raw: []byte(`{"domain":`), code: CodeMalformed, path: "permit", msg: "not valid JSON"},
		{name: "empty", raw: nil, code: CodeMalformed, path: "permit", msg: "not valid JSON"},
		{name: "array", raw: []byte(`[]`), code: CodeMalformed, path: "permit", msg: "is a JSON array"},
		{name: "trailing data", raw: append(append([]byte{}, session...), []byte(` {}`)...), code: CodeMalformed, path: "permit"},
		{name: "too large", raw: []byte(`{"x":"` + strings.Repeat("a", MaxEnvelopeBytes) + `"}`), code: CodeMalformed, path: "permit", msg: "at most"},
		{name: "duplicate member", raw: append([]byte(`{"primaryType":"xdalaPermit",`), session[1:]...), code: CodeMalformed, path: "permit.primaryType", msg: "twice"},
		{name: "unknown member", raw: sEdit(func(env map[string]any) { env["owner"] = addrA.Hex() }), code: CodeMalformed, path: "permit.owner", msg: "allowed: domain, types"},
		{name: "capitalised member", raw: sEdit(func(env map[string]any) { env["Domain"] = env["domain"]; delete(env, "domain") }), code: CodeMalformed, path: "permit.Domain", msg: "case-sensitive"},
		{name: "domain not an object", raw: sEdit(func(env map[string]any) { env["domain"] = "x" }), code: CodeMalformed, path: "permit.domain"},
		{name: "message not an object", raw: sEdit(func(env map[string]any) { env["message"] = []any{} }), code: CodeMalformed, path: "permit.message"},
		{name: "unknown message field", raw: msgSet(session, "nonce", "1"), code: CodeMalformed, path: "permit.message.nonce", msg: "ostcId"},
		{name: "stepId in a no-stepId ControlPermit", raw: msgSet(signedControlNoStep(t), "stepId", ""), code: CodeMalformed, path: "permit.message.stepId"},
		{name: "no signature", raw: sEdit(func(env map[string]any) { delete(env, "signature") }), code: CodeMissing, path: "permit.signature"},
		{name: "null signature", raw: sEdit(func(env map[string]any) { env["signature"] = nil }), code: CodeMissing, path: "permit.signature"},
		{name: "no domain", raw: sEdit(func(env map[string]any) { delete(env, "domain") }), code: CodeMissing, path: "permit.domain"},
		{name: "no message", raw: sEdit(func(env map[string]any) { delete(env, "message") }), code: CodeMissing, path: "permit.message"},
		{name: "no sessionId", raw: sEdit(func(env map[string]any) { delete(obj(env, "message"), "sessionId") }), code: CodeMissing, path: "permit.message.sessionId"},
		{name: "no chainId", raw: sEdit(func(env map[string]any) { delete(obj(env, "domain"), "chainId") }), code: CodeMissing, path: "permit.domain.chainId"},
		{name: "no domain name", raw: sEdit(func(env map[string]any) { delete(obj(env, "domain"), "name") }), code: CodeMissing, path: "permit.domain.name"},
		// primaryType
		{name: "unknown primaryType", raw: sEdit(func(env map[string]any) { env["primaryType"] = "Permit" }), code: CodeUnknownPrimaryType, path: "permit.primaryType", msg: "SessionPermit, ControlPermit, ControlPermitV2, xdalaPermit"},
		{name: "primaryType case", raw: sEdit(func(env map[string]any) { env["primaryType"] = "sessionPermit" }), code: CodeUnknownPrimaryType, path: "permit.primaryType"},
		{name: "primaryType not accepted here", raw: session, want: func(e *Expect) { e.Kinds = []Kind{KindControl, KindControlV2} }, code: CodeUnknownPrimaryType, path: "permit.primaryType", msg: "not accepted here; allowed: ControlPermit, ControlPermitV2"},
		{name: "primaryType not a string", raw: sEdit(func(env map[string]any) { env["primaryType"] = 1 }), code: CodeMalformed, path: "permit.primaryType"},
		// bound permits required
		{name: "SessionPermit where SessionPermitV2 is required", raw: session, want: func(e *Expect) { e.RequireBound, e.Kinds = true, []Kind{KindSession, KindSessionV2} },
			code: CodeUnbound, path: "permit.primaryType", msg: "requires the bound SessionPermitV2"},
		{name: "ControlPermit where ControlPermitV3 is required", raw: control, want: func(e *Expect) { e.RequireBound, e.Kinds = true, []Kind{KindControl, KindControlV2, KindControlV3} },
			code: CodeUnbound, path: "permit.primaryType", msg: "ControlPermitV3"},
		{name: "ControlPermitV2 where ControlPermitV3 is required, all kinds", raw: controlV2, want: func(e *Expect) { e.RequireBound = true },
			code: CodeUnbound, path: "permit.primaryType", msg: "process id, payload"},
		// types
		{name: "fields reordered", raw: sEdit(func(env map[string]any) {
			l := typeList(env, "SessionPermit")
			l[0], l[1] = l[1], l[0]
		}), code: CodeTypesMismatch, path: "permit.types.SessionPermit", msg: "[from address, ostcId string, ostcHash bytes32"},
		{name: "uint instead of uint256", raw: sEdit(func(env map[string]any) {
			typeList(env, "SessionPermit")[3].(map[string]any)["type"] = "uint"
		}), code: CodeTypesMismatch, path: "permit.types.SessionPermit"},
		{name: "extra field type", raw: sEdit(func(env map[string]any) {
			obj(env, "types")["SessionPermit"] = append(typeList(env, "SessionPermit"), map[string]any{"name": "nonce", "type": "uint256"})
		}), code: CodeTypesMismatch, path: "permit.types.SessionPermit"},
		{name: "extra type", raw: sEdit(func(env map[string]any) { obj(env, "types")["Foo"] = []any{} }), code: CodeTypesMismatch, path: "permit.types.Foo"},
		{name: "no definition", raw: sEdit(func(env map[string]any) { delete(obj(env, "types"), "SessionPermit") }), code: CodeTypesMismatch, path: "permit.types.SessionPermit", msg: "missing"},
		{name: "no EIP712Domain", raw: sEdit(func(env map[string]any) { delete(obj(env, "types"), "EIP712Domain") }), code: CodeTypesMismatch, path: "permit.types.EIP712Domain"},
		{name: "EIP712Domain reordered", raw: sEdit(func(env map[string]any) {
			l := typeList(env, "EIP712Domain")
			l[0], l[2] = l[2], l[0]
		}), code: CodeTypesMismatch, path: "permit.types.EIP712Domain"},
		{name: "EIP712Domain without verifyingContract on a control permit", raw: edit(t, control, func(env map[string]any) {
			obj(env, "types")["EIP712Domain"] = typeList(env, "EIP712Domain")[:3]
		}), code: CodeTypesMismatch, path: "permit.types.EIP712Domain", msg: "verifyingContract address"},
		{name: "type entry with extra member", raw: sEdit(func(env map[string]any) {
			typeList(env, "SessionPermit")[0].(map[string]any)["indexed"] = true
		}), code: CodeTypesMismatch, path: "permit.types.SessionPermit[0].indexed"},
		{name: "type entry not an object", raw: sEdit(func(env map[string]any) { typeList(env, "SessionPermit")[0] = "from address" }), code: CodeTypesMismatch, path: "permit.types.SessionPermit[0]"},
		{name: "V2 fields under ControlPermit", raw: edit(t, controlV2, func(env map[string]any) {
			env["primaryType"] = "ControlPermit"
			obj(env, "types")["ControlPermit"] = obj(env, "types")["ControlPermitV2"]
			delete(obj(env, "types"), "ControlPermitV2")
		}), code: CodeTypesMismatch, path: "permit.types.ControlPermit", msg: " or "},
		// domain
		{name: "session domain name", raw: domSet(session, "name", "XDaLa Permit"), code: CodeDomainMismatch, path: "permit.domain.name", msg: `"XDaLa SessionPermit"`},
		{name: "session domain version", raw: domSet(session, "version", "2"), code: CodeDomainMismatch, path: "permit.domain.version", msg: `"1"`},
		{name: "empty xdala domain name", raw: domSet(xdala, "name", ""), code: CodeDomainMismatch, path: "permit.domain.name", msg: `"XDaLa Permit"`},
		{name: "empty control domain version", raw: domSet(control, "version", ""), code: CodeDomainMismatch, path: "permit.domain.version", msg: `"1"`},
		{name: "other xdala domain name, signed", raw: resign(t, domSet(xdala, "name", "Other dApp"), keyA), code: CodeDomainMismatch, path: "permit.domain.name", msg: `xdalaPermit's domain name is "XDaLa Permit"`},
		{name: "other xdala domain version, signed", raw: resign(t, domSet(xdala, "version", "2"), keyA), code: CodeDomainMismatch, path: "permit.domain.version"},
		{name: "other control domain name, signed", raw: resign(t, domSet(control, "name", "XDaLa"), keyA), code: CodeDomainMismatch, path: "permit.domain.name", msg: `"XDaLa Control"`},
		{name: "other control domain version, signed", raw: resign(t, domSet(controlV2, "version", "2"), keyA), code: CodeDomainMismatch, path: "permit.domain.version"},
		{name: "other SessionPermitV2 domain name", raw: domSet(sessionV2, "name", "XDaLa Control"), code: CodeDomainMismatch, path: "permit.domain.name", msg: `"XDaLa SessionPermit"`},
		{name: "salt in the domain", raw: domSet(session, "salt", ostcHash.Hex()), code: CodeDomainMismatch, path: "permit.domain.salt"},
		{name: "verifyingContract on a session permit", raw: domSet(session, "verifyingContract", lowerHex(contract)), code: CodeDomainMismatch, path: "permit.domain.verifyingContract"},
		{name: "domain name a number", raw: domSet(xdala, "name", 1), code: CodeInvalidValue, path: "permit.domain.name"},
		// chain id
		{name: "other chain", raw: domSet(session, "chainId", 1), code: CodeChainIDMismatch, path: "permit.domain.chainId", msg: "1337"},
		{name: "other chain as hex", raw: domSet(xdala, "chainId", "0x1"), code: CodeChainIDMismatch, path: "permit.domain.chainId"},
		{name: "chainId not a number", raw: domSet(session, "chainId", "mainnet"), code: CodeInvalidValue, path: "permit.domain.chainId"},
		// verifying contract
		{name: "other verifying contract", raw: domSet(control, "verifyingContract", lowerHex(addrB)), code: CodeVerifyingContractMismatch, path: "permit.domain.verifyingContract", msg: contract.Hex()},
		{name: "no verifying contract", raw: edit(t, controlV2, func(env map[string]any) { delete(obj(env, "domain"), "verifyingContract") }), code: CodeAddress, path: "permit.domain.verifyingContract", msg: "missing"},
		{name: "verifying contract not an address", raw: domSet(control, "verifyingContract", "precompile"), code: CodeAddress, path: "permit.domain.verifyingContract"},
		// addresses
		{name: "no from", raw: sEdit(func(env map[string]any) { delete(obj(env, "message"), "from") }), code: CodeAddress, path: "permit.message.from", msg: "missing"},
		{name: "short from", raw: msgSet(session, "from", "0x1234"), code: CodeAddress, path: "permit.message.from", msg: "40 hex digits"},
		{name: "from without 0x", raw: msgSet(session, "from", lowerHex(addrA)[2:]), code: CodeAddress, path: "permit.message.from"},
		{name: "from bad checksum", raw: msgSet(session, "from", badChecksum(addrA)), code: CodeAddress, path: "permit.message.from", msg: "EIP-55"},
		{name: "zero from", raw: msgSet(session, "from", lowerHex(common.Address{})), code: CodeAddress, path: "permit.message.from", msg: "zero"},
		{name: "from a number", raw: msgSet(session, "from", 7), code: CodeAddress, path: "permit.message.from"},
		{name: "zero runner", raw: msgSet(controlV2, "runner", lowerHex(common.Address{})), code: CodeAddress, path: "permit.message.runner"},
		{name: "no runner", raw: edit(t, controlV2, func(env map[string]any) { delete(obj(env, "message"), "runner") }), code: CodeAddress, path: "permit.message.runner"},
		// values
		{name: "unknown action", raw: msgSet(control, "action", "stop"), code: CodeInvalidValue, path: "permit.message.action", msg: "kill, wake, pause, resume"},
		{name: "action case", raw: msgSet(control, "action", "Kill"), code: CodeInvalidValue, path: "permit.message.action"},
		{name: "short ostcHash", raw: msgSet(session, "ostcHash", "0x1234"), code: CodeInvalidValue, path: "permit.message.ostcHash", msg: "64 hex digits"},
		{name: "ostcHash in a string-typed variant not hex", raw: msgSet(signedSessionStringHash(t), "ostcHash", "hello"), code: CodeInvalidValue, path: "permit.message.ostcHash"},
		{name: "ostcId a number", raw: msgSet(session, "ostcId", 5), code: CodeInvalidValue, path: "permit.message.ostcId"},
		{name: "sessionId not a number", raw: msgSet(session, "sessionId", "12abc"), code: CodeInvalidValue, path: "permit.message.sessionId"},
		{name: "sessionId with sign", raw: msgSet(session, "sessionId", "+42"), code: CodeInvalidValue, path: "permit.message.sessionId"},
		{name: "sessionId empty string", raw: msgSet(session, "sessionId", ""), code: CodeInvalidValue, path: "permit.message.sessionId"},
		{name: "hex prefix only", raw: msgSet(session, "sessionId", "0x"), code: CodeInvalidValue, path: "permit.message.sessionId"},
		{name: "expiry a fraction", raw: msgSet(session, "expiry", json.Number("1800000600.5")), code: CodeInvalidValue, path: "permit.message.expiry", msg: "not an integer"},
		{name: "expiry huge exponent", raw: msgSet(session, "expiry", json.Number("1e999999999")), code: CodeInvalidValue, path: "permit.message.expiry", msg: "exponent is too large"},
		{name: "expiry a boolean", raw: msgSet(session, "expiry", true), code: CodeInvalidValue, path: "permit.message.expiry"},
		// ranges
		{name: "sessionId zero", raw: msgSet(session, "sessionId", "0"), code: CodeOutOfRange, path: "permit.message.sessionId", msg: "between 1 and 9223372036854775807"},
		{name: "sessionId 2^63", raw: msgSet(session, "sessionId", "9223372036854775808"), code: CodeOutOfRange, path: "permit.message.sessionId"},
		{name: "sessionId 2^64 on a control permit", raw: msgSet(control, "sessionId", big2to64.String()), code: CodeOutOfRange, path: "permit.message.sessionId"},
		{name: "maxTotalGas wider than 256 bits", raw: msgSet(session, "maxTotalGas", new(big.Int).Lsh(big.NewInt(1), 256).String()), code: CodeOutOfRange, path: "permit.message.maxTotalGas", msg: "256 bits"},
		{name: "negative expiry", raw: msgSet(session, "expiry", json.Number("-1")), code: CodeOutOfRange, path: "permit.message.expiry", msg: "negative"},
		{name: "negative chainId", raw: domSet(session, "chainId", json.Number("-1337")), code: CodeOutOfRange, path: "permit.domain.chainId"},
		// signature form
		{name: "short signature", raw: sEdit(func(env map[string]any) { env["signature"] = env["signature"].(string)[:130] }), code: CodeSignature, path: "permit.signature", msg: "130 hex digits"},
		{name: "signature without 0x", raw: sEdit(func(env map[string]any) { env["signature"] = env["signature"].(string)[2:] + "00" }), code: CodeSignature, path: "permit.signature"},
		{name: "signature not hex", raw: sEdit(func(env map[string]any) { env["signature"] = "0x" + strings.Repeat("zz", 65) }), code: CodeSignature, path: "permit.signature"},
		{name: "signature a number", raw: sEdit(func(env map[string]any) { env["signature"] = 1 }), code: CodeSignature, path: "permit.signature"},
		{name: "v 29", raw: setSig(t, session, func(s []byte) []byte { s[64] = 29; return s }), code: CodeSignature, path: "permit.signature", msg: "v = 29"},
		{name: "v 2", raw: setSig(t, session, func(s []byte) []byte { s[64] = 2; return s }), code: CodeSignature, path: "permit.signature"},
		{name: "high s (malleable twin)", raw: setSig(t, session, halfS), code: CodeSignature, path: "permit.signature", msg: "malleable"},
		{name: "r zero", raw: setSig(t, session, func(s []byte) []byte { clear(s[:32]); return s }), code: CodeSignature, path: "permit.signature", msg: "r out of range"},
		{name: "r = n", raw: setSig(t, session, func(s []byte) []byte { copy(s[:32], curveN.Bytes()); return s }), code: CodeSignature, path: "permit.signature"},
		{name: "s zero", raw: setSig(t, session, func(s []byte) []byte { clear(s[32:64]); return s }), code: CodeSignature, path: "permit.signature"},
		// signer
		{name: "changed ostcId", raw: msgSet(session, "ostcId", "other"), code: CodeSignerMismatch, path: "permit.signature", msg: addrA.Hex()},
		{name: "changed maxTotalGas", raw: msgSet(session, "maxTotalGas", "5000001"), code: CodeSignerMismatch, path: "permit.signature"},
		{name: "changed expiry", raw: msgSet(session, "expiry", json.Number("1900000000")), code: CodeSignerMismatch, path: "permit.signature"},
		{name: "changed action", raw: msgSet(control, "action", "kill"), code: CodeSignerMismatch, path: "permit.signature"},
		{name: "changed stepId", raw: msgSet(control, "stepId", ""), code: CodeSignerMismatch, path: "permit.signature"},
		{name: "changed runner", raw: msgSet(controlV2, "runner", lowerHex(addrA)), code: CodeSignerMismatch, path: "permit.signature"},
		{name: "changed payloadHash", raw: msgSet(sessionV2, "payloadHash", common.Hash{1}.Hex()), code: CodeSignerMismatch, path: "permit.signature"},
		{name: "changed pid", raw: msgSet(controlV3, "pid", "42:2"), code: CodeSignerMismatch, path: "permit.signature"},
		{name: "changed registry", raw: msgSet(sessionV2, "registry", lowerHex(addrB)), code: CodeSignerMismatch, path: "permit.signature"},
		{name: "from claims another signer", raw: msgSet(xdala, "from", lowerHex(addrB)), code: CodeSignerMismatch, path: "permit.signature"},
		{name: "signed by another key", raw: resign(t, session, keyB), code: CodeSignerMismatch, path: "permit.signature", msg: addrB.Hex()},
		{name: "v flipped", raw: setSig(t, session, func(s []byte) []byte { s[64] = 55 - s[64]; return s }), code: CodeSignerMismatch, path: "permit.signature"},
		// expiry
		{name: "expired", raw: must(SignXdala(keyA, chainID, XdalaMsg{Expiry: big.NewInt(now.Unix() - 31)})), code: CodeExpired, path: "permit.message.expiry", msg: "expired"},
		{name: "expired without skew", raw: must(SignXdala(keyA, chainID, XdalaMsg{Expiry: big.NewInt(now.Unix() - 1)})), want: func(e *Expect) { e.Skew = 0 }, code: CodeExpired, path: "permit.message.expiry"},
		{name: "expired a nanosecond ago", raw: signedSession(t), want: func(e *Expect) { e.Now = time.Unix(expiry.Int64(), 1); e.Skew = 0 }, code: CodeExpired, path: "permit.message.expiry"},
		{name: "expiry zero", raw: must(SignXdala(keyA, chainID, XdalaMsg{Expiry: new(big.Int)})), code: CodeExpired, path: "permit.message.expiry"},
		// lifetime cap
		{name: "expiry 2^256-1", raw: must(SignSession(keyA, chainID, func() SessionMsg { m := sessionMsg(); m.Expiry = maxUint256; return m }())),
			code: CodeExpiryTooFar, path: "permit.message.expiry", msg: "at most 1h0m0s from now"},
		{name: "expiry a second past the cap", raw: must(SignXdala(keyA, chainID, XdalaMsg{Expiry: big.NewInt(now.Unix() + 30 + 3600 + 1)})),
			code: CodeExpiryTooFar, path: "permit.message.expiry", msg: "lifetime cap"},
		{name: "expiry past a shorter cap", raw: signedControl(t, false), want: func(e *Expect) { e.MaxLifetime = time.Minute },
			code: CodeExpiryTooFar, path: "permit.message.expiry", msg: "at most 1m0s"},
		// the request of a bound permit
		{name: "SessionPermitV2 with another payload", raw: sessionV2, want: request(func(r *Request) {
			r.Payload = []byte(`{"order":"<a&b>","note":"café\n","amount":18446744073709551617,"ok":[true,null],"__wakeUp":{}}`)
		}),
			code: CodeRequestMismatch, path: "permit.message.payloadHash", msg: "payload hash"},
		{name: "SessionPermitV2 with a number respelled", raw: sessionV2, want: request(func(r *Request) {
			r.Payload = []byte(`{"order":"<a&b>","note":"café\n","amount":1.8446744073709551617e19,"ok":[true,null]}`)
		}),
			code: CodeRequestMismatch, path: "permit.message.payloadHash"},
		{name: "SessionPermitV2 with no payload", raw: sessionV2, want: request(func(r *Request) { r.Payload = nil }),
			code: CodeRequestMismatch, path: "permit.message.payloadHash"},
		{name: "SessionPermitV2 with a payload that is not JSON", raw: sessionV2, want: request(func(r *Request) { r.Payload = []byte(`{"a":`) }),
			code: CodeRequestMismatch, path: "permit.message.payloadHash", msg: "not JSON"},
		{name: "SessionPermitV2 with two payloads", raw: sessionV2, want: request(func(r *Request) { r.Payload = append(append([]byte{}, payload...), "{}"...) }),
			code: CodeRequestMismatch, path: "permit.message.payloadHash", msg: "after the JSON value"},
		{name: "SessionPermitV2 at another step", raw: sessionV2, want: request(func(r *Request) { r.Step = "B1" }),
			code: CodeRequestMismatch, path: "permit.message.startStep", msg: `stepId is "B1" but the permit signs "A1"`},
		{name: "SessionPermitV2 under another registry", raw: sessionV2, want: request(func(r *Request) { r.Registry = addrB }),
			code: CodeRequestMismatch, path: "permit.message.registry", msg: registry.Hex()},
		{name: "ControlPermitV3 for another process", raw: controlV3, want: request(func(r *Request) { r.Pid = "42:3" }),
			code: CodeRequestMismatch, path: "permit.message.pid", msg: `processId is "42:3"`},
		{name: "ControlPermitV3 with another payload", raw: controlV3, want: request(func(r *Request) { r.Payload = []byte(`{"approved":true}`) }),
			code: CodeRequestMismatch, path: "permit.message.payloadHash"},
		{name: "SessionPermitV2 without a start step", raw: resign(t, msgSet(sessionV2, "startStep", ""), keyA),
			code: CodeInvalidValue, path: "permit.message.startStep", msg: "empty"},
		{name: "payloadHash not a bytes32", raw: msgSet(controlV3, "payloadHash", "0x12"), code: CodeInvalidValue, path: "permit.message.payloadHash", msg: "64 hex digits"},
		{name: "zero registry", raw: msgSet(sessionV2, "registry", lowerHex(common.Address{})), code: CodeAddress, path: "permit.message.registry"},
		// config
		{name: "no chain id", raw: session, want: func(e *Expect) { e.ChainID = nil }, code: CodeConfig, msg: "Expect.ChainID"},
		{name: "no clock", raw: session, want: func(e *Expect) { e.Now = time.Time{} }, code: CodeConfig, msg: "Expect.Now"},
		{name: "negative skew", raw: session, want: func(e *Expect) { e.Skew = -time.Second }, code: CodeConfig, msg: "Expect.Skew"},
		{name: "no control contract", raw: control, want: func(e *Expect) { e.ControlContract = common.Address{} }, code: CodeConfig, msg: "Expect.ControlContract"},
		{name: "unknown kind accepted", raw: session, want: func(e *Expect) { e.Kinds = []Kind{"Permit"} }, code: CodeConfig, msg: "Expect.Kinds"},
		{name: "bound permit without a request", raw: controlV3, want: func(e *Expect) { e.Request = nil }, code: CodeConfig, msg: "Expect.Request"},
		{name: "negative lifetime cap", raw: session, want: func(e *Expect) { e.MaxLifetime = -time.Second }, code: CodeConfig, msg: "Expect.MaxLifetime"},
		{name: "lifetime cap over its bound", raw: session, want: func(e *Expect) { e.MaxLifetime = MaxLifetimeCap + time.Second }, code: CodeConfig, msg: "Expect.MaxLifetime"},
		// path root
		{name: "path root", raw: msgSet(control, "action", "stop"), want: func(e *Expect) { e.Path = "params[0].controlPermit" }, code: CodeInvalidValue, path: "params[0].controlPermit.message.action"},
	}
}

func badChecksum(a common.Address) string {
	h := a.Hex()
	// flip the case of the first letter digit
	for i := 2; i < len(h); i++ {
		c := h[i]
		switch {
		case c >= 'a' && c <= 'f':
			return h[:i] + string(c-32) + h[i+1:]
		case c >= 'A' && c <= 'F':
			return h[:i] + string(c+32) + h[i+1:]
		}
	}
	panic("address without letters")
}

func TestRefusals(t *testing.T) {
	for _, tc := range refusals(t) {
		t.Run(tc.name, func(t *testing.T) {
			want := expect()
			if tc.want != nil {
				tc.want(&want)
			}
			v, err := Verify(tc.raw, want)
			if err == nil {
				t.Fatalf("accepted: %+v\n%s", v, tc.raw)
			}
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not an *Error: %v", err, err)
			}
			if pe.Code != tc.code || pe.Path != tc.path {
				t.Fatalf("got code %q path %q, want %q %q: %v", pe.Code, pe.Path, tc.code, tc.path, err)
			}
			if !strings.Contains(pe.Msg, tc.msg) {
				t.Fatalf("message %q lacks %q", pe.Msg, tc.msg)
			}
			if CodeOf(fmt.Errorf("wrapped: %w", err)) != tc.code {
				t.Fatalf("CodeOf does not see through wrapping")
			}
			t.Log(err)
		})
	}
}

// Every code is produced by at least one refusal above.
func TestEveryCodeIsTested(t *testing.T) {
	seen := map[Code]bool{}
	for _, tc := range refusals(t) {
		seen[tc.code] = true
	}
	for _, c := range Codes() {
		if !seen[c] {
			t.Errorf("no refusal case produces %q", c)
		}
	}
}

func TestExpiryBoundary(t *testing.T) {
	raw := signedSession(t)
	for _, tc := range []struct {
		now  time.Time
		skew time.Duration
		ok   bool
	}{
		{time.Unix(expiry.Int64(), 0), 0, true},
		{time.Unix(expiry.Int64(), 1), 0, false},
		{time.Unix(expiry.Int64()+30, 0), 30 * time.Second, true},
		{time.Unix(expiry.Int64()+30, 1), 30 * time.Second, false},
		{time.Unix(expiry.Int64()-3600, 0), 0, true},                // at the lifetime cap
		{time.Unix(expiry.Int64()-3601, 0), 0, false},               // past it
		{time.Unix(expiry.Int64()-3630, 0), 30 * time.Second, true}, // the skew widens the cap
		{time.Unix(expiry.Int64()-3631, 0), 30 * time.Second, false},
	} {
		want := expect()
		want.Now, want.Skew = tc.now, tc.skew
		_, err := Verify(raw, want)
		if (err == nil) != tc.ok {
			t.Errorf("now %v skew %v: err %v, want ok=%v", tc.now.Unix(), tc.skew, err, tc.ok)
		}
	}
}

func TestSignerInputChecks(t *testing.T) {
	m := sessionMsg()
	m.From = addrB
	if _, err := SignSession(keyA, chainID, m); err == nil || !strings.Contains(err.Error(), addrA.Hex()) {
		t.Errorf("From of another key: %v", err)
	}
	m = sessionMsg()
	m.SessionID = big.NewInt(0)
	if _, err := SignSession(keyA, chainID, m); CodeOf(err) != CodeOutOfRange {
		t.Errorf("session id 0: %v", err)
	}
	m = sessionMsg()
	m.Expiry = nil
	if _, err := SignSession(keyA, chainID, m); err == nil {
		t.Error("nil expiry signed")
	}
	if _, err := SignSession(nil, chainID, sessionMsg()); err == nil {
		t.Error("nil key signed")
	}
	if _, err := SignSession(keyA, nil, sessionMsg()); err == nil {
		t.Error("nil chain id signed")
	}
	c := controlMsg()
	c.Runner = addrB
	if _, err := SignControl(keyA, chainID, contract, c, false); err == nil || !strings.Contains(err.Error(), "ControlPermitV2") {
		t.Errorf("v1 with a foreign runner: %v", err)
	}
	c = controlMsg()
	c.Action = "stop"
	if _, err := SignControl(keyA, chainID, contract, c, true); CodeOf(err) != CodeInvalidValue {
		t.Errorf("bad action: %v", err)
	}
	if _, err := SignControl(keyA, chainID, common.Address{}, controlMsg(), true); err == nil {
		t.Error("no contract signed")
	}
	c = controlMsg()
	c.Pid = "42:1"
	if _, err := SignControl(keyA, chainID, contract, c, true); err == nil || !strings.Contains(err.Error(), "ControlPermitV3") {
		t.Errorf("a pid in a ControlPermitV2: %v", err)
	}
	s := sessionV2Msg()
	s.Registry = common.Address{}
	if _, err := SignSessionV2(keyA, chainID, s); CodeOf(err) != CodeAddress {
		t.Errorf("SessionPermitV2 without a registry: %v", err)
	}
	// a zero runner in v2 means the signer itself
	raw := must(SignControl(keyA, chainID, contract, controlMsg(), true))
	v, err := Verify(raw, expect())
	if err != nil || v.Control.Runner != addrA {
		t.Fatalf("v2 zero runner: %v %+v", err, v)
	}
}

// The Go signer writes envelopes the way ethers' getPayload does: numbers
// as decimal strings, addresses lowercase, chainId a hex quantity, v 27/28.
func TestSignedEnvelopeShape(t *testing.T) {
	raw := signedControl(t, true)
	var env struct {
		Domain      map[string]any                 `json:"domain"`
		Types       map[string][]map[string]string `json:"types"`
		PrimaryType string                         `json:"primaryType"`
		Message     map[string]any                 `json:"message"`
		Signature   string                         `json:"signature"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	if err := dec.Decode(&env); err != nil {
		t.Fatal(err)
	}
	if env.Domain["chainId"] != "0x539" || env.Domain["verifyingContract"] != lowerHex(contract) {
		t.Errorf("domain %v", env.Domain)
	}
	if env.Message["sessionId"] != "42" || env.Message["from"] != lowerHex(addrA) || env.Message["runner"] != lowerHex(addrB) {
		t.Errorf("message %v", env.Message)
	}
	if sig := hexutil.MustDecode(env.Signature); len(sig) != 65 || sig[64] != 27 && sig[64] != 28 {
		t.Errorf("signature %s", env.Signature)
	}
	if !bytes.HasPrefix(raw, []byte(`{"domain":{"name":"XDaLa Control","version":"1","chainId":"0x539","verifyingContract":`)) {
		t.Errorf("member order: %s", raw)
	}
}
