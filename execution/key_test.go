package execution

import (
	"crypto/ecdsa"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/google/uuid"
)

const testKeyHex = "59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// writeKeystore writes key as a v3 keystore file encrypted with password
// (light scrypt parameters, as tests need no strength).
func writeKeystore(t *testing.T, dir string, key *ecdsa.PrivateKey, password string) string {
	t.Helper()
	blob, err := keystore.EncryptKey(&keystore.Key{Id: uuid.New(), Address: crypto.PubkeyToAddress(key.PublicKey), PrivateKey: key},
		password, keystore.LightScryptN, keystore.LightScryptP)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "executor.json")
	if err := os.WriteFile(path, blob, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadKey(t *testing.T) {
	want, _ := crypto.HexToECDSA(testKeyHex)
	dir := t.TempDir()
	password := "correct horse battery"
	ks := writeKeystore(t, dir, want, password)
	pwFile := filepath.Join(dir, "password")
	os.WriteFile(pwFile, []byte(password+"\r\nsecond line ignored\n"), 0o600)
	wrongPw := filepath.Join(dir, "wrong")
	os.WriteFile(wrongPw, []byte("nope\n"), 0o600)
	rawKeyFile := filepath.Join(dir, "raw")
	os.WriteFile(rawKeyFile, []byte(testKeyHex), 0o600)

	for name, env := range map[string]map[string]string{"hex": {KeyEnv: testKeyHex}, "0x hex with spaces": {KeyEnv: " 0x" + testKeyHex + "\n"}} {
		k, err := LoadKey("", "", envOf(env))
		if err != nil || !k.Equal(want) {
			t.Errorf("%s: %v", name, err)
		}
	}
	k, err := LoadKey(ks, pwFile, envOf(nil))
	if err != nil || !k.Equal(want) {
		t.Fatalf("keystore: %v", err)
	}

	secrets := []string{testKeyHex, password, testKeyHex[:16]}
	for name, c := range map[string]struct {
		ks, pw string
		env    map[string]string
		want   string
	}{
		"none":             {"", "", nil, "no executor key"},
		"both":             {ks, pwFile, map[string]string{KeyEnv: testKeyHex}, "two executor keys"},
		"no password file": {ks, "", nil, "needs --password-file"},
		"password alone":   {"", pwFile, nil, "without --executor-keystore"},
		"wrong password":   {ks, wrongPw, nil, "does not decrypt"},
		"raw key as store": {rawKeyFile, pwFile, nil, "not a readable v3 keystore"},
		"missing keystore": {filepath.Join(dir, "absent"), pwFile, nil, "read executor keystore"},
		"short hex":        {"", "", map[string]string{KeyEnv: testKeyHex[:62]}, "64 hex digits"},
		"not hex":          {"", "", map[string]string{KeyEnv: strings.Repeat("z", 64)}, "not a valid secp256k1"},
		"zero key":         {"", "", map[string]string{KeyEnv: strings.Repeat("0", 64)}, "not a valid secp256k1"},
	} {
		_, err := LoadKey(c.ks, c.pw, envOf(c.env))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: want an error containing %q, got %v", name, c.want, err)
			continue
		}
		for _, s := range secrets {
			if strings.Contains(err.Error(), s) {
				t.Errorf("%s: the error shows a secret: %v", name, err)
			}
		}
	}
	if _, err := LoadKey("", "", nil); !errors.Is(err, ErrNoKey) {
		t.Errorf("nil env: %v", err)
	}
}
