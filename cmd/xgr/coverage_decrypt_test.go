package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/envelope"
	"github.com/xgr-sidecar/xgr/grant"
	"github.com/xgr-sidecar/xgr/testenv"
)

// xgr ostc coverage also reports the encrypted rule contracts xgr cannot
// decrypt, judged as xgr run opens them: without a read key, or without a
// live READ grant (scope 1) of xgr's read-key account that opens with
// xgr's key, it cannot (exit 1, the reason in the text and --json); with
// one (in the grant store, or the contract's own header wrapped for xgr's
// key) it can (exit 0). Plain rules are not listed.
func TestOSTCCoverageReportsUndecryptableRules(t *testing.T) {
	a := testenv.StartAnvil(t)
	srv := testenv.StartRedis(t)
	rdb := srv.Client()
	url := "redis://" + srv.Addr + "/0"
	ctx := context.Background()
	t.Setenv(chain.PrivateKeyEnv, keyHex(a, 0))
	reg, _ := testenv.DeployXRC729(t, a, chain.RegistryInit{})
	plain, _ := testenv.DeployXRC137(t, a, `{"payload": {}}`)

	const doc = `{"payload": {"n": {"type": "uint64"}}, "rules": ["[n] > 0"]}`
	engine, _ := envelope.GenerateReadKey()
	author, _ := envelope.GenerateReadKey()
	// seal deploys a rule contract holding doc sealed, its header wrapping
	// the data key for header's key; it returns the contract, the RID, the
	// data key wrapped for the engine and the header's.
	seal := func(header *envelope.ReadKey) (common.Address, grant.RID, string, string) {
		dek, err := envelope.NewDEK()
		if err != nil {
			t.Fatal(err)
		}
		sealed, err := envelope.Seal(dek, []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		inHeader, _ := envelope.Wrap(dek, header.Public(), envelope.ScopeRule, sealed.RID)
		forEngine, _ := envelope.Wrap(dek, engine.Public(), envelope.ScopeRule, sealed.RID)
		r, _ := testenv.DeployXRC137(t, a, `{"rules": []}`)
		if _, err := r.SetEncrypted(ctx, testenv.Sender(t, a, 0), []byte(sealed.String()), chain.Encryption{
			RID: common.Hash(sealed.RID), Suite: envelope.Suite, EncDEK: inHeader.Bytes()}); err != nil {
			t.Fatal(err)
		}
		return r.Address, grant.RID(sealed.RID), forEngine.String(), inHeader.String()
	}
	enc, rid, forEngine, forAuthor := seal(author) // readable by xgr only through a grant
	selfSealed, _, _, _ := seal(engine)            // its header wraps for xgr's key
	ostc := `{"id": "kyc", "structure": {"A1": {"rule": "` + plain.Address.Hex() + `", "onValid": {"spawns": ["B1"]}},
		"B1": {"rule": "` + enc.Hex() + `", "onValid": {"spawns": ["C1"]}}, "C1": {"rule": "` + selfSealed.Hex() + `"}}}`
	if out, code := run(t, "ostc", "put", "--rpc", a.URL, "--registry", reg.Address.Hex(), "kyc", writeFile(t, "kyc.json", ostc)); code != 0 {
		t.Fatalf("ostc put: %d %s", code, out)
	}
	keyFile := filepath.Join(t.TempDir(), "engine.key")
	if err := envelope.WriteReadKeyFile(keyFile, engine); err != nil {
		t.Fatal(err)
	}
	account := strings.ToLower(a.Address(3).Hex())
	type report struct {
		Encrypted []struct {
			Contract common.Address
			RID      string
			Decrypts bool
			Reason   string
			Uses     []struct {
				OstcID string
				Steps  []string
			}
		}
		Undecryptable int
		Missing       int
		OK            bool
	}
	cover := func(extra ...string) (report, string, int) {
		t.Helper()
		out, code := run(t, append([]string{"ostc", "coverage", "--rpc", a.URL, "--registry", reg.Address.Hex(), "--runner", a.Address(0).Hex(), "--redis", url, "--json"}, extra...)...)
		var r report
		if err := json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &r); err != nil {
			t.Fatalf("--json: %v\n%s", err, out)
		}
		return r, out, code
	}
	// verdict finds contract's entry.
	verdict := func(r report, contract common.Address) (bool, string) {
		t.Helper()
		for _, e := range r.Encrypted {
			if e.Contract == contract {
				return e.Decrypts, e.Reason
			}
		}
		t.Fatalf("%s not listed as encrypted: %+v", contract.Hex(), r)
		return false, ""
	}

	// No read key: xgr run refuses both encrypted rules.
	r, out, code := cover()
	if code != 1 || r.OK || r.Missing != 0 || r.Undecryptable != 2 || len(r.Encrypted) != 2 {
		t.Fatalf("no read key: exit %d %+v\n%s", code, r, out)
	}
	if ok, why := verdict(r, enc); ok || !strings.Contains(why, "no read key") {
		t.Fatalf("no read key: %v %q", ok, why)
	}
	if e := r.Encrypted[0]; e.RID != rid.String() || len(e.Uses) != 1 || e.Uses[0].OstcID != "kyc" || e.Uses[0].Steps[0] != "B1" {
		t.Fatalf("entry %+v, want rid %s used by kyc B1", e, rid)
	}

	// xgr's key, no grant: the self-sealed rule opens (its header), the
	// other does not (its header wraps for the author); the text names it
	// and why.
	text, code := run(t, "ostc", "coverage", "--rpc", a.URL, "--registry", reg.Address.Hex(), "--runner", a.Address(0).Hex(),
		"--redis", url, "--read-key-file", keyFile, "--read-key-account", account)
	if code != 1 || !strings.Contains(text, "encrypted rule "+enc.Hex()+" (rid "+rid.String()+"): xgr CANNOT decrypt it:") ||
		!strings.Contains(text, "does not open with this read key") || !strings.Contains(text, "encrypted rule "+selfSealed.Hex()+" (rid") ||
		!strings.Contains(text, "2 encrypted rule(s): 1 xgr cannot decrypt") || !strings.Contains(text, "cannot decrypt 1 of 2 encrypted rule(s)") {
		t.Fatalf("key, no grant: exit %d\n%s", code, text)
	}
	r, _, _ = cover("--read-key-file", keyFile, "--read-key-account", account)
	if ok, _ := verdict(r, selfSealed); !ok {
		t.Fatalf("the rule sealed for xgr's key: %+v", r)
	}
	// The account without the key: no grant is no grant.
	r, _, _ = cover("--read-key-account", account)
	if ok, why := verdict(r, enc); ok || !strings.Contains(why, "holds no live READ grant (scope 1)") {
		t.Fatalf("account only, no grant: %v %q", ok, why)
	}

	// A READ grant of the account with the engine's wrapped key: all open.
	gs := grant.New(rdb)
	now := time.Now()
	put := func(encDEK string, rights uint8, exp time.Time) {
		t.Helper()
		if err := gs.Put(ctx, rid, grant.ScopeRule, []grant.Grant{{RID: rid, Scope: grant.ScopeRule, Grantee: account, Rights: rights, ExpireAt: exp,
			EncDEK: encDEK, Owner: strings.ToLower(a.Address(0).Hex()), GrantedBy: strings.ToLower(a.Address(0).Hex()), UpdatedAt: now}}, now); err != nil {
			t.Fatal(err)
		}
	}
	put(forEngine, grant.Read, now.Add(time.Hour))
	if r, out, code := cover("--read-key-file", keyFile, "--read-key-account", account); code != 0 || !r.OK || r.Undecryptable != 0 {
		t.Fatalf("granted: exit %d %+v\n%s", code, r, out)
	}
	// Without the key, the grant's presence is what is checked.
	if r, out, code := cover("--read-key-account", account); code != 1 || r.Undecryptable != 1 {
		// the self-sealed rule needs the key to be judged (its header)
		t.Fatalf("account only: exit %d %+v\n%s", code, r, out)
	} else if ok, why := verdict(r, enc); !ok || !strings.Contains(why, "not opened") {
		t.Fatalf("account only, granted: %v %q", ok, why)
	}

	// A grant whose wrapped key is another reader's does not open.
	put(forAuthor, grant.Read, now.Add(time.Hour))
	if r, out, code := cover("--read-key-file", keyFile, "--read-key-account", account); code != 1 || r.Undecryptable != 1 {
		t.Fatalf("another reader's key in the grant: exit %d %+v\n%s", code, r, out)
	}
	// Rights without READ, and an expired grant, read nothing.
	put(forEngine, grant.RightWrite|grant.Manage, now.Add(time.Hour))
	if r, out, code := cover("--read-key-file", keyFile, "--read-key-account", account); code != 1 || r.Undecryptable != 1 {
		t.Fatalf("no READ right: exit %d %+v\n%s", code, r, out)
	}
	if err := gs.Delete(ctx, rid, grant.ScopeRule, []string{account}, now); err != nil {
		t.Fatal(err)
	}
	if r, out, code := cover("--read-key-file", keyFile, "--read-key-account", account); code != 1 || r.Undecryptable != 1 {
		t.Fatalf("revoked: exit %d %+v\n%s", code, r, out)
	}
	// A malformed account is a usage error.
	if out, code := run(t, "ostc", "coverage", "--rpc", a.URL, "--registry", reg.Address.Hex(), "--runner", a.Address(0).Hex(), "--read-key-account", "alice"); code != 2 {
		t.Fatalf("--read-key-account alice: exit %d\n%s", code, out)
	}
}
