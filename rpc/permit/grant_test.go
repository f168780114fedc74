package permit

import (
	"errors"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// The GrantPermit fixtures: owner A grants B READ with a wrapped key and
// renews its own owner entry on grantRID in scope 2 (logs), with session 9
// as the reference.
var grantRID = crypto.Keccak256Hash([]byte("xgr permit test rid"))

func grantEntries() []GrantEntry {
	return []GrantEntry{
		{Grantee: addrB, Rights: 1, ExpireAt: 1_800_086_400, EncDEK: "XGRK2.P256HKDFGCM.AAAA"},
		{Grantee: addrA, Rights: 7, ExpireAt: 1_800_086_400, IsOwner: true},
	}
}

func grantRefs() GrantRefs { return GrantRefs{SessionID: 9} }

func grantMsg() GrantMsg {
	return GrantMsg{RID: grantRID, Scope: 2, EntriesHash: EntriesHash(grantEntries(), grantRefs()), Expiry: expiry}
}

func signedGrant(t testing.TB) []byte { return must(SignGrant(keyA, chainID, grantMsg())) }

// grantExpect is expect() for xgr_manageGrants: GrantPermit or xdalaPermit.
func grantExpect(requireBound bool) Expect {
	e := expect()
	e.Kinds, e.RequireBound = []Kind{KindGrant, KindXdala}, requireBound
	return e
}

func TestGrantPermitAccepted(t *testing.T) {
	v, err := Verify(signedGrant(t), grantExpect(true))
	if err != nil {
		t.Fatal(err)
	}
	g := v.Grant
	if v.Kind != KindGrant || g == nil || g.From != addrA || g.RID != grantRID || g.Scope != 2 || g.EntriesHash != EntriesHash(grantEntries(), grantRefs()) ||
		v.Xdala != nil || v.Session != nil || v.Control != nil || v.SessionID != 0 || v.Domain.Name != XdalaDomainName {
		t.Fatalf("verified %+v, grant %+v", v, g)
	}
	// Its identity differs from an xdalaPermit of the same signer and
	// expiry: another primary type, another digest.
	x, err := Verify(signedXdala(t), expect())
	if err != nil || x.Digest == v.Digest {
		t.Fatalf("xdala digest %v %v", x, err)
	}
}

// Where a method takes both kinds and requires the bound one, an
// xdalaPermit (a read permit a relay may hold) is refused; where the bound
// kind is not accepted (reads), RequireBound leaves it alone.
func TestGrantPermitRequireBound(t *testing.T) {
	_, err := Verify(signedXdala(t), grantExpect(true))
	var pe *Error
	if !errors.As(err, &pe) || pe.Code != CodeUnbound || pe.Path != "permit.primaryType" ||
		!strings.Contains(pe.Msg, "RID, scope, grant entries") || !strings.Contains(pe.Msg, "GrantPermit") {
		t.Fatalf("xdalaPermit where a GrantPermit is required: %v", err)
	}
	if _, err := Verify(signedXdala(t), grantExpect(false)); err != nil {
		t.Fatalf("xdalaPermit where unbound permits are allowed: %v", err)
	}
	read := expect()
	read.Kinds, read.RequireBound = []Kind{KindXdala}, true
	if _, err := Verify(signedXdala(t), read); err != nil {
		t.Fatalf("xdalaPermit for a read: %v", err)
	}
	read.Kinds = []Kind{KindXdala}
	if _, err := Verify(signedGrant(t), read); CodeOf(err) != CodeUnknownPrimaryType {
		t.Fatalf("GrantPermit where only xdalaPermit is taken: %v", err)
	}
}

// A GrantPermit authorizes only the change it signs.
func TestGrantPermitRequestMismatch(t *testing.T) {
	raw := signedGrant(t)
	otherEntries := func(f func(es []GrantEntry, r *GrantRefs) []GrantEntry) func(r *Request) {
		return func(r *Request) {
			es, refs := grantEntries(), grantRefs()
			es = f(es, &refs)
			r.EntriesHash = EntriesHash(es, refs)
		}
	}
	for _, tc := range []struct {
		name string
		req  func(r *Request)
		path string
	}{
		{"another rid", func(r *Request) { r.RID = common.Hash{1} }, "permit.message.rid"},
		{"another scope", func(r *Request) { r.Scope = 1 }, "permit.message.scope"},
		{"a grantee swapped for the relay", otherEntries(func(es []GrantEntry, _ *GrantRefs) []GrantEntry {
			es[0].Grantee = common.HexToAddress("0x00000000000000000000000000000000000000b7")
			return es
		}), "permit.message.entriesHash"},
		{"more rights", otherEntries(func(es []GrantEntry, _ *GrantRefs) []GrantEntry { es[0].Rights = 5; return es }), "permit.message.entriesHash"},
		{"a later expiry", otherEntries(func(es []GrantEntry, _ *GrantRefs) []GrantEntry { es[0].ExpireAt++; return es }), "permit.message.entriesHash"},
		{"another wrapped key", otherEntries(func(es []GrantEntry, _ *GrantRefs) []GrantEntry { es[0].EncDEK = "XGRK2.P256HKDFGCM.AAAB"; return es }), "permit.message.entriesHash"},
		{"owner flag moved", otherEntries(func(es []GrantEntry, _ *GrantRefs) []GrantEntry {
			es[0].IsOwner, es[1].IsOwner = true, false
			return es
		}), "permit.message.entriesHash"},
		{"an entry added", otherEntries(func(es []GrantEntry, _ *GrantRefs) []GrantEntry {
			return append(es, GrantEntry{Grantee: common.HexToAddress("0x00000000000000000000000000000000000000b7"), Rights: 1, ExpireAt: 1_800_086_400})
		}), "permit.message.entriesHash"},
		{"an entry dropped", otherEntries(func(es []GrantEntry, _ *GrantRefs) []GrantEntry { return es[1:] }), "permit.message.entriesHash"},
		{"entries reordered", otherEntries(func(es []GrantEntry, _ *GrantRefs) []GrantEntry { return []GrantEntry{es[1], es[0]} }), "permit.message.entriesHash"},
		{"another session reference", otherEntries(func(es []GrantEntry, r *GrantRefs) []GrantEntry { r.SessionID = 10; return es }), "permit.message.entriesHash"},
		{"a rule contract reference added", otherEntries(func(es []GrantEntry, r *GrantRefs) []GrantEntry { r.RefAddr = registry; return es }), "permit.message.entriesHash"},
		{"a tx reference added", otherEntries(func(es []GrantEntry, r *GrantRefs) []GrantEntry { r.TxHash = common.Hash{2}; return es }), "permit.message.entriesHash"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := grantExpect(true)
			r := *want.Request
			tc.req(&r)
			want.Request = &r
			_, err := Verify(raw, want)
			var pe *Error
			if !errors.As(err, &pe) || pe.Code != CodeRequestMismatch || pe.Path != tc.path || !strings.Contains(pe.Msg, "GrantPermit authorizes only") {
				t.Fatalf("got %v, want %s at %s", err, CodeRequestMismatch, tc.path)
			}
		})
	}
	want := grantExpect(true)
	want.Request = nil
	if _, err := Verify(raw, want); CodeOf(err) != CodeConfig {
		t.Fatalf("no request: %v", err)
	}
}

func TestGrantPermitRefusals(t *testing.T) {
	g := signedGrant(t)
	for _, tc := range []struct {
		name string
		raw  []byte
		code Code
		path string
	}{
		{"scope 3, signed", resign(t, edit(t, g, func(env map[string]any) { obj(env, "message")["scope"] = "3" }), keyA), CodeOutOfRange, "permit.message.scope"},
		{"scope 2^256-1, signed", resign(t, edit(t, g, func(env map[string]any) { obj(env, "message")["scope"] = "0x" + strings.Repeat("f", 64) }), keyA), CodeOutOfRange, "permit.message.scope"},
		{"rid not bytes32", edit(t, g, func(env map[string]any) { obj(env, "message")["rid"] = "0x12" }), CodeInvalidValue, "permit.message.rid"},
		{"rid changed", edit(t, g, func(env map[string]any) { obj(env, "message")["rid"] = common.Hash{1}.Hex() }), CodeSignerMismatch, "permit.signature"},
		{"entriesHash changed", edit(t, g, func(env map[string]any) { obj(env, "message")["entriesHash"] = common.Hash{1}.Hex() }), CodeSignerMismatch, "permit.signature"},
		{"scope changed", edit(t, g, func(env map[string]any) { obj(env, "message")["scope"] = "1" }), CodeSignerMismatch, "permit.signature"},
		{"an xdalaPermit's types", edit(t, g, func(env map[string]any) {
			env["types"].(map[string]any)["GrantPermit"] = env["types"].(map[string]any)["EIP712Domain"]
		}), CodeTypesMismatch, "permit.types.GrantPermit"},
		{"another domain", edit(t, g, func(env map[string]any) { obj(env, "domain")["name"] = SessionDomainName }), CodeDomainMismatch, "permit.domain.name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Verify(tc.raw, grantExpect(true))
			var pe *Error
			if !errors.As(err, &pe) || pe.Code != tc.code || pe.Path != tc.path {
				t.Fatalf("got %v, want %s at %s", err, tc.code, tc.path)
			}
		})
	}
}

// EntriesHash is keccak256 of the ABI encoding of the entries (in order)
// and the references; the vector is checked against ethers' AbiCoder in
// TestEthersCrossCheck and shown in docs/rpc.md.
func TestEntriesHash(t *testing.T) {
	es := []GrantEntry{{Grantee: common.HexToAddress("0x70997970C51812dc3A010C7d01b50e0d17dc79C8"), Rights: 1, ExpireAt: 1767225600}}
	got := EntriesHash(es, GrantRefs{SessionID: 9})
	// abi.encode by hand: head (3 static words and the entries' offset),
	// the array (length, offset of the tuple), the tuple (grantee, rights,
	// expireAt, offset of encDEK, isOwner) and encDEK's length (0).
	word := func(hex string) string { return strings.Repeat("0", 64-len(hex)) + hex }
	enc := word("80") + word("") + word("9") + word("") + // entries offset, refAddr, sessionId, txHash
		word("1") + word("20") + // one entry, its tuple at 0x20
		word("70997970c51812dc3a010c7d01b50e0d17dc79c8") + word("1") + word("6955b900") + word("a0") + word("") +
		word("") // encDEK ""
	want := crypto.Keccak256Hash(common.FromHex(enc))
	if got != want {
		t.Fatalf("EntriesHash %s, want %s (the ABI encoding by hand)", got, want)
	}
	if EntriesHash(nil, GrantRefs{}) == EntriesHash([]GrantEntry{{}}, GrantRefs{}) {
		t.Fatal("no entry and one zero entry hash alike")
	}
	for _, scope := range []uint8{0, 3} {
		m := grantMsg()
		m.Scope = scope
		if _, err := SignGrant(keyA, chainID, m); CodeOf(err) != CodeOutOfRange {
			t.Errorf("signed scope %d: %v", scope, err)
		}
	}
}
