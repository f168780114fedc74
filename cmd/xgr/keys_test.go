package main

import (
	"context"
	"crypto/ecdh"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/envelope"
	"github.com/xgr-sidecar/xgr/testenv"
)

type keyJSON struct {
	File        string `json:"file"`
	Account     string `json:"account"`
	PublicKey   string `json:"publicKey"`
	Fingerprint string `json:"fingerprint"`
	TxHash      string `json:"txHash"`
}

func generateKey(t *testing.T, file string) keyJSON {
	t.Helper()
	out, errOut, err := runXGR("keys", "generate", file, "--json")
	if err != nil {
		t.Fatalf("keys generate: %v\n%s", err, errOut)
	}
	var k keyJSON
	if err := json.Unmarshal([]byte(out), &k); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return k
}

func TestKeysGenerateAndShow(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "reader.key")
	k := generateKey(t, file)
	if k.File != file || len(k.PublicKey) != 132 || !strings.HasPrefix(k.PublicKey, "0x04") || len(k.Fingerprint) != 16 {
		t.Fatalf("generate printed %+v", k)
	}
	st, err := os.Stat(file)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v, %v", st.Mode(), err)
	}
	before, _ := os.ReadFile(file)
	// Never overwritten.
	_, _, err = runXGR("keys", "generate", file)
	if exitCode(err) != 1 || !strings.Contains(err.Error(), "never overwritten") {
		t.Fatalf("second generate: %v", err)
	}
	if after, _ := os.ReadFile(file); string(after) != string(before) {
		t.Fatal("the key file changed")
	}
	out, _, err := runXGR("keys", "show", file, "--json")
	var shown keyJSON
	if err != nil || json.Unmarshal([]byte(out), &shown) != nil || shown.PublicKey != k.PublicKey || shown.Fingerprint != k.Fingerprint {
		t.Fatalf("show: %v %s", err, out)
	}
	out, _, err = runXGR("keys", "show", file)
	if err != nil || field(t, out, "publicKey") != k.PublicKey {
		t.Fatalf("show (text): %v %s", err, out)
	}
	// What a file holds never reaches output or errors.
	if strings.Contains(out, "PRIVATE") {
		t.Fatal("show printed the private key")
	}
	bad := filepath.Join(dir, "bad.key")
	os.WriteFile(bad, []byte("not a key"), 0o600)
	if _, _, err := runXGR("keys", "show", bad); exitCode(err) != 2 || !strings.Contains(err.Error(), "read key") {
		t.Fatalf("bad key file: %v", err)
	}
}

type encryptJSON struct {
	RID, Suite, Blob, EncDEK, EncDEKHex, To string
	Scope                                   int
}

// rule encrypt, then rule decrypt with the right key; another key, a
// tampered wrap and a wrong scope are refused with exit 1.
func TestRuleEncryptDecrypt(t *testing.T) {
	dir := t.TempDir()
	keyFile, otherFile := filepath.Join(dir, "reader.key"), filepath.Join(dir, "other.key")
	k := generateKey(t, keyFile)
	generateKey(t, otherFile)
	doc := `{"payload":{"X":{"type":"int64"}},"rules":["[X] > 0"],"onValid":{"payload":{"Y":"[X] * 2"}}}` + "\n"
	ruleFile := filepath.Join(dir, "rule.json")
	os.WriteFile(ruleFile, []byte(doc), 0o644)
	blobFile := filepath.Join(dir, "rule.xgr1")

	out, errOut, err := runXGR("rule", "encrypt", ruleFile, "--to", k.PublicKey, "--out", blobFile, "--json")
	if err != nil {
		t.Fatalf("encrypt: %v\n%s", err, errOut)
	}
	var e encryptJSON
	if err := json.Unmarshal([]byte(out), &e); err != nil {
		t.Fatal(err)
	}
	if e.Suite != "AESGCM256" || e.Scope != 1 || !strings.HasPrefix(e.Blob, "XGR1.AESGCM256."+e.RID+".") || !strings.HasPrefix(e.EncDEK, "XGRK2.P256HKDFGCM.04") ||
		e.EncDEKHex != "0x"+strings.TrimPrefix(e.EncDEK, envelope.WrappedPrefix) || strings.Contains(out, "[X] > 0") {
		t.Fatalf("encrypt printed %s", out)
	}
	// --out writes the envelope exactly, without a line break: the file is
	// the rule text "xgr rule update FILE" stores (issue 38, Low 1).
	if b, _ := os.ReadFile(blobFile); string(b) != e.Blob {
		t.Fatalf("--out wrote %q, want the blob alone", b)
	}
	if _, _, err := runXGR("rule", "encrypt", ruleFile, "--to", k.PublicKey, "--out", blobFile); exitCode(err) != 2 {
		t.Fatalf("--out over an existing file: %v", err)
	}

	out, errOut, err = runXGR("rule", "decrypt", blobFile, "--read-key", keyFile, "--enc-dek", e.EncDEK)
	if err != nil || out != doc {
		t.Fatalf("decrypt: %v %q\n%s", err, out, errOut)
	}
	out, _, err = runXGR("rule", "decrypt", blobFile, "--read-key", keyFile, "--enc-dek", e.EncDEKHex, "--json")
	var d struct {
		RID      string          `json:"rid"`
		Document json.RawMessage `json:"document"`
	}
	if err != nil || json.Unmarshal([]byte(out), &d) != nil || d.RID != e.RID || !strings.Contains(string(d.Document), `"[X] > 0"`) {
		t.Fatalf("decrypt --json: %v %s", err, out)
	}
	// The key from $XGR_READ_KEY.
	pem, _ := os.ReadFile(keyFile)
	t.Setenv(envelope.ReadKeyEnv, string(pem))
	if out, _, err := runXGR("rule", "decrypt", blobFile, "--enc-dek", e.EncDEK); err != nil || out != doc {
		t.Fatalf("decrypt with $XGR_READ_KEY: %v", err)
	}
	t.Setenv(envelope.ReadKeyEnv, "")

	// Refusals.
	_, _, err = runXGR("rule", "decrypt", blobFile, "--read-key", otherFile, "--enc-dek", e.EncDEK)
	if exitCode(err) != 1 || !strings.Contains(err.Error(), "does not open") || strings.Contains(err.Error(), "[X]") {
		t.Fatalf("other key: %v", err)
	}
	tampered := []byte(e.EncDEK)
	i := len(tampered) - 5
	if tampered[i] == '0' {
		tampered[i] = '1'
	} else {
		tampered[i] = '0'
	}
	if _, _, err := runXGR("rule", "decrypt", blobFile, "--read-key", keyFile, "--enc-dek", string(tampered)); exitCode(err) != 1 {
		t.Fatalf("tampered wrap: %v", err)
	}
	if _, _, err := runXGR("rule", "decrypt", blobFile, "--read-key", keyFile, "--enc-dek", "XGRK2.P256HKDFGCM.00"); exitCode(err) != 2 || !strings.Contains(err.Error(), "--enc-dek: XGRK2: payload") {
		t.Fatalf("short wrap: %v", err)
	}
	if _, _, err := runXGR("rule", "decrypt", blobFile, "--enc-dek", e.EncDEK); exitCode(err) != 2 || !strings.Contains(err.Error(), "--read-key FILE is required") {
		t.Fatalf("no key: %v", err)
	}
	if _, _, err := runXGR("rule", "encrypt", ruleFile, "--to", "0x04"); exitCode(err) != 2 || !strings.Contains(err.Error(), "--to: public key") {
		t.Fatalf("bad --to: %v", err)
	}
	if _, _, err := runXGR("rule", "encrypt", blobFile, "--to", k.PublicKey); exitCode(err) != 2 || !strings.Contains(err.Error(), "already an XGR1 envelope") {
		t.Fatalf("encrypt an envelope: %v", err)
	}
}

// keys register, lookup and clear against an XRC-563 registry on anvil;
// an encrypted rule written to an XRC-137 contract with the hints of
// `rule encrypt` opens with the registered key's file.
func TestKeysRegisterOnAnvil(t *testing.T) {
	a := testenv.StartAnvil(t)
	t.Setenv(chain.PrivateKeyEnv, keyHex(a, 0))
	rpc := "--rpc=" + a.URL
	reg, _, err := chain.DeployKeyRegistry(context.Background(), testenv.Sender(t, a, 0))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "reader.key")
	k := generateKey(t, keyFile)

	out, errOut, err := runXGR("keys", "register", keyFile, rpc, "--key-registry", reg.Address.Hex(), "--json")
	var r keyJSON
	if err != nil || json.Unmarshal([]byte(out), &r) != nil || r.PublicKey != k.PublicKey || !strings.EqualFold(r.Account, a.Address(0).Hex()) || r.TxHash == "" {
		t.Fatalf("register: %v %s %s", err, out, errOut)
	}
	out, _, err = runXGR("keys", "lookup", a.Address(0).Hex(), rpc, "--registry-key", reg.Address.Hex())
	if err != nil || field(t, out, "publicKey") != k.PublicKey {
		t.Fatalf("lookup: %v %s", err, out)
	}
	// xgr's own key from $XGR_READ_KEY_FILE, for account 1.
	engineFile := filepath.Join(dir, "engine.key")
	ek := generateKey(t, engineFile)
	t.Setenv(chain.PrivateKeyEnv, keyHex(a, 1))
	t.Setenv(envelope.ReadKeyFileEnv, engineFile)
	if _, errOut, err := runXGR("keys", "register", rpc, "--key-registry", reg.Address.Hex()); err != nil {
		t.Fatalf("register engine key: %v %s", err, errOut)
	}
	t.Setenv(envelope.ReadKeyFileEnv, "")
	if got, _ := reg.ReadKey(context.Background(), a.Address(1)); envelope.PublicHex(mustPub(t, got)) != ek.PublicKey {
		t.Fatalf("engine key on chain: %x", got)
	}
	if _, _, err := runXGR("keys", "clear", rpc, "--key-registry", reg.Address.Hex()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runXGR("keys", "lookup", a.Address(1).Hex(), rpc, "--key-registry", reg.Address.Hex()); exitCode(err) != 1 || !strings.Contains(err.Error(), "has no read key") {
		t.Fatalf("lookup after clear: %v", err)
	}

	// An encrypted rule on an XRC-137 contract, as the docs show it.
	t.Setenv(chain.PrivateKeyEnv, keyHex(a, 0))
	doc := `{"payload":{"X":{"type":"int64"}},"rules":["[X] > 0"]}`
	ruleFile, blobFile := filepath.Join(dir, "rule.json"), filepath.Join(dir, "rule.xgr1")
	os.WriteFile(ruleFile, []byte(doc), 0o644)
	out, _, err = runXGR("rule", "encrypt", ruleFile, "--to", k.PublicKey, "--out", blobFile, "--json")
	var e encryptJSON
	if err != nil || json.Unmarshal([]byte(out), &e) != nil {
		t.Fatalf("encrypt: %v %s", err, out)
	}
	out, errOut, err = runXGR("rule", "deploy", ruleFile, rpc)
	if err != nil {
		t.Fatalf("deploy: %v %s", err, errOut)
	}
	addr := field(t, out, "rule")
	if _, errOut, err := runXGR("rule", "update", blobFile, rpc, "--address", addr, "--rid", e.RID, "--suite", e.Suite, "--encdek", e.EncDEKHex); err != nil {
		t.Fatalf("update: %v %s", err, errOut)
	}
	out, _, err = runXGR("rule", "get", rpc, "--address", addr, "--raw")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "stored.xgr1"), []byte(out), 0o644)
	if out, _, err := runXGR("rule", "decrypt", filepath.Join(dir, "stored.xgr1"), "--read-key", keyFile, "--enc-dek", e.EncDEK); err != nil || out != doc {
		t.Fatalf("decrypt what the contract stores: %v %q", err, out)
	}
	// What the contract stores is the envelope the engine opens: one line,
	// no line break (issue 38, Low 1), also from a file an editor saved
	// with a line break at its end; a line break inside is refused.
	checkStored := func(what string) {
		t.Helper()
		out, _, err := runXGR("rule", "get", rpc, "--address", addr, "--raw")
		if err != nil || out != e.Blob {
			t.Fatalf("%s: the contract stores %q, want the blob alone (%v)", what, out, err)
		}
		if _, err := envelope.ParseSealed(out, envelope.MaxRuleBytes); err != nil {
			t.Fatalf("%s: the engine refuses the stored envelope: %v", what, err)
		}
	}
	checkStored("rule encrypt --out, then rule update")
	for name, text := range map[string]string{"lf.xgr1": e.Blob + "\n", "crlf.xgr1": e.Blob + "\r\n"} {
		f := filepath.Join(dir, name)
		os.WriteFile(f, []byte(text), 0o644)
		if _, errOut, err := runXGR("rule", "update", f, rpc, "--address", addr, "--rid", e.RID, "--suite", e.Suite, "--encdek", e.EncDEKHex); err != nil {
			t.Fatalf("update from %s: %v %s", name, err, errOut)
		}
		checkStored("rule update of " + name)
	}
	twice := filepath.Join(dir, "twice.xgr1")
	os.WriteFile(twice, []byte(e.Blob+"\n\n"), 0o644)
	if _, _, err := runXGR("rule", "update", twice, rpc, "--address", addr, "--rid", e.RID, "--suite", e.Suite, "--encdek", e.EncDEKHex); exitCode(err) != 1 || !strings.Contains(err.Error(), "one line") {
		t.Fatalf("update of an envelope with two line breaks: %v", err)
	}
}

func mustPub(t *testing.T, b []byte) *ecdh.PublicKey {
	t.Helper()
	p, err := envelope.ParsePublicKey(b)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
