package rpc_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/envelope"
	"github.com/xgr-sidecar/xgr/grant"
	"github.com/xgr-sidecar/xgr/rpc"
	"github.com/xgr-sidecar/xgr/rulesource"
	"github.com/xgr-sidecar/xgr/testenv"
)

// Issue 38 High 2, the stranger attack on anvil and Redis. The victim
// (key 0) seals its rule for xgr's read key (xgr rule encrypt --to) and
// commits it with its header (xgr rule update --rid): the RID is public on
// chain, and the victim writes no grant. A stranger (key 2) that writes
// itself owner of the RID plus a junk READ grant for xgr's read-key
// account is refused (-32002 not-manager; without naming the contract,
// rule-contract-required). Grants a stranger wrote before the fix give it
// nothing: the victim's next session still opens the rule (the contract's
// header is tried when xgr's grant does not open), and the victim, the
// contract's owner, manages its RID: it revokes the stranger's grants and
// writes its own.
func TestRuleRIDFollowsTheContractOwner(t *testing.T) {
	a := testenv.StartAnvil(t)
	rdb := testenv.StartRedis(t).Client()
	ctx := context.Background()
	g := newEvidenceGatewayCfg(t, rdb, nil, slog.New(slog.NewTextHandler(io.Discard, nil)), func(c *rpc.Config) {
		c.ChainID = a.ChainID()
		c.RuleOwners = chain.RuleContracts{Backend: a.Backend()}
	})
	victimKey, strangerKey := a.Key(0), a.Key(2)
	victim, stranger := lower(a.Address(0)), lower(a.Address(2))
	xgrAccount := lower(a.Address(5))

	// The victim's sealed rule, for xgr's read key, header on chain.
	const text = `{"payload": {}, "rules": [], "onValid": {"payload": {"secret": "42"}}}`
	xgrKey, _ := envelope.GenerateReadKey()
	sealed, err := envelope.SealRule([]byte(text), xgrKey.Public())
	if err != nil {
		t.Fatal(err)
	}
	r, _ := testenv.DeployXRC137(t, a, `{"payload": {}}`)
	if _, err := r.SetEncrypted(ctx, testenv.Sender(t, a, 0), []byte(sealed.Sealed.String()), chain.Encryption{
		RID: common.Hash(sealed.Sealed.RID), Suite: envelope.Suite, EncDEK: sealed.Wrapped.Bytes()}); err != nil {
		t.Fatal(err)
	}
	rid := grant.RID(sealed.Sealed.RID)
	// A wrapped key of the right form that does not open for xgr's key.
	strangerRead, _ := envelope.GenerateReadKey()
	junkSeal, _ := envelope.SealRule([]byte(text), strangerRead.Public())
	junk := junkSeal.Wrapped.String()
	exp := uint64(time.Now().Add(3649 * 24 * time.Hour).Unix())

	take := rpc.ManageGrantsRequest{RID: rid.String(), Scope: json.RawMessage(`1`), Owner: stranger, RefAddr: r.Address.Hex(),
		Entries: []rpc.GrantEntry{{Grantee: stranger, Rights: grant.All, ExpireAt: exp, IsOwner: true, EncDEK: junk},
			{Grantee: xgrAccount, Rights: grant.Read, ExpireAt: exp, EncDEK: junk}}}
	_, err = g.client.ManageGrants(ctx, strangerKey, take)
	refused(t, err, rpc.CodeUnauthorized, "not-manager")
	take.RefAddr = ""
	_, err = g.client.ManageGrants(ctx, strangerKey, take)
	refused(t, err, rpc.CodeUnauthorized, "rule-contract-required")
	if n, _ := rdb.Keys(ctx, "xgr:{gr:*").Result(); len(n) != 0 {
		t.Fatalf("refused grant changes wrote %v", n)
	}

	// Grants a stranger took under the old first-writer rule.
	now := time.Now()
	if err := g.grants.Put(ctx, rid, grant.ScopeRule, []grant.Grant{
		{RID: rid, Scope: grant.ScopeRule, Grantee: stranger, Rights: grant.All, ExpireAt: now.Add(time.Hour), IsOwner: true, Owner: stranger, GrantedBy: stranger},
		{RID: rid, Scope: grant.ScopeRule, Grantee: xgrAccount, Rights: grant.Read, ExpireAt: now.Add(time.Hour), EncDEK: junk, Owner: stranger, GrantedBy: stranger},
	}, now); err != nil {
		t.Fatal(err)
	}

	// The victim's session opens its rule: xgr's grant does not open, the
	// contract's header does.
	c := rulesource.NewChain(a.Backend())
	c.Opener = &rulesource.KeyOpener{Key: xgrKey, Header: rulesource.HeaderGrant(a.Backend()),
		Grant: func(ctx context.Context, _ common.Address, rid envelope.RID) (string, bool, error) {
			gr, err := g.grants.Get(ctx, grant.RID(rid), grant.ScopeRule, xgrAccount)
			if err != nil || !grant.MayRead(gr, xgrAccount, grant.RID(rid), grant.ScopeRule, time.Now()) {
				return "", false, err
			}
			return gr.EncDEK, true, nil
		}}
	l, err := c.Load(ctx, r.Address.Hex())
	if err != nil || l.Doc.Hash != crypto.Keccak256Hash([]byte(text)) {
		t.Fatalf("the victim's rule with a stranger's junk grant for xgr: %v", err)
	}

	// The stranger's owner grant gives it nothing; the victim manages its
	// RID: it revokes the stranger's grants and writes its own.
	_, err = g.client.ManageGrants(ctx, strangerKey, rpc.ManageGrantsRequest{RID: rid.String(), Scope: json.RawMessage(`1`), Owner: stranger, RefAddr: r.Address.Hex(),
		Entries: []rpc.GrantEntry{{Grantee: lower(a.Address(3)), Rights: grant.Read, ExpireAt: exp, EncDEK: junk}}})
	refused(t, err, rpc.CodeUnauthorized, "not-manager")
	res, err := g.client.ManageGrants(ctx, victimKey, rpc.ManageGrantsRequest{RID: rid.String(), Scope: json.RawMessage(`1`), Owner: victim, RefAddr: r.Address.Hex(),
		Entries: []rpc.GrantEntry{{Grantee: victim, Rights: grant.All, ExpireAt: exp, IsOwner: true, EncDEK: sealed.Wrapped.String()},
			{Grantee: xgrAccount, Rights: 0}, {Grantee: stranger, Rights: 0}}})
	if err != nil || res.Upserted != 1 || res.Revoked != 2 {
		t.Fatalf("the contract's owner manages its RID: %+v %v", res, err)
	}
	if gr, _ := g.grants.Get(ctx, rid, grant.ScopeRule, stranger); gr != nil {
		t.Fatalf("the stranger's grant survived: %+v", gr)
	}
	if gr, _ := g.grants.Get(ctx, rid, grant.ScopeRule, victim); gr == nil || !gr.IsOwner || gr.Owner != victim || gr.RefAddr != lower(r.Address) {
		t.Fatalf("the victim's owner grant: %+v", gr)
	}
}
