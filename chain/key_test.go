package chain

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/google/uuid"
)

// A throwaway key (the second development account of the public test
// mnemonic); never used for anything real.
const testKeyHex = "59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"

func TestKeyFromHex(t *testing.T) {
	want := common.HexToAddress("0x70997970C51812dc3A010C7d01b50e0d17dc79C8")
	for _, in := range []string{testKeyHex, "0x" + testKeyHex, "  0x" + testKeyHex + "\n"} {
		k, err := KeyFromHex(in)
		if err != nil {
			t.Fatalf("KeyFromHex(%q): %v", in, err)
		}
		if Address(k) != want {
			t.Fatalf("KeyFromHex(%q) = %s, want %s", in, Address(k).Hex(), want.Hex())
		}
	}
	for _, bad := range []string{"", "0x1234", testKeyHex + "00", strings.Repeat("zz", 32), strings.Repeat("00", 32)} {
		_, err := KeyFromHex(bad)
		if err == nil {
			t.Fatalf("KeyFromHex(%q) accepted", bad)
		}
		if len(bad) > 8 && strings.Contains(err.Error(), bad[2:10]) {
			t.Fatalf("error %q repeats key material", err)
		}
		if !strings.Contains(err.Error(), PrivateKeyEnv) {
			t.Fatalf("error %q does not name %s", err, PrivateKeyEnv)
		}
	}
}

func writeKeystore(t *testing.T, password string) (file string, addr common.Address) {
	t.Helper()
	k, err := crypto.HexToECDSA(testKeyHex)
	if err != nil {
		t.Fatal(err)
	}
	id, err := uuid.NewRandom()
	if err != nil {
		t.Fatal(err)
	}
	key := &keystore.Key{Id: id, Address: Address(k), PrivateKey: k}
	blob, err := keystore.EncryptKey(key, password, keystore.LightScryptN, keystore.LightScryptP)
	if err != nil {
		t.Fatal(err)
	}
	file = filepath.Join(t.TempDir(), "key.json")
	if err := os.WriteFile(file, blob, 0o600); err != nil {
		t.Fatal(err)
	}
	return file, key.Address
}

func TestLoadKeyFromKeystore(t *testing.T) {
	file, addr := writeKeystore(t, "correct horse")
	dir := t.TempDir()
	pw := filepath.Join(dir, "pw")
	if err := os.WriteFile(pw, []byte("correct horse\r\nsecond line ignored\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	k, err := LoadKey(KeySource{Keystore: file, PasswordFile: pw})
	if err != nil {
		t.Fatal(err)
	}
	if Address(k) != addr {
		t.Fatalf("keystore key %s, want %s", Address(k).Hex(), addr.Hex())
	}

	wrong := filepath.Join(dir, "wrong")
	if err := os.WriteFile(wrong, []byte("battery staple\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadKey(KeySource{Keystore: file, PasswordFile: wrong}); err == nil || !strings.Contains(err.Error(), "password") {
		t.Fatalf("wrong password: %v", err)
	}
	if _, err := LoadKey(KeySource{Keystore: file}); err == nil || !strings.Contains(err.Error(), "--password-file") {
		t.Fatalf("keystore without password file: %v", err)
	}
}

func TestLoadKeyChoosesExactlyOneSource(t *testing.T) {
	if _, err := LoadKey(KeySource{}); !errors.Is(err, ErrNoKey) {
		t.Fatalf("no source: %v, want ErrNoKey", err)
	}
	if _, err := LoadKey(KeySource{Hex: testKeyHex, Keystore: "k.json", PasswordFile: "pw"}); err == nil || !strings.Contains(err.Error(), "use one") {
		t.Fatalf("two sources: %v", err)
	}
	if _, err := LoadKey(KeySource{PasswordFile: "pw"}); err == nil || !strings.Contains(err.Error(), "--keystore") {
		t.Fatalf("password file alone: %v", err)
	}
	k, err := LoadKey(KeySource{Hex: "0x" + testKeyHex})
	if err != nil || Address(k) != common.HexToAddress("0x70997970C51812dc3A010C7d01b50e0d17dc79C8") {
		t.Fatalf("hex source: %v", err)
	}
}
