package rulesource_test

import (
	"context"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/envelope"
	"github.com/xgr-sidecar/xgr/grant"
	"github.com/xgr-sidecar/xgr/rulesource"
	"github.com/xgr-sidecar/xgr/testenv"
)

// StoreGrant finds the wrapped key of a live READ grant of the account,
// and nothing for another account, an expired grant, a grant without
// READ or no account at all; NewKeyOpener opens a rule with it.
func TestStoreGrantOpensRules(t *testing.T) {
	ctx := context.Background()
	store := grant.New(testenv.StartRedis(t).Client())
	key, err := envelope.GenerateReadKey()
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := envelope.SealRule([]byte(`{"payload": {}}`), key.Public())
	if err != nil {
		t.Fatal(err)
	}
	rid := sealed.Sealed.RID
	now := time.Now()
	const reader, writer = "0x00000000000000000000000000000000000000a1", "0x00000000000000000000000000000000000000a2"
	put := func(who string, rights uint8, expire time.Time) {
		t.Helper()
		g := grant.Grant{RID: grant.RID(rid), Scope: grant.ScopeRule, Grantee: who, Rights: rights, ExpireAt: expire, EncDEK: sealed.Wrapped.String()}
		if err := store.Put(ctx, grant.RID(rid), grant.ScopeRule, []grant.Grant{g}, now); err != nil {
			t.Fatal(err)
		}
	}
	put(reader, grant.Read, now.Add(time.Hour))
	put(writer, grant.RightWrite, now.Add(time.Hour))
	clock := func() time.Time { return now }
	for _, tc := range []struct {
		account string
		now     func() time.Time
		ok      bool
	}{
		{reader, clock, true},
		{writer, clock, false},
		{"0x00000000000000000000000000000000000000a3", clock, false},
		{reader, func() time.Time { return now.Add(2 * time.Hour) }, false},
		{"", clock, false},
	} {
		wrapped, ok, err := rulesource.StoreGrant(store, tc.account, tc.now)(ctx, common.Address{}, rid)
		if err != nil || ok != tc.ok || ok && wrapped != sealed.Wrapped.String() {
			t.Errorf("StoreGrant(%q) = %q, %v, %v; want ok %v", tc.account, wrapped, ok, err, tc.ok)
		}
	}
	// Without an account the store is not read.
	if _, ok, err := rulesource.StoreGrant(nil, "", clock)(ctx, common.Address{}, rid); ok || err != nil {
		t.Errorf("no account: %v, %v", ok, err)
	}
	plain, err := rulesource.NewKeyOpener(key, store, reader, nil, clock).OpenRule(ctx, common.Address{}, sealed.Sealed.String())
	if err != nil || string(plain) != `{"payload": {}}` {
		t.Fatalf("OpenRule = %q, %v", plain, err)
	}
	if _, err := rulesource.NewKeyOpener(key, store, writer, nil, clock).OpenRule(ctx, common.Address{}, sealed.Sealed.String()); err == nil {
		t.Fatal("a grant without READ opened the rule")
	}
}
