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
	"github.com/xgr-sidecar/xgr/evidence"
	"github.com/xgr-sidecar/xgr/grant"
	"github.com/xgr-sidecar/xgr/testenv"
)

// xgr run opens an encrypted rule with its read key while its account holds
// a live READ grant on the rule's RID (scope 1) in the grant store; the
// rule contract's header wraps the key for another reader only. Revoked,
// the next session's step aborts with the reason (the header's key, the
// fallback, is not xgr's).
func TestRunOpensEncryptedRuleWithGrant(t *testing.T) {
	a := testenv.StartAnvil(t)
	srv := testenv.StartRedis(t)
	rdb := srv.Client()
	ctx := context.Background()
	url := "redis://" + srv.Addr + "/0"

	const doc = `{"payload": {"n": {"type": "uint64"}}, "rules": ["[n] > 0"], "onValid": {"payload": {"opened": true}}}`
	dek, err := envelope.NewDEK()
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := envelope.Seal(dek, []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	author, _ := envelope.GenerateReadKey()
	engine, _ := envelope.GenerateReadKey()
	forAuthor, _ := envelope.Wrap(dek, author.Public(), envelope.ScopeRule, sealed.RID)
	forEngine, _ := envelope.Wrap(dek, engine.Public(), envelope.ScopeRule, sealed.RID)
	r, _ := testenv.DeployXRC137(t, a, `{"rules": []}`)
	if _, err := r.SetEncrypted(ctx, testenv.Sender(t, a, 0), []byte(sealed.String()), chain.Encryption{
		RID: common.Hash(sealed.RID), Suite: envelope.Suite, EncDEK: forAuthor.Bytes()}); err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "engine.key")
	if err := envelope.WriteReadKeyFile(keyFile, engine); err != nil {
		t.Fatal(err)
	}
	account := strings.ToLower(a.Address(3).Hex())
	grants := grant.New(rdb)
	rid := grant.RID(sealed.RID)
	now := time.Now()
	if err := grants.Put(ctx, rid, grant.ScopeRule, []grant.Grant{{RID: rid, Scope: grant.ScopeRule, Grantee: account, Rights: grant.Read,
		ExpireAt: now.Add(time.Hour), EncDEK: forEngine.String(), Owner: strings.ToLower(a.Address(0).Hex()), GrantedBy: strings.ToLower(a.Address(0).Hex()),
		RefAddr: strings.ToLower(r.Address.Hex()), UpdatedAt: now}}, now); err != nil {
		t.Fatal(err)
	}

	ostc := writeFile(t, "enc.json", `{"id": "enc", "structure": {"A1": {"rule": "`+r.Address.Hex()+`"}}}`)
	payload := writeFile(t, "p.json", `{"n": 5}`)
	stop := startReplica(t, "--redis", url, "--rpc", a.URL, "--ostc", ostc, "--poll", "20ms", "--log-bundles",
		"--read-key-file", keyFile, "--read-key-account", account)
	defer stop()
	start := func(root int64) evidence.Bundle {
		t.Helper()
		if out, code := run(t, "session", "start", ostc, "--payload", payload, "--redis", url, "--owner", testOwner); code != 0 {
			t.Fatalf("start: %d %s", code, out)
		}
		waitStatus(t, url, root, "finished")
		out, code := run(t, "session", "log", "--redis", url, "--owner", testOwner, "1", "1", "--json")
		if root != 1 {
			out, code = run(t, "session", "log", "--redis", url, "--owner", testOwner, "2", "1", "--json")
		}
		var l evidence.Log
		var b evidence.Bundle
		if code != 0 || json.Unmarshal([]byte(out), &l) != nil || json.Unmarshal(l.Bundle, &b) != nil {
			t.Fatalf("session %d log: %d %s", root, code, out)
		}
		return b
	}
	b := start(1)
	if b.Outcome.Result != evidence.Valid || string(b.Outcome.Output) != `{"opened":true}` || b.Rule != strings.ToLower(r.Address.Hex()) {
		t.Fatalf("with the grant: %+v (output %s)", b.Outcome, b.Outcome.Output)
	}
	if err := grants.Delete(ctx, rid, grant.ScopeRule, []string{account}, time.Now()); err != nil {
		t.Fatal(err)
	}
	b = start(2)
	if b.Outcome.Result != evidence.Aborted || len(b.Outcome.Reasons) != 1 || !strings.Contains(b.Outcome.Reasons[0], "is encrypted (rid "+rid.String()+") and xgr's grant does not open") {
		t.Fatalf("after the revoke: %+v", b.Outcome)
	}
}
