package contracts_test

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/contracts/xrc137"
	"github.com/xgr-sidecar/xgr/testenv"
)

var rule137 = xrc137.NewXRC137()

const (
	topicRuleUpdated      = "RuleUpdated(string)"
	topicEncryptedSet     = "EncryptedSet(bytes32,string)"
	topicEncryptedCleared = "EncryptedCleared()"
	topicXRC137Updated    = "XRC137Updated(address,address,bytes32,uint256,bool)"
)

func topics(sigs ...string) []common.Hash {
	out := make([]common.Hash, len(sigs))
	for i, s := range sigs {
		out[i] = sig(s)
	}
	return out
}

// checkRule compares every read function of the contract with the expected
// state, including the duplicate getters (getRule/ruleJson, getRuleHash/
// ruleHash, getRuleVersion/ruleVersion, getNameXRC/nameXRC).
func checkRule(t *testing.T, a *testenv.Anvil, r *chain.Rule, text string, version uint64, enc chain.Encryption) {
	t.Helper()
	ctx := context.Background()
	info := must(r.Info(ctx))(t)
	hash := crypto.Keccak256Hash([]byte(text))
	encrypted := enc.RID != (common.Hash{})
	if info.Text != text || info.Hash != hash || info.Version != version || info.Encrypted != encrypted ||
		info.Encryption.RID != enc.RID || info.Encryption.Suite != enc.Suite || !bytes.Equal(info.Encryption.EncDEK, enc.EncDEK) {
		t.Fatalf("rule state = %+v\nwant text %q, hash %s, version %d, encryption %+v", info, text, hash.Hex(), version, enc)
	}
	if info.Name != "XGR_XRC137" || info.SchemaVersion != "xrc137-rule@1" {
		t.Fatalf("nameXRC %q, schemaVersion %q", info.Name, info.SchemaVersion)
	}
	c := rule137.Instance(a.Client, r.Address)
	opts := &bind.CallOpts{Context: ctx}
	if got := must(bind.Call(c, opts, rule137.PackRuleJson(), rule137.UnpackRuleJson))(t); got != text {
		t.Fatalf("ruleJson() = %q, getRule() = %q", got, text)
	}
	if got := must(bind.Call(c, opts, rule137.PackGetRuleHash(), rule137.UnpackGetRuleHash))(t); got != hash {
		t.Fatalf("getRuleHash() = %x, want %s", got, hash.Hex())
	}
	if got := must(bind.Call(c, opts, rule137.PackGetRuleVersion(), rule137.UnpackGetRuleVersion))(t); got.Uint64() != version {
		t.Fatalf("getRuleVersion() = %v, want %d", got, version)
	}
	if got := must(bind.Call(c, opts, rule137.PackGetNameXRC(), rule137.UnpackGetNameXRC))(t); got != "XGR_XRC137" {
		t.Fatalf("getNameXRC() = %q", got)
	}
}

func wantUpdated(t *testing.T, w chain.RuleWrite, r *chain.Rule, owner common.Address, text string, version uint64, encrypted bool) {
	t.Helper()
	ev := one(t, w.Receipt, r.Address, rule137.UnpackXRC137UpdatedEvent)
	hash := crypto.Keccak256Hash([]byte(text))
	if ev.RuleAddress != r.Address || ev.Owner != owner || ev.RuleHash != hash || ev.Version.Uint64() != version || ev.EncryptedState != encrypted {
		t.Fatalf("XRC137Updated = %+v; want hash %s, version %d, encrypted %v", ev, hash.Hex(), version, encrypted)
	}
	if w.Hash != hash || w.Version != version || w.Encrypted != encrypted {
		t.Fatalf("reported write %+v", w)
	}
	if ru := one(t, w.Receipt, r.Address, rule137.UnpackRuleUpdatedEvent); ru.NewRule != text {
		t.Fatalf("RuleUpdated(%q), want %q", ru.NewRule, text)
	}
}

func TestXRC137DeployAndPlainUpdates(t *testing.T) {
	a := testenv.StartAnvil(t)
	ctx := context.Background()
	text := `{"payload":{"x":{"type":"number"}},"rules":["[x] > 0"]}`
	r, w := testenv.DeployXRC137(t, a, text)
	owner := a.Address(0)

	if got := topicsOf(w.Receipt); !slices.Equal(got, topics("XRC137Deployed(address,address,bytes32,uint256,string,string,bool)")) {
		t.Fatalf("deploy emitted %v, want XRC137Deployed only", got)
	}
	d := one(t, w.Receipt, r.Address, rule137.UnpackXRC137DeployedEvent)
	if d.RuleAddress != r.Address || d.Owner != owner || d.RuleHash != crypto.Keccak256Hash([]byte(text)) ||
		d.Version.Uint64() != 1 || d.NameXRC != "XGR_XRC137" || d.SchemaVersion != "xrc137-rule@1" || d.EncryptedState {
		t.Fatalf("XRC137Deployed = %+v", d)
	}
	checkRule(t, a, r, text, 1, chain.Encryption{})
	if o := must(r.Owner(ctx))(t); o != owner {
		t.Fatalf("owner() = %s", o.Hex())
	}

	s := testenv.Sender(t, a, 0)
	for i, next := range []string{`{"rules":["[x] > 1"]}`, `{"rules":["[x] > 2"]}`, ""} {
		w := must(r.Update(ctx, s, []byte(next)))(t)
		version := uint64(i + 2)
		if got := topicsOf(w.Receipt); !slices.Equal(got, topics(topicRuleUpdated, topicXRC137Updated)) {
			t.Fatalf("updateRule emitted %v, want RuleUpdated, XRC137Updated", got)
		}
		wantUpdated(t, w, r, owner, next, version, false)
		checkRule(t, a, r, next, version, chain.Encryption{})
	}
}

func TestXRC137Encryption(t *testing.T) {
	a := testenv.StartAnvil(t)
	ctx := context.Background()
	r, _ := testenv.DeployXRC137(t, a, `{"plain":true}`)
	s := testenv.Sender(t, a, 0)
	owner := s.From()
	enc := chain.Encryption{RID: crypto.Keccak256Hash([]byte("rid")), Suite: "AES-256-GCM-1", EncDEK: []byte{1, 2, 3, 4}}
	blob := "XGR1.AESGCM.bm9uY2U.Y2lwaGVy"

	// An envelope needs a header: updateRule alone is refused.
	_, err := r.Update(ctx, s, []byte(blob))
	wantRevert(t, "updateRule(XGR1 blob) without a header", err, "encrypted meta required: call setRuleAndEncrypted or setEncrypted first")
	// A header needs an envelope.
	_, err = r.SetEncrypted(ctx, s, []byte(`{"plain":true}`), enc)
	wantRevert(t, "setRuleAndEncrypted(plain text, rid)", err, "expected XGR1 blob")
	_, err = r.SetEncrypted(ctx, s, []byte("XGR1"), enc)
	wantRevert(t, "setRuleAndEncrypted(\"XGR1\" without the dot)", err, "expected XGR1 blob")
	checkRule(t, a, r, `{"plain":true}`, 1, chain.Encryption{})

	w := must(r.SetEncrypted(ctx, s, []byte(blob), enc))(t)
	if got := topicsOf(w.Receipt); !slices.Equal(got, topics(topicRuleUpdated, topicEncryptedSet, topicXRC137Updated)) {
		t.Fatalf("setRuleAndEncrypted emitted %v, want RuleUpdated, EncryptedSet, XRC137Updated", got)
	}
	es := one(t, w.Receipt, r.Address, rule137.UnpackEncryptedSetEvent)
	if es.Rid != enc.RID || es.Suite != enc.Suite {
		t.Fatalf("EncryptedSet(%x, %q)", es.Rid, es.Suite)
	}
	wantUpdated(t, w, r, owner, blob, 2, true)
	checkRule(t, a, r, blob, 2, enc)

	// Another envelope through updateRule keeps the header.
	blob2 := "XGR1.AESGCM.bm9uY2Uy.Y2lwaGVyMg"
	w = must(r.Update(ctx, s, []byte(blob2)))(t)
	if got := topicsOf(w.Receipt); !slices.Equal(got, topics(topicRuleUpdated, topicXRC137Updated)) {
		t.Fatalf("updateRule(envelope) while encrypted emitted %v", got)
	}
	wantUpdated(t, w, r, owner, blob2, 3, true)
	checkRule(t, a, r, blob2, 3, enc)

	// Plain text through updateRule clears the header.
	w = must(r.Update(ctx, s, []byte(`{"plain":2}`)))(t)
	if got := topicsOf(w.Receipt); !slices.Equal(got, topics(topicRuleUpdated, topicEncryptedCleared, topicXRC137Updated)) {
		t.Fatalf("updateRule(plain) while encrypted emitted %v, want RuleUpdated, EncryptedCleared, XRC137Updated", got)
	}
	wantUpdated(t, w, r, owner, `{"plain":2}`, 4, false)
	checkRule(t, a, r, `{"plain":2}`, 4, chain.Encryption{})

	// setRuleAndEncrypted with a zero rid is a plain write that clears.
	must(r.SetEncrypted(ctx, s, []byte(blob), enc))(t)
	w = must(r.SetEncrypted(ctx, s, []byte(`{"plain":3}`), chain.Encryption{Suite: "ignored", EncDEK: []byte{9}}))(t)
	if got := topicsOf(w.Receipt); !slices.Equal(got, topics(topicRuleUpdated, topicEncryptedCleared, topicXRC137Updated)) {
		t.Fatalf("setRuleAndEncrypted(rid 0) while encrypted emitted %v", got)
	}
	wantUpdated(t, w, r, owner, `{"plain":3}`, 6, false)
	checkRule(t, a, r, `{"plain":3}`, 6, chain.Encryption{})
	// ... and emits no EncryptedCleared when nothing was set.
	w = must(r.SetEncrypted(ctx, s, []byte(`{"plain":4}`), chain.Encryption{}))(t)
	if got := topicsOf(w.Receipt); !slices.Equal(got, topics(topicRuleUpdated, topicXRC137Updated)) {
		t.Fatalf("setRuleAndEncrypted(rid 0) on a plain rule emitted %v", got)
	}
	checkRule(t, a, r, `{"plain":4}`, 7, chain.Encryption{})
}

func TestXRC137OwnerOnlyExecutorsAndOwnership(t *testing.T) {
	a := testenv.StartAnvil(t)
	ctx := context.Background()
	r, _ := testenv.DeployXRC137(t, a, `{}`)
	owner := testenv.Sender(t, a, 0)
	intruder := testenv.Sender(t, a, 1)
	e2, e3 := a.Address(2), a.Address(3)

	_, err := r.Update(ctx, intruder, []byte(`{"evil":1}`))
	wantRevert(t, "updateRule by a non-owner", err, "not owner")
	_, err = r.SetEncrypted(ctx, intruder, []byte("XGR1.x"), chain.Encryption{RID: common.Hash{1}})
	wantRevert(t, "setRuleAndEncrypted by a non-owner", err, "not owner")
	_, err = r.AddExecutor(ctx, intruder, e2)
	wantRevert(t, "addExecutor by a non-owner", err, "not owner")
	_, err = r.RemoveExecutor(ctx, intruder, e2)
	wantRevert(t, "removeExecutor by a non-owner", err, "not owner")
	_, err = r.TransferOwnership(ctx, intruder, intruder.From())
	wantRevert(t, "transferOwnership by a non-owner", err, "not owner")
	checkRule(t, a, r, `{}`, 1, chain.Encryption{})

	rc := must(r.AddExecutor(ctx, owner, e2))(t)
	if ev := one(t, rc, r.Address, rule137.UnpackExecutorAddedEvent); ev.Executor != e2 {
		t.Fatalf("ExecutorAdded(%s)", ev.Executor.Hex())
	}
	if rc := must(r.AddExecutor(ctx, owner, e2))(t); len(rc.Logs) != 0 {
		t.Fatal("adding a present executor emitted logs")
	}
	must(r.AddExecutor(ctx, owner, e3))(t)
	must(r.AddExecutor(ctx, owner, intruder.From()))(t)
	rc = must(r.RemoveExecutor(ctx, owner, e2))(t)
	if ev := one(t, rc, r.Address, rule137.UnpackExecutorRemovedEvent); ev.Executor != e2 {
		t.Fatalf("ExecutorRemoved(%s)", ev.Executor.Hex())
	}
	if rc := must(r.RemoveExecutor(ctx, owner, e2))(t); len(rc.Logs) != 0 {
		t.Fatal("removing an absent executor emitted logs")
	}
	if l := must(r.Executors(ctx))(t); !slices.Equal(l, []common.Address{intruder.From(), e3}) {
		t.Fatalf("getExecutorList = %v", l)
	}
	if !must(r.IsExecutor(ctx, e3))(t) || must(r.IsExecutor(ctx, e2))(t) {
		t.Fatal("isExecutor disagrees with the list")
	}
	_, err = r.AddExecutor(ctx, owner, owner.From())
	wantRevert(t, "addExecutor(owner)", err, "owner cannot be executor")
	// Executors have no write rights.
	_, err = r.Update(ctx, intruder, []byte(`{"evil":2}`))
	wantRevert(t, "updateRule by an executor", err, "not owner")

	_, err = r.TransferOwnership(ctx, owner, common.Address{})
	wantRevert(t, "transferOwnership(0x0)", err, "zero addr")
	// XRC-137 ownership moves silently and leaves the allowlist alone (unlike
	// XRC-729, the standard removes nobody).
	rc = must(r.TransferOwnership(ctx, owner, intruder.From()))(t)
	if len(rc.Logs) != 0 {
		t.Fatalf("transferOwnership emitted %d logs; the standard emits none", len(rc.Logs))
	}
	if o := must(r.Owner(ctx))(t); o != intruder.From() {
		t.Fatalf("owner() = %s", o.Hex())
	}
	if l := must(r.Executors(ctx))(t); !slices.Equal(l, []common.Address{intruder.From(), e3}) {
		t.Fatalf("executors after transfer = %v", l)
	}
	_, err = r.Update(ctx, owner, []byte(`{}`))
	wantRevert(t, "updateRule by the previous owner", err, "not owner")
	w := must(r.Update(ctx, intruder, []byte(`{"new":"owner"}`)))(t)
	wantUpdated(t, w, r, intruder.From(), `{"new":"owner"}`, 2, false)
}
