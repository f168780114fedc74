package authority_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/authority"
	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/envelope"
	"github.com/xgr-sidecar/xgr/grant"
	"github.com/xgr-sidecar/xgr/testenv"
)

// CheckRegistry reports the runner's standing on a registry's
// orchestrations, the orchestrations it cannot parse, and whether xgr can
// open each encrypted rule: with its read key, with only an account's
// grant, or not at all.
func TestCheckRegistry(t *testing.T) {
	sim := testenv.StartSim(t)
	ctx := context.Background()
	key, err := envelope.GenerateReadKey()
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := testenv.DeployXRC137(t, sim, `{"payload": {}}`)
	secret, _ := testenv.DeployXRC137(t, sim, `{"payload": {}}`)
	sealed, err := envelope.SealRule([]byte(`{"payload": {}}`), key.Public())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := secret.SetEncrypted(ctx, testenv.Sender(t, sim, 0), []byte(sealed.Sealed.String()), chain.Encryption{
		RID: common.Hash(sealed.Sealed.RID), Suite: envelope.Suite, EncDEK: sealed.Wrapped.Bytes()}); err != nil {
		t.Fatal(err)
	}
	flow := `{"id": "flow", "structure": {"A1": {"rule": "` + plain.Address.Hex() + `", "onValid": {"spawns": ["B1"]}}, "B1": {"rule": "` + secret.Address.Hex() + `"}}}`
	reg, _ := testenv.DeployXRC729(t, sim, chain.RegistryInit{IDs: []string{"flow", "broken"}, JSONs: [][]byte{[]byte(flow), []byte(`{"id": "broken"`)}})

	check := func(runner common.Address, k *envelope.ReadKey, account string, grants func() (*grant.Store, error)) authority.RegistryReport {
		t.Helper()
		rep, err := authority.CheckRegistry(ctx, authority.RegistryCheck{Registry: reg, Runner: runner, Backend: sim.Backend(),
			ReadKey: k, Account: account, Grants: grants, Now: time.Now})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	noStore := func() (*grant.Store, error) {
		t.Fatal("the grant store was opened without an account")
		return nil, nil
	}
	owner := testenv.Sender(t, sim, 0).From()

	rep := check(owner, key, "", noStore)
	if rep.Missing != 0 || len(rep.Rules) != 2 || len(rep.Problems) != 1 || rep.Problems[0].OstcID != "broken" ||
		len(rep.Encrypted) != 1 || !rep.Encrypted[0].Decrypts || rep.Encrypted[0].RID != sealed.Sealed.RID.String() || rep.OK {
		t.Fatalf("owner with xgr's read key: %+v", rep)
	}
	if f := rep.Failure(); f != "1 orchestration(s) could not be checked" {
		t.Errorf("failure %q", f)
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"KIND", "not checked: broken: ", "encrypted rule " + secret.Address.Hex() + " (rid " + sealed.Sealed.RID.String() + "): xgr decrypts it: opens with xgr's read key",
		"2 rule contract(s): 0 has executor, 2 owner (implicit), 0 missing; registry: owner (implicit)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}

	rep = check(testenv.Sender(t, sim, 1).From(), nil, "", noStore)
	if rep.Missing != 3 || rep.Undecryptable != 1 || rep.Encrypted[0].Checked != "none" {
		t.Fatalf("stranger without a key: %+v", rep)
	}
	if f := rep.Failure(); !strings.Contains(f, "is missing on 3 of 3 contracts, and xgr cannot decrypt 1 encrypted rule(s)") {
		t.Errorf("failure %q", f)
	}

	// Only an account: its grant is looked up, the store opened once.
	const account = "0x00000000000000000000000000000000000000a1"
	store := grant.New(testenv.StartRedis(t).Client())
	opened := 0
	grants := func() (*grant.Store, error) { opened++; return store, nil }
	rep = check(owner, nil, account, grants)
	if rep.Undecryptable != 1 || !strings.Contains(rep.Encrypted[0].Reason, "holds no live READ grant") || opened != 1 {
		t.Fatalf("account without a grant: %+v (store opened %d times)", rep, opened)
	}
	g := grant.Grant{RID: grant.RID(sealed.Sealed.RID), Scope: grant.ScopeRule, Grantee: account, Rights: grant.Read, ExpireAt: time.Now().Add(time.Hour), EncDEK: sealed.Wrapped.String()}
	if err := store.Put(ctx, g.RID, g.Scope, []grant.Grant{g}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if rep = check(owner, nil, account, grants); rep.Undecryptable != 0 || !rep.Encrypted[0].Decrypts || rep.Encrypted[0].Checked != "grant only (no read key given: not opened)" {
		t.Fatalf("account with a grant: %+v", rep)
	}

	// A grant store that does not answer fails the check.
	down := errors.New("connection refused")
	if _, err := authority.CheckRegistry(ctx, authority.RegistryCheck{Registry: reg, Runner: owner, Backend: sim.Backend(), Account: account,
		Grants: func() (*grant.Store, error) { return nil, down }, Now: time.Now}); !errors.Is(err, down) {
		t.Fatalf("grant store down: %v", err)
	}
	// A grant store that gives no answer on the account's grant.
	deaf := grant.New(redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1}))
	if _, err := authority.CheckRegistry(ctx, authority.RegistryCheck{Registry: reg, Runner: owner, Backend: sim.Backend(), Account: account,
		Grants: func() (*grant.Store, error) { return deaf, nil }, Now: time.Now}); !errors.Is(err, authority.ErrGrantStore) {
		t.Fatalf("grant lookup without an answer: %v", err)
	}
	// One orchestration only.
	rep, err = authority.CheckRegistry(ctx, authority.RegistryCheck{Registry: reg, IDs: []string{"flow"}, Runner: owner, Backend: sim.Backend(), ReadKey: key, Grants: noStore, Now: time.Now})
	if err != nil || !rep.OK || rep.Failure() != "" || len(rep.Orchestrations) != 1 {
		t.Fatalf("flow only: %+v, %v", rep, err)
	}
}
