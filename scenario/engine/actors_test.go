package engine

import (
	"crypto/ecdsa"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/devnet"
)

// Aliases get the development keys in order of first use; --actor and
// --actors-file override, and the development key an override takes is
// skipped for the others.
func TestActorKeys(t *testing.T) {
	dev, _ := devnet.DevKeys(4)
	file := filepath.Join(t.TempDir(), "actors.txt")
	if err := os.WriteFile(file, []byte("# test actors\n\nowner1="+padKey(dev[0])+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	given, err := GivenKeys(file, []string{"auditor=" + padKey(dev[3])})
	if err != nil {
		t.Fatal(err)
	}
	keys, src, err := ActorKeys([]string{"owner", "owner1", "owner2", "auditor"}, given)
	if err != nil {
		t.Fatal(err)
	}
	addr := func(a string) string { return chain.Address(keys[a]).Hex() }
	want := map[string]*ecdsa.PrivateKey{"owner1": dev[0], "auditor": dev[3], "owner": dev[1], "owner2": dev[2]}
	for a, k := range want {
		if addr(a) != chain.Address(k).Hex() {
			t.Errorf("%s = %s (%s), want %s", a, addr(a), src[a], chain.Address(k).Hex())
		}
	}
	if src["owner"] != "development account 1" || src["owner1"] != "--actor" {
		t.Errorf("sources: %v", src)
	}
}

func padKey(k *ecdsa.PrivateKey) string { return "0x" + hex.EncodeToString(crypto.FromECDSA(k)) }

// A malformed line names its file and line and never shows the key.
func TestGivenKeysRefusesAndRedacts(t *testing.T) {
	file := filepath.Join(t.TempDir(), "actors.txt")
	secret := "0x" + strings.Repeat("ab", 32)
	if err := os.WriteFile(file, []byte("owner="+secret[:10]+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := GivenKeys(file, nil)
	if err == nil || !strings.Contains(err.Error(), file+":1: actor \"owner\"") || strings.Contains(err.Error(), secret[:10]) {
		t.Fatalf("short key: %v", err)
	}
	_, err = GivenKeys("", []string{secret})
	if err == nil || !strings.Contains(err.Error(), "--actor") || strings.Contains(err.Error(), secret) {
		t.Fatalf("no alias: %v", err)
	}
}
