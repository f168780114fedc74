package engine

import (
	"crypto/ecdsa"
	"strings"
	"testing"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/devnet"
)

// Actors without a given key take the development accounts in order of
// first use, skipping the ones given; the executor takes the last account
// no actor uses, and fails when every one is taken.
func TestActorAndExecutorKeys(t *testing.T) {
	dev, err := devnet.DevKeys(devnet.DevAccounts)
	if err != nil {
		t.Fatal(err)
	}
	keys, src, err := ActorKeys([]string{"owner", "owner1"}, map[string]*ecdsa.PrivateKey{"owner1": dev[0], "spare": dev[9]})
	if err != nil {
		t.Fatal(err)
	}
	same := func(a, b *ecdsa.PrivateKey) bool { return a != nil && chain.Address(a) == chain.Address(b) }
	if !same(keys["owner"], dev[1]) || !same(keys["owner1"], dev[0]) || src["owner"] != "development account 1" || src["owner1"] != Given || src["spare"] != Given+" (unused by the file)" {
		t.Errorf("keys %v, sources %v", keys, src)
	}
	key, from, err := ExecutorKey(keys)
	if err != nil || !same(key, dev[8]) || from != "development account 8" {
		t.Errorf("executor %v (%s), %v; want development account 8 (9 is an actor's)", key, from, err)
	}
	x := Executions(key)
	if !x.Policy.Enabled || !x.Policy.Policy.AnyTarget || x.Key != key || x.Finality.Mode != "confirmations" || x.Finality.Confirmations != 1 {
		t.Errorf("executions %+v", x)
	}
	all := map[string]*ecdsa.PrivateKey{}
	for _, k := range dev {
		all[chain.Address(k).Hex()] = k
	}
	if _, _, err := ExecutorKey(all); err == nil || !strings.Contains(err.Error(), "every development account is an actor's") {
		t.Errorf("no account left: %v", err)
	}
	aliases := make([]string, devnet.DevAccounts+1)
	for i := range aliases {
		aliases[i] = string(rune('a' + i))
	}
	if _, _, err := ActorKeys(aliases, nil); err == nil || !strings.Contains(err.Error(), "only 10 development keys exist") {
		t.Errorf("more actors than keys: %v", err)
	}
}
