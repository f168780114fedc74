package rpc_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/envelope"
	"github.com/xgr-sidecar/xgr/grant"
	"github.com/xgr-sidecar/xgr/rpc"
	"github.com/xgr-sidecar/xgr/testenv"
)

// readKeyMap is a key registry over fixed keys.
type readKeyMap map[common.Address][]byte

func (m readKeyMap) ReadKey(_ context.Context, a common.Address) ([]byte, error) { return m[a], nil }

const ruleDoc = `{"payload": {"passport": {"type": "string"}}, "rules": ["[passport] != ''"], "onValid": {"payload": {"ok": true}}}`

// xgr_encryptXRC137 seals a rule document for the owner's read key (given,
// or registered) and stores the owner grant on the envelope's RID: the
// owner's key opens the blob with the returned wrapped key, another key
// does not, and the grant is the owner's (rights 7, isOwner, the rule
// contract as refAddr).
func TestEncryptXRC137(t *testing.T) {
	rdb := testenv.StartRedis(t).Client()
	ownerRead, _ := envelope.GenerateReadKey()
	other, _ := envelope.GenerateReadKey()
	g := newEvidenceGatewayCfg(t, rdb, nil, nil, func(c *rpc.Config) {
		c.ReadKeys = readKeyMap{}
	})
	own := lower(addr(g.keys[0]))
	g2 := newEvidenceGatewayCfg(t, rdb, nil, nil, func(c *rpc.Config) {
		c.ReadKeys = readKeyMap{addr(g.keys[0]): ownerRead.Public().Bytes()}
	})
	ctx := context.Background()
	contract := "0x00000000000000000000000000000000000137e1"
	exp := time.Now().Add(48 * time.Hour).Unix()
	for name, tc := range map[string]struct {
		gw  *evGateway
		req rpc.EncryptXRC137Request
	}{
		"readKey given":      {g, rpc.EncryptXRC137Request{Address: contract, Owner: own, JSON: ruleDoc, GrantExpireAt: uint64(exp), ReadKey: envelope.PublicHex(ownerRead.Public())}},
		"the registered key": {g2, rpc.EncryptXRC137Request{Address: contract, Owner: own, JSON: ruleDoc}},
	} {
		t.Run(name, func(t *testing.T) {
			res, err := tc.gw.client.EncryptXRC137(ctx, g.keys[0], tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if res.Suite != envelope.Suite || res.Scope != 1 || res.EncDEK != res.OwnerEncDEK || !strings.HasPrefix(res.EncDEKHex, "0x") ||
				res.ReadKey != envelope.PublicHex(ownerRead.Public()) || !strings.Contains(res.Blob, strings.TrimPrefix(res.RID, "0x")) {
				t.Fatalf("result %+v", res)
			}
			plain, err := envelope.Open(res.Blob, res.OwnerEncDEK, ownerRead, envelope.ScopeRule, envelope.MaxRuleBytes)
			if err != nil || string(plain) != ruleDoc {
				t.Fatalf("the owner opens: %v %q", err, plain)
			}
			if _, err := envelope.Open(res.Blob, res.OwnerEncDEK, other, envelope.ScopeRule, envelope.MaxRuleBytes); err == nil {
				t.Fatal("another key opened the owner's wrapped key")
			}
			if _, err := envelope.Open(res.Blob, res.OwnerEncDEK, ownerRead, envelope.ScopeLog, envelope.MaxRuleBytes); err == nil {
				t.Fatal("the wrapped key opened in the log scope")
			}
			rid, _ := grant.ParseRID(res.RID)
			gr, err := g.grants.Get(ctx, rid, grant.ScopeRule, own)
			if err != nil || gr == nil || !gr.IsOwner || gr.Rights != grant.All || gr.EncDEK != res.OwnerEncDEK || gr.RefAddr != contract ||
				gr.ExpireAt.Unix() != res.GrantExpireAt {
				t.Fatalf("owner grant %+v %v", gr, err)
			}
			if tc.req.GrantExpireAt != 0 && res.GrantExpireAt != exp {
				t.Fatalf("grant expiry %d, want %d", res.GrantExpireAt, exp)
			}
			if tc.req.GrantExpireAt == 0 && time.Until(time.Unix(res.GrantExpireAt, 0)) < 364*24*time.Hour {
				t.Fatalf("default grant expiry %s", time.Unix(res.GrantExpireAt, 0))
			}
			// The owner lists it, and may grant onward with xgr_manageGrants.
			l, err := g.client.ListGrants(ctx, g.keys[0], map[string]any{"scope": 1, "rid": res.RID})
			if err != nil || len(l.Items) != 1 || !l.Items[0].IsOwner {
				t.Fatalf("list: %+v %v", l, err)
			}
		})
	}
}

// xgr_encryptXRC137 refuses, naming the member and writing nothing: a
// permit of another signer or a broken one, a document over the XRC-137
// limit or not a JSON object or sealed already, a malformed read key, an
// owner without a registered key, an expiry in the past or too far.
func TestEncryptXRC137Refusals(t *testing.T) {
	rdb := testenv.StartRedis(t).Client()
	k, _ := envelope.GenerateReadKey()
	pub := envelope.PublicHex(k.Public())
	g := newEvidenceGatewayCfg(t, rdb, nil, nil, func(c *rpc.Config) { c.ReadKeys = readKeyMap{} })
	noRegistry := newEvidenceGateway(t, rdb)
	ctx := context.Background()
	own := lower(addr(g.keys[0]))
	sealed, _ := envelope.SealRule([]byte(ruleDoc), k.Public())
	big := `{"pad": "` + strings.Repeat("x", envelope.MaxRuleBytes) + `"}`
	good, err := g.client.XdalaPermit(ctx, g.keys[0])
	if err != nil {
		t.Fatal(err)
	}
	broken := bytes.Replace(good, []byte(`"signature":"0x`), []byte(`"signature":"0x00`), 1)
	req := func(edit func(*rpc.EncryptXRC137Request)) rpc.EncryptXRC137Request {
		r := rpc.EncryptXRC137Request{Owner: own, JSON: ruleDoc, ReadKey: pub, Permit: good}
		edit(&r)
		return r
	}
	for name, tc := range map[string]struct {
		gw           *evGateway
		req          rpc.EncryptXRC137Request
		code         int
		reason, path string
	}{
		"another signer":      {g, req(func(r *rpc.EncryptXRC137Request) { r.Owner = lower(addr(g.keys[1])) }), rpc.CodeUnauthorized, "owner-mismatch", "owner"},
		"broken permit":       {g, req(func(r *rpc.EncryptXRC137Request) { r.Permit = broken }), rpc.CodePermit, "bad-signature", ""},
		"no permit":           {g, req(func(r *rpc.EncryptXRC137Request) { r.Permit = nil }), rpc.CodeInvalidParams, "invalid-params", "permit"},
		"oversize document":   {g, req(func(r *rpc.EncryptXRC137Request) { r.JSON = big }), rpc.CodeInvalidParams, "invalid-params", "json"},
		"not an object":       {g, req(func(r *rpc.EncryptXRC137Request) { r.JSON = `["rules"]` }), rpc.CodeInvalidParams, "invalid-params", "json"},
		"broken JSON":         {g, req(func(r *rpc.EncryptXRC137Request) { r.JSON = `{"rules": [` }), rpc.CodeInvalidParams, "invalid-params", "json"},
		"sealed already":      {g, req(func(r *rpc.EncryptXRC137Request) { r.JSON = sealed.Sealed.String() }), rpc.CodeInvalidParams, "invalid-params", "json"},
		"malformed key":       {g, req(func(r *rpc.EncryptXRC137Request) { r.ReadKey = "0x04abcd" }), rpc.CodeInvalidParams, "invalid-params", "readKey"},
		"key not on P-256":    {g, req(func(r *rpc.EncryptXRC137Request) { r.ReadKey = "0x04" + strings.Repeat("11", 64) }), rpc.CodeInvalidParams, "invalid-params", "readKey"},
		"compressed key":      {g, req(func(r *rpc.EncryptXRC137Request) { r.ReadKey = "0x02" + strings.Repeat("11", 32) }), rpc.CodeInvalidParams, "invalid-params", "readKey"},
		"no registered key":   {g, req(func(r *rpc.EncryptXRC137Request) { r.ReadKey = "" }), rpc.CodeNotFound, "no-read-key", "readKey"},
		"no key, no registry": {noRegistry, req(func(r *rpc.EncryptXRC137Request) { r.ReadKey = "" }), rpc.CodeInvalidParams, "invalid-params", "readKey"},
		"past expiry":         {g, req(func(r *rpc.EncryptXRC137Request) { r.GrantExpireAt = 1000 }), rpc.CodeInvalidParams, "invalid-params", "grantExpireAt"},
		"expiry too far": {g, req(func(r *rpc.EncryptXRC137Request) {
			r.GrantExpireAt = uint64(time.Now().Add(11 * 365 * 24 * time.Hour).Unix())
		}), rpc.CodeInvalidParams, "invalid-params", "grantExpireAt"},
		"bad address": {g, req(func(r *rpc.EncryptXRC137Request) { r.Address = "0x1234" }), rpc.CodeInvalidParams, "invalid-params", "address"},
		"bad owner":   {g, req(func(r *rpc.EncryptXRC137Request) { r.Owner = "alice" }), rpc.CodeInvalidParams, "invalid-params", "owner"},
	} {
		t.Run(name, func(t *testing.T) {
			before := countKeys(t, rdb)
			var out rpc.EncryptXRC137Result
			err := tc.gw.client.Raw(ctx, &out, "xgr_encryptXRC137", tc.req)
			refused(t, err, tc.code, tc.reason)
			if tc.path != "" && !strings.Contains(err.Error(), tc.path) {
				t.Fatalf("the refusal does not name %s: %v", tc.path, err)
			}
			if strings.Contains(err.Error(), "passport") || strings.Contains(err.Error(), "xxxxxxxx") {
				t.Fatalf("the refusal quotes the document: %v", err)
			}
			if after := countKeys(t, rdb); after != before {
				t.Fatalf("a refused call changed Redis: %d keys, before %d", after, before)
			}
		})
	}
	// A request over the gateway's body limit is refused whole.
	var out rpc.EncryptXRC137Result
	huge := req(func(r *rpc.EncryptXRC137Request) { r.JSON = `{"pad": "` + strings.Repeat("x", 1<<20) + `"}` })
	if err := g.client.Raw(ctx, &out, "xgr_encryptXRC137", huge); err == nil {
		t.Fatal("a 1 MiB request was served")
	}
}
