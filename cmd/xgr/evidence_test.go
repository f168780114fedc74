package main

import (
	"context"
	"encoding/json"
	"math/big"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/xgr-sidecar/xgr/authority"
	"github.com/xgr-sidecar/xgr/evidence"
	"github.com/xgr-sidecar/xgr/grant"
	"github.com/xgr-sidecar/xgr/indexer"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/rpc"
	"github.com/xgr-sidecar/xgr/testenv"
)

// xgr session log reads a step's bundle from Redis; xgr grants set, list
// and revoke manage who else may read it through the gateway.
func TestSessionLogAndGrants(t *testing.T) {
	keys, _ := testenv.DevKeys(2)
	owner := strings.ToLower(crypto.PubkeyToAddress(keys[0].PublicKey).Hex())
	auditor := strings.ToLower(crypto.PubkeyToAddress(keys[1].PublicKey).Hex())
	r := testenv.StartRedis(t)
	rdb := r.Client()
	gs := grant.New(rdb)
	ev, err := evidence.New(rdb, evidence.Config{Grants: gs})
	if err != nil {
		t.Fatal(err)
	}
	b := &evidence.Bundle{Owner: owner, SessionID: 4, Pid: "4:2", Iter: 2, Step: "A1", Rule: "0x5fbdb2315678afecb367f032d93f642f64180aa3", Executed: 2,
		Payload: json.RawMessage(`{"Order":"o-1","big":123456789012345678901234567890}`), Outcome: evidence.Outcome{Result: evidence.Invalid, Reasons: []string{"rules[1]: [qty] > 0 is false"}},
		Receipt: &evidence.Receipt{TxHash: "0x" + strings.Repeat("cd", 32), Block: 9, GasUsed: 21000, Status: "reverted"}, Time: time.Now().UnixMilli()}
	st, err := ev.Put(context.Background(), b, evidence.Policy{ExpireDays: 3}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	url := "redis://" + r.Addr
	out, code := run(t, "session", "log", "--redis", url, "--owner", owner, "4", "2")
	for _, want := range []string{"process 4:2 (step A1)", "outcome   invalid", "reason  rules[1]: [qty] > 0 is false", `"big":123456789012345678901234567890`,
		"receipt   tx 0x" + strings.Repeat("cd", 32) + " block 9 gas 21000 reverted", "rid " + st.RID.String(), "expires in 7"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("session log: %d, want %q in:\n%s", code, want, out)
		}
	}
	out, code = run(t, "session", "log", "--redis", url, "--owner", owner, "4", "4:2", "--json")
	var l evidence.Log
	if code != 0 || json.Unmarshal([]byte(out), &l) != nil || l.RID != st.RID.String() || l.Encrypted || l.TTLSeconds < 3*86400-60 {
		t.Fatalf("session log --json: %d %s", code, out)
	}
	if out, code = run(t, "session", "log", "--redis", url, "--owner", owner, "4", "3"); code != 1 || !strings.Contains(out, "no log bundle") {
		t.Fatalf("missing bundle: %d %s", code, out)
	}
	if _, code = run(t, "session", "log", "--redis", url, "--owner", owner, "4", "5:3"); code != 2 {
		t.Fatalf("a pid of another session: exit %d, want 2", code)
	}

	svc, err := rpc.NewService(rpc.Config{Store: joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour}), Source: reactor.NewStaticSource(),
		Authority: authority.NewChecker(fixedOwner(common.HexToAddress(owner))).WithRules(scriptedRules), Registries: &indexer.Followed{}, ChainID: big.NewInt(31337),
		ControlContract: common.HexToAddress(DefaultPrecompile), GrantStore: gs, Evidence: ev})
	if err != nil {
		t.Fatal(err)
	}
	srv, _ := rpc.NewServer(svc, rpc.ServerConfig{})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	ep := []string{"--endpoint", hs.URL}
	t.Setenv("XGR_PRIVATE_KEY", common.Bytes2Hex(crypto.FromECDSA(keys[0])))
	// An xdalaPermit (--unbound-permit) writes no grant: the gateway
	// requires the GrantPermit that xgr grants signs by default.
	out, code = run(t, append([]string{"grants", "set", st.RID.String(), auditor, "--rights", "1", "--unbound-permit"}, ep...)...)
	if code != 1 || !strings.Contains(out, `"reason":"unbound-permit"`) {
		t.Fatalf("grants set --unbound-permit: %d %s", code, out)
	}
	out, code = run(t, append([]string{"grants", "set", st.RID.String(), auditor, "--rights", "1", "--for", "24h"}, ep...)...)
	if code != 0 || !strings.Contains(out, "granted 1 to "+auditor) {
		t.Fatalf("grants set: %d %s", code, out)
	}
	t.Setenv("XGR_PRIVATE_KEY", common.Bytes2Hex(crypto.FromECDSA(keys[1])))
	out, code = run(t, append([]string{"grants", "list", "--json"}, ep...)...)
	var page rpc.ListGrantsResult
	if code != 0 || json.Unmarshal([]byte(out), &page) != nil || len(page.Items) != 1 || page.Items[0].RID != st.RID.String() || page.Items[0].SessionID != "4" {
		t.Fatalf("grants list: %d %s", code, out)
	}
	out, code = run(t, append([]string{"grants", "set", st.RID.String(), auditor, "--rights", "1"}, ep...)...)
	if code != 1 || !strings.Contains(out, `"reason":"not-manager"`) {
		t.Fatalf("a reader granting: %d %s", code, out)
	}
	t.Setenv("XGR_PRIVATE_KEY", common.Bytes2Hex(crypto.FromECDSA(keys[0])))
	if out, code = run(t, append([]string{"grants", "revoke", st.RID.String(), auditor}, ep...)...); code != 0 || !strings.Contains(out, "revoked") {
		t.Fatalf("grants revoke: %d %s", code, out)
	}
	t.Setenv("XGR_PRIVATE_KEY", common.Bytes2Hex(crypto.FromECDSA(keys[1])))
	if out, code = run(t, append([]string{"grants", "list"}, ep...)...); code != 0 || strings.Contains(out, st.RID.String()) {
		t.Fatalf("grants list after the revoke: %d %s", code, out)
	}
	for _, args := range [][]string{{"grants", "set", "0x12", auditor}, {"grants", "set", st.RID.String(), auditor, "--rights", "9"},
		{"grants", "revoke", st.RID.String(), auditor, "--scope", "3"}, {"grants", "list", "--limit", "900"}} {
		if out, code := run(t, append(args, ep...)...); code != 2 {
			t.Errorf("%v: exit %d, want 2: %s", args, code, out)
		}
	}
}
