package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/google/uuid"
	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/testenv"
)

// runXGR runs the CLI in-process and returns what it printed and its error.
func runXGR(args ...string) (stdout, stderr string, err error) {
	var o, e bytes.Buffer
	err = runApp(context.Background(), newApp(&o, &e), append([]string{"xgr"}, args...))
	return o.String(), e.String(), err
}

// exitCode is the status main would exit with for err.
func exitCode(err error) int {
	var ec cli.ExitCoder
	if errors.As(err, &ec) {
		return ec.ExitCode()
	}
	if err != nil {
		return 2
	}
	return 0
}

// field returns the value printed on the line labelled name.
func field(t *testing.T, out, name string) string {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, name+"  "); ok {
			return strings.TrimSpace(rest)
		}
	}
	t.Fatalf("no %q line in output:\n%s", name, out)
	return ""
}

func keyHex(a *testenv.Anvil, i int) string {
	return "0x" + hex.EncodeToString(crypto.FromECDSA(a.Key(i)))
}

func TestCLIRegistryAndOSTCOnAnvil(t *testing.T) {
	a := testenv.StartAnvil(t)
	t.Setenv(chain.PrivateKeyEnv, keyHex(a, 0))
	rpc := "--rpc=" + a.URL

	out, errOut, err := runXGR("registry", "deploy", rpc)
	if err != nil {
		t.Fatalf("registry deploy: %v\n%s%s", err, out, errOut)
	}
	reg := field(t, out, "registry")
	if !common.IsHexAddress(reg) || field(t, out, "owner") != a.Address(0).Hex() {
		t.Fatalf("registry deploy printed:\n%s", out)
	}
	for _, f := range []string{"tx", "block", "gas used"} {
		field(t, out, f)
	}

	file := "../../examples/ostc/minimal_join.json"
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want := registry.Hash(raw).Hex()
	out, errOut, err = runXGR("ostc", "put", rpc, "--registry", reg, "minimal_join", file)
	if err != nil {
		t.Fatalf("ostc put: %v\n%s%s", err, out, errOut)
	}
	if field(t, out, "hash (on chain)") != want || field(t, out, "hash (local)") != want+"  match" || field(t, out, "version") != "1" {
		t.Fatalf("ostc put printed:\n%s\nwant on-chain and local hash %s", out, want)
	}
	if !strings.HasPrefix(field(t, out, "tx"), "0x") || field(t, out, "gas used") == "0" {
		t.Fatalf("ostc put printed no transaction:\n%s", out)
	}

	out, _, err = runXGR("ostc", "meta", rpc, "--registry", reg, "minimal_join", file)
	if err != nil {
		t.Fatalf("ostc meta: %v\n%s", err, out)
	}
	if field(t, out, "hash (on chain)") != want || field(t, out, "hash (local, of stored text)") != want+"  match" ||
		field(t, out, "hash ("+file+")") != want+"  match" {
		t.Fatalf("ostc meta printed:\n%s\nwant every hash %s and match", out, want)
	}
	out, _, err = runXGR("ostc", "meta", rpc, "--registry", reg, "--json", "minimal_join")
	var meta chain.OSTCMetaReport
	if err != nil || json.Unmarshal([]byte(out), &meta) != nil {
		t.Fatalf("ostc meta --json: %v\n%s", err, out)
	}
	if !meta.Match || meta.Hash.Hex() != want || meta.TextHash.Hex() != want || meta.Version != 1 || meta.UpdatedAt.IsZero() {
		t.Fatalf("ostc meta --json = %+v", meta)
	}
	// A file that differs from the stored text is reported and fails.
	other := filepath.Join(t.TempDir(), "other.json")
	if err := os.WriteFile(other, append(raw, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, err = runXGR("ostc", "meta", rpc, "--registry", reg, "minimal_join", other)
	if exitCode(err) != 1 || !strings.HasSuffix(field(t, out, "hash ("+other+")"), "MISMATCH") {
		t.Fatalf("ostc meta with a different file: exit %d\n%s", exitCode(err), out)
	}

	out, _, err = runXGR("ostc", "get", rpc, "--registry", reg, "minimal_join")
	if err != nil || out != string(raw) {
		t.Fatalf("ostc get returned %d bytes (err %v), want the file's %d bytes exactly", len(out), err, len(raw))
	}

	// An invalid document is refused and nothing is sent ...
	bad := filepath.Join(t.TempDir(), "bad.json")
	doc := `{"id":"bad","structure":{"A":{"rule":"0x0000000000000000000000000000000000000001","onValid":{"spawns":["Nowhere"]}}}}`
	if err := os.WriteFile(bad, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	head, _ := a.Client.BlockNumber(context.Background())
	out, _, err = runXGR("ostc", "put", rpc, "--registry", reg, "bad", bad)
	if exitCode(err) != 1 || !strings.Contains(err.Error(), "refusing") || !strings.Contains(err.Error(), "Nowhere") || out != "" {
		t.Fatalf("ostc put of an invalid document: exit %d, %v\n%s", exitCode(err), err, out)
	}
	if after, _ := a.Client.BlockNumber(context.Background()); after != head {
		t.Fatalf("a refused put sent a transaction (head %d -> %d)", head, after)
	}
	g := chain.NewRegistry(common.HexToAddress(reg), a.Client)
	if has, err := g.Has(context.Background(), "bad"); err != nil || has {
		t.Fatalf("hasOSTC(bad) = %v, %v after a refused put", has, err)
	}
	// ... as is a valid one under another id ...
	_, _, err = runXGR("ostc", "put", rpc, "--registry", reg, "other_id", file)
	if exitCode(err) != 1 || !strings.Contains(err.Error(), `differs from the registry ID "other_id"`) {
		t.Fatalf("ostc put under a different id: %v", err)
	}
	// ... unless --force.
	out, errOut, err = runXGR("ostc", "put", rpc, "--registry", reg, "--force", "bad", bad)
	if err != nil || field(t, out, "hash (local)") != registry.Hash([]byte(doc)).Hex()+"  match" || !strings.Contains(errOut, "Nowhere") {
		t.Fatalf("ostc put --force: %v\n%s%s", err, out, errOut)
	}

	out, _, err = runXGR("ostc", "list", rpc, "--registry", reg, "--json")
	var list []chain.OSTCMeta
	if err != nil || json.Unmarshal([]byte(out), &list) != nil || len(list) != 2 || list[0].ID != "minimal_join" || list[1].ID != "bad" {
		t.Fatalf("ostc list --json: %v\n%s", err, out)
	}

	// Writes by someone else are refused by the contract, with its reason.
	t.Setenv(chain.PrivateKeyEnv, keyHex(a, 1))
	_, _, err = runXGR("ostc", "delete", rpc, "--registry", reg, "bad")
	if exitCode(err) != 1 || !strings.Contains(err.Error(), `"XRC729: not owner"`) {
		t.Fatalf("ostc delete by a non-owner: %v", err)
	}

	// The owner's key from a keystore file.
	t.Setenv(chain.PrivateKeyEnv, "")
	ks, pw := writeKeystore(t, a, 0)
	out, _, err = runXGR("ostc", "delete", rpc, "--registry", reg, "--keystore", ks, "--password-file", pw, "bad")
	if err != nil || field(t, out, "previous version") != "1" || field(t, out, "deleted") != "bad" {
		t.Fatalf("ostc delete with a keystore: %v\n%s", err, out)
	}
	_, _, err = runXGR("ostc", "get", rpc, "--registry", reg, "bad")
	if exitCode(err) != 1 || !strings.Contains(err.Error(), "XRC729: not found") {
		t.Fatalf("ostc get after delete: %v", err)
	}

	// No key at all is a usage error that says where keys come from.
	_, _, err = runXGR("ostc", "delete", rpc, "--registry", reg, "minimal_join")
	if exitCode(err) != 2 || !strings.Contains(err.Error(), chain.PrivateKeyEnv) {
		t.Fatalf("ostc delete without a key: exit %d, %v", exitCode(err), err)
	}
	_, _, err = runXGR("ostc", "get", rpc, "minimal_join")
	if exitCode(err) != 2 || !strings.Contains(err.Error(), "--registry") {
		t.Fatalf("ostc get without --registry: %v", err)
	}
}

func TestCLIRuleOnAnvil(t *testing.T) {
	a := testenv.StartAnvil(t)
	t.Setenv(chain.PrivateKeyEnv, keyHex(a, 0))
	rpc := "--rpc=" + a.URL
	dir := t.TempDir()
	v1 := filepath.Join(dir, "v1.json")
	v2 := filepath.Join(dir, "v2.json")
	broken := filepath.Join(dir, "broken.json")
	for f, text := range map[string]string{v1: `{"rules":["[x] > 0"]}`, v2: `{"rules":["[x] > 1"]}`, broken: `{"rules":[`} {
		if err := os.WriteFile(f, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	_, _, err := runXGR("rule", "deploy", rpc, broken)
	if exitCode(err) != 1 || !strings.Contains(err.Error(), "not valid JSON") {
		t.Fatalf("rule deploy of broken JSON: %v", err)
	}
	out, errOut, err := runXGR("rule", "deploy", rpc, v1)
	if err != nil {
		t.Fatalf("rule deploy: %v\n%s%s", err, out, errOut)
	}
	addr := field(t, out, "rule")
	h1 := registry.Hash([]byte(`{"rules":["[x] > 0"]}`)).Hex()
	if field(t, out, "version") != "1" || field(t, out, "hash (on chain)") != h1 || field(t, out, "hash (local)") != h1+"  match" {
		t.Fatalf("rule deploy printed:\n%s", out)
	}

	out, _, err = runXGR("rule", "update", rpc, "--address", addr, v2)
	h2 := registry.Hash([]byte(`{"rules":["[x] > 1"]}`)).Hex()
	if err != nil || field(t, out, "version") != "2" || field(t, out, "hash (local)") != h2+"  match" || field(t, out, "encrypted") != "false" {
		t.Fatalf("rule update: %v\n%s", err, out)
	}
	out, _, err = runXGR("rule", "get", rpc, "--address", addr, "--raw")
	if err != nil || out != `{"rules":["[x] > 1"]}` {
		t.Fatalf("rule get --raw = %q, %v", out, err)
	}
	out, _, err = runXGR("rule", "get", rpc, "--address", addr, "--json")
	var info chain.RuleInfo
	if err != nil || json.Unmarshal([]byte(out), &info) != nil {
		t.Fatalf("rule get --json: %v\n%s", err, out)
	}
	if info.Version != 2 || info.Hash.Hex() != h2 || info.Owner != a.Address(0) || info.Encrypted || info.Name != "XGR_XRC137" {
		t.Fatalf("rule get --json = %+v", info)
	}

	blob := filepath.Join(dir, "blob")
	if err := os.WriteFile(blob, []byte("XGR1.AESGCM.bm9uY2U.Y2lwaGVy"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err = runXGR("rule", "update", rpc, "--address", addr, blob)
	if exitCode(err) != 1 || !strings.Contains(err.Error(), "encrypted meta required") {
		t.Fatalf("rule update with an envelope but no header: %v", err)
	}
	rid := "0x" + strings.Repeat("ab", 32)
	out, _, err = runXGR("rule", "update", rpc, "--address", addr, "--rid", rid, "--suite", "AES-256-GCM-1", "--encdek", "0x0102", blob)
	if err != nil || field(t, out, "version") != "3" || field(t, out, "encrypted") != "true" {
		t.Fatalf("rule update --rid: %v\n%s", err, out)
	}
	out, _, err = runXGR("rule", "get", rpc, "--address", addr)
	if err != nil || field(t, out, "encrypted") != "true" || field(t, out, "  rid") != rid || field(t, out, "  suite") != "AES-256-GCM-1" {
		t.Fatalf("rule get after encrypting: %v\n%s", err, out)
	}

	t.Setenv(chain.PrivateKeyEnv, keyHex(a, 1))
	_, _, err = runXGR("rule", "update", rpc, "--address", addr, v1)
	if exitCode(err) != 1 || !strings.Contains(err.Error(), `"not owner"`) {
		t.Fatalf("rule update by a non-owner: %v", err)
	}
}

// writeKeystore stores development key i in an encrypted keystore file and
// returns it with a password file.
func writeKeystore(t *testing.T, a *testenv.Anvil, i int) (file, passwordFile string) {
	t.Helper()
	dir := t.TempDir()
	id, err := uuid.NewRandom()
	if err != nil {
		t.Fatal(err)
	}
	blob, err := keystore.EncryptKey(&keystore.Key{Id: id, Address: a.Address(i), PrivateKey: a.Key(i)}, "pw", keystore.LightScryptN, keystore.LightScryptP)
	if err != nil {
		t.Fatal(err)
	}
	file, passwordFile = filepath.Join(dir, "key.json"), filepath.Join(dir, "pw")
	if err := os.WriteFile(file, blob, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(passwordFile, []byte("pw\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return file, passwordFile
}
