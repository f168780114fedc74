package permit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/xgr-sidecar/xgr/testenv"
)

// ethersJob is the input of testdata/sign.mjs.
type ethersJob struct {
	PrivateKey  string             `json:"privateKey"`
	Domain      map[string]any     `json:"domain"`
	Types       map[string][]field `json:"types"`
	PrimaryType string             `json:"primaryType"`
	Message     map[string]any     `json:"message"`
	Form        string             `json:"form,omitempty"`
	// Payload, when set, makes the script sign message.payloadHash =
	// keccak256(toUtf8Bytes(JSON.stringify(payload))).
	Payload json.RawMessage `json:"payload,omitempty"`
	// Grants, when set, makes the script sign message.entriesHash as a
	// JavaScript client computes it from an xgr_manageGrants request (the
	// recipe of docs/rpc.md: keccak256 of AbiCoder's encoding).
	Grants map[string]any `json:"grants,omitempty"`
}

// jsGrants is the xgr_manageGrants request of the GrantPermit fixtures
// (grantEntries, grantRefs) as a JavaScript client holds it: members as
// the request sends them, absent ones left out.
func jsGrants(refs map[string]any) map[string]any {
	g := map[string]any{"entries": []map[string]any{
		{"grantee": strings.ToLower(addrB.Hex()), "rights": 1, "expireAt": 1_800_086_400, "encDEK": "XGRK2.P256HKDFGCM.AAAA"},
		{"grantee": addrA.Hex(), "rights": 7, "expireAt": 1_800_086_400, "isOwner": true},
	}}
	for k, v := range refs {
		g[k] = v
	}
	return g
}

// signWithEthers runs testdata/sign.mjs on the jobs (testenv.SignWithEthers:
// node and the pinned ethers module, a failure naming `make tools` when
// they are missing) and returns one envelope per job.
func signWithEthers(t *testing.T, jobs []ethersJob) [][]byte {
	t.Helper()
	envs := testenv.SignWithEthers(t, jobs)
	res := make([][]byte, len(envs))
	for i, e := range envs {
		res[i] = e
	}
	return res
}

// jsPayload is a payload a JavaScript client can represent exactly (no
// integer past 2^53, numbers as JSON.stringify writes them) with every kind
// of character JSON.stringify treats specially; jsPayloadSent is the same
// value as another client might send it: reformatted, re-escaped.
var (
	jsPayload     = json.RawMessage(`{"order":"<a&b> \"q\" \\ /","note":"café\u2028\u0001\u001f\b\t\n\f\r","n":[1,2.5,-300,1e+21,0.000001],"deep":{"x":null,"t":true,"f":false,"e":{},"l":[]},"π":"😀"}`)
	jsPayloadSent = []byte("{ \"order\" : \"\\u003ca\\u0026b\\u003e \\\"q\\\" \\\\ \\/\",\n  \"note\": \"caf\\u00e9\\u2028\\u0001\\u001F\\b\\t\\n\\f\\r\",\t\"n\": [1, 2.5, -300, 1e+21, 0.000001],\r\n \"deep\": {\"x\": null, \"t\": true, \"f\": false, \"e\": { }, \"l\": [ ]}, \"\\u03c0\": \"\\ud83d\\ude00\" }")
)

// jsPayloadHash is PayloadHash(jsPayloadSent), which must be what ethers
// computes from jsPayload.
func jsPayloadHash(t *testing.T) common.Hash {
	h, err := PayloadHash(jsPayloadSent)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func jsonValue(t *testing.T, raw []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestEthersCrossCheck signs permits of every kind with ethers.js v6 and
// checks that Verify accepts them, that the Go signer produces the very
// same envelopes (RFC 6979 makes both signatures deterministic), and that
// ethers-signed permits with a changed field, the wrong chain, a past
// expiry, another signer or a malformed signature are refused with their
// distinct codes.
func TestEthersCrossCheck(t *testing.T) {
	privA := hexutil.Encode(crypto.FromECDSA(keyA))
	privB := hexutil.Encode(crypto.FromECDSA(keyB))
	sessionDomain := func(chain any) map[string]any {
		return map[string]any{"name": SessionDomainName, "version": "1", "chainId": chain}
	}
	controlDomain := func(vc common.Address) map[string]any {
		return map[string]any{"name": ControlDomainName, "version": "1", "chainId": 1337, "verifyingContract": vc.Hex()}
	}
	sessionMessage := func(exp any) map[string]any {
		return map[string]any{"from": addrA.Hex(), "ostcId": "hello_xdala", "ostcHash": ostcHash.Hex(),
			"sessionId": 42, "maxTotalGas": "5000000", "expiry": exp}
	}
	bigChain, _ := new(big.Int).SetString("9007199254740993", 10) // 2^53 + 1: ethers writes it as hex
	hugeGas := "57896044618658097711785492504343953926634992332820282019728792003956564819969"

	type tc struct {
		name string
		job  ethersJob
		want func(e *Expect)
		code Code                                        // "" = accepted
		goEq func() ([]byte, error)                      // the Go signer's envelope for the same permit
		chk  func(t *testing.T, v *Verified, raw []byte) // extra checks on acceptance
	}
	cases := []tc{
		{name: "SessionPermit", job: ethersJob{PrivateKey: privA, Domain: sessionDomain(1337),
			Types: map[string][]field{"SessionPermit": sessionFields}, PrimaryType: "SessionPermit", Message: sessionMessage(expiry.String())},
			goEq: func() ([]byte, error) { return SignSession(keyA, chainID, sessionMsg()) }},
		{name: "SessionPermit as the XDaLa demo client sends it (ostcHash string, numbers mixed)", job: ethersJob{PrivateKey: privA, Domain: sessionDomain(1337),
			Types:       map[string][]field{"EIP712Domain": domainFields, "SessionPermit": sessionFieldsStringHash},
			PrimaryType: "SessionPermit", Form: "asis",
			Message: map[string]any{"from": strings.ToLower(addrA.Hex()), "ostcId": "hello_xdala", "ostcHash": ostcHash.Hex(),
				"sessionId": "42", "maxTotalGas": 5000000, "expiry": expiry.Int64()}},
			chk: func(t *testing.T, v *Verified, _ []byte) {
				if v.Session.OstcHash != ostcHash || v.SessionID != 42 {
					t.Errorf("session %+v", v.Session)
				}
			}},
		{name: "SessionPermit with exact big numbers", job: ethersJob{PrivateKey: privA, Domain: sessionDomain(1337),
			Types: map[string][]field{"SessionPermit": sessionFields}, PrimaryType: "SessionPermit",
			Message: map[string]any{"from": addrA.Hex(), "ostcId": "big", "ostcHash": ostcHash.Hex(),
				"sessionId": "9223372036854775807", "maxTotalGas": hugeGas, "expiry": fmt.Sprintf("%#x", expiry)}},
			chk: func(t *testing.T, v *Verified, _ []byte) {
				if v.SessionID != 1<<63-1 || v.Session.MaxTotalGas.String() != hugeGas || v.Session.Expiry.Cmp(expiry) != 0 {
					t.Errorf("numbers not exact: %d %s %s", v.SessionID, v.Session.MaxTotalGas, v.Session.Expiry)
				}
			}},
		{name: "SessionPermitV2, payloadHash as ethers computes it", job: ethersJob{PrivateKey: privA, Domain: sessionDomain(1337),
			Types: map[string][]field{"SessionPermitV2": sessionV2Fields}, PrimaryType: "SessionPermitV2", Payload: jsPayload,
			Message: map[string]any{"from": addrA.Hex(), "registry": registry.Hex(), "ostcId": "hello_xdala", "ostcHash": ostcHash.Hex(),
				"startStep": "A1", "sessionId": 42, "maxTotalGas": "5000000", "expiry": expiry.String()}},
			want: func(e *Expect) { e.Request.Payload = jsPayloadSent },
			goEq: func() ([]byte, error) {
				m := sessionV2Msg()
				m.PayloadHash = jsPayloadHash(t)
				return SignSessionV2(keyA, chainID, m)
			}},
		{name: "ControlPermitV3, payloadHash as ethers computes it", job: ethersJob{PrivateKey: privA, Domain: controlDomain(contract),
			Types: map[string][]field{"ControlPermitV3": controlV3Fields}, PrimaryType: "ControlPermitV3", Payload: jsPayload,
			Message: map[string]any{"from": addrA.Hex(), "runner": addrB.Hex(), "sessionId": "42", "action": "wake", "stepId": "", "pid": "42:7", "expiry": expiry.String()}},
			want: func(e *Expect) { e.Request.Payload, e.Request.Pid = jsPayloadSent, "42:7" },
			goEq: func() ([]byte, error) {
				m := controlV3Msg()
				m.StepID, m.Pid, m.PayloadHash = "", "42:7", jsPayloadHash(t)
				return SignControlV3(keyA, chainID, contract, m)
			}},
		{name: "ControlPermitV3 with the fixture payload", job: ethersJob{PrivateKey: privA, Domain: controlDomain(contract),
			Types: map[string][]field{"ControlPermitV3": controlV3Fields}, PrimaryType: "ControlPermitV3", Payload: payload,
			Message: map[string]any{"from": addrA.Hex(), "runner": addrB.Hex(), "sessionId": "42", "action": "wake", "stepId": "E1", "pid": "", "expiry": expiry.String()}},
			code: CodeRequestMismatch, // ethers cannot keep 18446744073709551617 exact: JSON.stringify writes 18446744073709552000
		},
		{name: "GrantPermit, entriesHash as ethers computes it", job: ethersJob{PrivateKey: privA,
			Domain: map[string]any{"name": XdalaDomainName, "version": "1", "chainId": 1337},
			Types:  map[string][]field{"GrantPermit": grantFields}, PrimaryType: "GrantPermit", Grants: jsGrants(map[string]any{"sessionId": "9"}),
			Message: map[string]any{"from": addrA.Hex(), "rid": grantRID.Hex(), "scope": 2, "expiry": expiry.String()}},
			goEq: func() ([]byte, error) { return SignGrant(keyA, chainID, grantMsg()) },
			chk: func(t *testing.T, v *Verified, _ []byte) {
				if v.Grant.EntriesHash != EntriesHash(grantEntries(), grantRefs()) {
					t.Errorf("entriesHash %s", v.Grant.EntriesHash)
				}
			}},
		{name: "GrantPermit with every reference", job: ethersJob{PrivateKey: privA,
			Domain: map[string]any{"name": XdalaDomainName, "version": "1", "chainId": 1337},
			Types:  map[string][]field{"GrantPermit": grantFields}, PrimaryType: "GrantPermit",
			Grants:  jsGrants(map[string]any{"sessionId": 9, "refAddr": registry.Hex(), "txHash": ostcHash.Hex()}),
			Message: map[string]any{"from": addrA.Hex(), "rid": grantRID.Hex(), "scope": "1", "expiry": expiry.String()}},
			want: func(e *Expect) {
				e.Request.Scope = 1
				e.Request.EntriesHash = EntriesHash(grantEntries(), GrantRefs{RefAddr: registry, SessionID: 9, TxHash: ostcHash})
			},
			goEq: func() ([]byte, error) {
				m := grantMsg()
				m.Scope, m.EntriesHash = 1, EntriesHash(grantEntries(), GrantRefs{RefAddr: registry, SessionID: 9, TxHash: ostcHash})
				return SignGrant(keyA, chainID, m)
			}},
		{name: "GrantPermit used with other entries", job: ethersJob{PrivateKey: privA,
			Domain: map[string]any{"name": XdalaDomainName, "version": "1", "chainId": 1337},
			Types:  map[string][]field{"GrantPermit": grantFields}, PrimaryType: "GrantPermit", Grants: jsGrants(nil), // no session reference
			Message: map[string]any{"from": addrA.Hex(), "rid": grantRID.Hex(), "scope": 2, "expiry": expiry.String()}},
			code: CodeRequestMismatch},
		{name: "expiry 2^256-1", job: ethersJob{PrivateKey: privA, Domain: sessionDomain(1337),
			Types: map[string][]field{"SessionPermit": sessionFields}, PrimaryType: "SessionPermit", Message: sessionMessage("0x" + strings.Repeat("f", 64))},
			code: CodeExpiryTooFar},
		{name: "SessionPermitV2 used at another step", job: ethersJob{PrivateKey: privA, Domain: sessionDomain(1337),
			Types: map[string][]field{"SessionPermitV2": sessionV2Fields}, PrimaryType: "SessionPermitV2", Payload: jsPayload,
			Message: map[string]any{"from": addrA.Hex(), "registry": registry.Hex(), "ostcId": "hello_xdala", "ostcHash": ostcHash.Hex(),
				"startStep": "B1", "sessionId": 42, "maxTotalGas": "5000000", "expiry": expiry.String()}},
			want: func(e *Expect) { e.Request.Payload = jsPayloadSent },
			code: CodeRequestMismatch},
		{name: "xdalaPermit of another dApp's domain", job: ethersJob{PrivateKey: privA, Domain: map[string]any{"name": "Other dApp", "version": "1", "chainId": 1337},
			Types: map[string][]field{"xdalaPermit": xdalaFields}, PrimaryType: "xdalaPermit",
			Message: map[string]any{"from": addrA.Hex(), "expiry": expiry.String()}},
			code: CodeDomainMismatch},
		{name: "ControlPermit with stepId", job: ethersJob{PrivateKey: privA, Domain: controlDomain(contract),
			Types: map[string][]field{"ControlPermit": controlFields}, PrimaryType: "ControlPermit",
			Message: map[string]any{"from": addrA.Hex(), "sessionId": "42", "action": "wake", "stepId": "E1", "expiry": expiry.String()}},
			goEq: func() ([]byte, error) { return SignControl(keyA, chainID, contract, controlMsg(), false) }},
		{name: "ControlPermit without stepId", job: ethersJob{PrivateKey: privA, Domain: controlDomain(contract),
			Types: map[string][]field{"ControlPermit": controlFieldsNoStep}, PrimaryType: "ControlPermit",
			Message: map[string]any{"from": addrA.Hex(), "sessionId": "42", "action": "kill", "expiry": expiry.String()}},
			chk: func(t *testing.T, v *Verified, _ []byte) {
				if v.Control.Action != ActionKill || v.Control.StepID != "" || v.Control.Runner != addrA {
					t.Errorf("control %+v", v.Control)
				}
			}},
		{name: "ControlPermitV2", job: ethersJob{PrivateKey: privA, Domain: controlDomain(contract),
			Types: map[string][]field{"ControlPermitV2": controlV2Fields}, PrimaryType: "ControlPermitV2",
			Message: map[string]any{"from": addrA.Hex(), "runner": addrB.Hex(), "sessionId": "42", "action": "wake", "stepId": "E1", "expiry": expiry.String()}},
			goEq: func() ([]byte, error) {
				m := controlMsg()
				m.Runner = addrB
				return SignControl(keyA, chainID, contract, m, true)
			}},
		{name: "xdalaPermit", job: ethersJob{PrivateKey: privA, Domain: map[string]any{"name": XdalaDomainName, "version": "1", "chainId": 1337},
			Types: map[string][]field{"xdalaPermit": xdalaFields}, PrimaryType: "xdalaPermit",
			Message: map[string]any{"from": addrA.Hex(), "expiry": expiry.String()}},
			goEq: func() ([]byte, error) {
				return SignXdala(keyA, chainID, XdalaMsg{Expiry: expiry})
			}},
		{name: "xdalaPermit on a chain id past 2^53", job: ethersJob{PrivateKey: privA, Domain: map[string]any{"name": XdalaDomainName, "version": XdalaDomainVersion, "chainId": bigChain.String()},
			Types: map[string][]field{"xdalaPermit": xdalaFields}, PrimaryType: "xdalaPermit",
			Message: map[string]any{"from": addrA.Hex(), "expiry": expiry.String()}},
			want: func(e *Expect) { e.ChainID = bigChain },
			goEq: func() ([]byte, error) { return SignXdala(keyA, bigChain, XdalaMsg{Expiry: expiry}) }},

		{name: "wrong chain", job: ethersJob{PrivateKey: privA, Domain: sessionDomain(1),
			Types: map[string][]field{"SessionPermit": sessionFields}, PrimaryType: "SessionPermit", Message: sessionMessage(expiry.String())},
			code: CodeChainIDMismatch},
		{name: "expired", job: ethersJob{PrivateKey: privA, Domain: sessionDomain(1337),
			Types: map[string][]field{"SessionPermit": sessionFields}, PrimaryType: "SessionPermit", Message: sessionMessage(now.Unix() - 3600)},
			code: CodeExpired},
		{name: "signed by another key", job: ethersJob{PrivateKey: privB, Domain: sessionDomain(1337),
			Types: map[string][]field{"SessionPermit": sessionFields}, PrimaryType: "SessionPermit", Message: sessionMessage(expiry.String())},
			code: CodeSignerMismatch},
		{name: "other verifying contract", job: ethersJob{PrivateKey: privA, Domain: controlDomain(addrB),
			Types: map[string][]field{"ControlPermitV2": controlV2Fields}, PrimaryType: "ControlPermitV2",
			Message: map[string]any{"from": addrA.Hex(), "runner": addrB.Hex(), "sessionId": "42", "action": "wake", "stepId": "", "expiry": expiry.String()}},
			code: CodeVerifyingContractMismatch},
		{name: "session id past int64", job: ethersJob{PrivateKey: privA, Domain: map[string]any{"name": ControlDomainName, "version": "1", "chainId": 1337, "verifyingContract": contract.Hex()},
			Types: map[string][]field{"ControlPermit": controlFields}, PrimaryType: "ControlPermit",
			Message: map[string]any{"from": addrA.Hex(), "sessionId": "18446744073709551615", "action": "kill", "stepId": "", "expiry": expiry.String()}},
			code: CodeOutOfRange},
		{name: "action outside the set", job: ethersJob{PrivateKey: privA, Domain: controlDomain(contract),
			Types: map[string][]field{"ControlPermit": controlFields}, PrimaryType: "ControlPermit",
			Message: map[string]any{"from": addrA.Hex(), "sessionId": "42", "action": "drain", "stepId": "", "expiry": expiry.String()}},
			code: CodeInvalidValue},
	}
	jobs := make([]ethersJob, len(cases))
	for i, c := range cases {
		jobs[i] = c.job
	}
	envs := signWithEthers(t, jobs)

	for i, c := range cases {
		raw := envs[i]
		t.Run(c.name, func(t *testing.T) {
			want := expect()
			if c.want != nil {
				c.want(&want)
			}
			v, err := Verify(raw, want)
			if c.code != "" {
				if CodeOf(err) != c.code {
					t.Fatalf("got %v (code %q), want code %q\n%s", err, CodeOf(err), c.code, raw)
				}
				return
			}
			if err != nil {
				t.Fatalf("refused: %v\n%s", err, raw)
			}
			if v.Signer != addrA || string(v.Kind) != c.job.PrimaryType {
				t.Fatalf("signer %s kind %s", v.Signer.Hex(), v.Kind)
			}
			if c.chk != nil {
				c.chk(t, v, raw)
			}
			if c.goEq != nil {
				mine, err := c.goEq()
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(jsonValue(t, mine), jsonValue(t, raw)) {
					t.Errorf("the Go signer's envelope differs from ethers':\n go:     %s\n ethers: %s", mine, raw)
				}
			}
		})
	}

	// Tampering with an ethers-signed permit.
	session := envs[0]
	base, err := Verify(session, expect())
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []struct {
		name string
		raw  []byte
		code Code
	}{
		{"changed maxTotalGas", edit(t, session, func(env map[string]any) { obj(env, "message")["maxTotalGas"] = "5000001" }), CodeSignerMismatch},
		{"changed ostcHash", edit(t, session, func(env map[string]any) { obj(env, "message")["ostcHash"] = common.Hash{1}.Hex() }), CodeSignerMismatch},
		{"changed sessionId", edit(t, session, func(env map[string]any) { obj(env, "message")["sessionId"] = "43" }), CodeSignerMismatch},
		{"changed domain chainId to this chain's twin", edit(t, session, func(env map[string]any) { obj(env, "domain")["chainId"] = 1338 }), CodeChainIDMismatch},
		{"truncated signature", edit(t, session, func(env map[string]any) { env["signature"] = env["signature"].(string)[:100] }), CodeSignature},
		{"v 29", setSig(t, session, func(s []byte) []byte { s[64] = 29; return s }), CodeSignature},
		{"malleable twin", setSig(t, session, func(s []byte) []byte {
			sv := new(big.Int).SetBytes(s[32:64])
			copy(s[32:64], common.LeftPadBytes(new(big.Int).Sub(curveN, sv).Bytes(), 32))
			s[64] = 55 - s[64]
			return s
		}), CodeSignature},
		{"v as 0/1", setSig(t, session, func(s []byte) []byte { s[64] -= 27; return s }), ""},
	} {
		t.Run("tampered/"+m.name, func(t *testing.T) {
			v, err := Verify(m.raw, expect())
			if CodeOf(err) != m.code {
				t.Fatalf("got %v (code %q), want %q", err, CodeOf(err), m.code)
			}
			if m.code == "" && v.Digest != base.Digest {
				t.Fatalf("digest %s, want %s", v.Digest, base.Digest)
			}
		})
	}
}
