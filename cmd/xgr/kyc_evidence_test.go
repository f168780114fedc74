package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/envelope"
	"github.com/xgr-sidecar/xgr/evidence"
	"github.com/xgr-sidecar/xgr/internal/redisscan"
	"github.com/xgr-sidecar/xgr/rpc/client"
	"github.com/xgr-sidecar/xgr/testenv"
)

// kycRule is one of the KYC review's rules (examples/rules) with every
// branch's log bundle encrypted and granted to auditor for reading: the
// review handles a customer's identity, so all of its evidence is private.
func kycRule(t *testing.T, name, auditor string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("../../examples/rules", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for _, b := range []string{"onValid", "onInvalid"} {
		br, _ := doc[b].(map[string]any)
		if br == nil {
			br = map[string]any{}
			doc[b] = br
		}
		br["encryptLogs"] = true
		br["grants"] = []any{map[string]any{"address": auditor, "rights": 1}}
		if name == "KYC_OPEN_CASE" && b == "onValid" {
			br["waitSec"] = 3600 // await_order waits for its wake-up, not for the clock
		}
	}
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// The KYC review (examples/ostc/wake_kyc_review.json, its rules deployed
// as XRC-137 contracts on anvil) under xgr run with --log-bundles, a key
// registry and the gateway: every step's bundle is sealed for the owner
// and the auditor its branch grants READ; the auditor reads the KYC step's
// bundle through xgr_getStepLog and opens it with its read key, another
// account (with a registered key of its own) is refused, and no key or
// value in Redis but the session's own live records holds the customer's
// identity.
func TestKYCReviewEncryptedLogsThroughGateway(t *testing.T) {
	a := testenv.StartAnvil(t)
	srv := testenv.StartRedis(t)
	rdb := srv.Client()
	ctx := context.Background()
	url := "redis://" + srv.Addr + "/0"
	reg, _, err := chain.DeployKeyRegistry(ctx, testenv.Sender(t, a, 0))
	if err != nil {
		t.Fatal(err)
	}
	ownerKey, _ := envelope.GenerateReadKey()
	auditorKey, _ := envelope.GenerateReadKey()
	strangerKey, _ := envelope.GenerateReadKey()
	for i, k := range []*envelope.ReadKey{ownerKey, auditorKey, strangerKey} {
		if _, err := reg.Register(ctx, testenv.Sender(t, a, i), k.Public().Bytes()); err != nil {
			t.Fatal(err)
		}
	}
	owner, auditor := strings.ToLower(a.Address(0).Hex()), strings.ToLower(a.Address(1).Hex())

	ostcRaw, err := os.ReadFile("../../examples/ostc/wake_kyc_review.json")
	if err != nil {
		t.Fatal(err)
	}
	ostcText := string(ostcRaw)
	for _, name := range []string{"KYC_OPEN_CASE", "KYC_AWAIT_ORDER", "KYC_APPROVE"} {
		r, _ := testenv.DeployXRC137(t, a, kycRule(t, name, auditor))
		ostcText = strings.ReplaceAll(ostcText, "${addr:"+name+"}", r.Address.Hex())
	}
	if strings.Contains(ostcText, "${addr:") {
		t.Fatalf("a rule reference is left: %s", ostcText)
	}
	ostc := writeFile(t, "kyc_review.json", ostcText)

	rpcListen := fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(t))
	stop := startReplica(t, "--redis", url, "--rpc", a.URL, "--ostc", ostc, "--poll", "20ms",
		"--log-bundles", "--key-registry", reg.Address.Hex(), "--rpc-listen", rpcListen)
	defer stop()

	const customer = "Erika Mustermann, passport C01X00T47, born 1964-08-12"
	payload := writeFile(t, "p.json", `{"customer": "`+customer+`"}`)
	if out, code := run(t, "session", "start", ostc, "--payload", payload, "--redis", url, "--owner", owner); code != 0 {
		t.Fatalf("start: %d %s", code, out)
	}
	// open_case committed, await_order waits: wake it with the order.
	waitFor(t, 30*time.Second, "the KYC case to be opened", nil, func() bool {
		out, _ := run(t, "session", "log", "--redis", url, "--owner", owner, "1", "1", "--json")
		return strings.Contains(out, "XGR1.")
	})
	order := writeFile(t, "order.json", `{"orderId": "ORD-7", "shopSession": 42}`)
	if out, code := run(t, "session", "wake", "1:2", "--payload", order, "--redis", url, "--owner", owner); code != 0 {
		t.Fatalf("wake: %d %s", code, out)
	}
	waitStatusOf(t, url, owner, 1, "finished")

	gw, err := client.Dial(ctx, "http://"+rpcListen)
	if err != nil {
		t.Fatal(err)
	}
	defer gw.Close()
	steps := map[int64]string{1: "open_case", 2: "await_order", 3: "approve"}
	for iter, step := range steps {
		pid := fmt.Sprintf("1:%d", iter)
		l, err := gw.StepLog(ctx, a.Key(1), owner, "1", pid)
		if err != nil {
			t.Fatalf("the auditor reads %s: %v", pid, err)
		}
		if !l.Encrypted || !strings.HasPrefix(l.Blob, "XGR1.") || len(l.Bundle) != 0 || l.EncDEK == "" || l.Status != "done" {
			t.Fatalf("%s through the gateway: %+v", pid, l)
		}
		plain, err := envelope.Open(l.Blob, l.EncDEK, auditorKey, envelope.ScopeLog, evidence.HardMaxBytes)
		var b evidence.Bundle
		if err != nil || json.Unmarshal(plain, &b) != nil {
			t.Fatalf("the auditor opens %s: %v", pid, err)
		}
		if b.Step != step || b.Outcome.Result != evidence.Valid || b.Executed != iter || !strings.Contains(string(b.Payload), customer) {
			t.Fatalf("%s's bundle: step %s outcome %+v executed %d payload %s", pid, b.Step, b.Outcome, b.Executed, b.Payload)
		}
		if _, err := envelope.Open(l.Blob, l.EncDEK, strangerKey, envelope.ScopeLog, evidence.HardMaxBytes); err == nil {
			t.Fatalf("another key opened the auditor's wrapped key of %s", pid)
		}
		if _, err := envelope.Open(l.Blob, l.EncDEK, auditorKey, envelope.ScopeRule, evidence.HardMaxBytes); err == nil {
			t.Fatalf("the auditor's wrapped key of %s opened in the rule scope", pid)
		}
		t.Logf("%s: %s executed %d, %d-byte envelope, status %s", pid, b.Step, b.Executed, len(l.Blob), l.Status)
		// The owner reads it with its own wrapped key.
		o, err := gw.StepLog(ctx, a.Key(0), owner, "1", pid)
		if err != nil || o.Blob != l.Blob {
			t.Fatalf("the owner reads %s: %+v %v", pid, o, err)
		}
		if _, err := envelope.Open(o.Blob, o.EncDEK, ownerKey, envelope.ScopeLog, evidence.HardMaxBytes); err != nil {
			t.Fatalf("the owner opens %s: %v", pid, err)
		}
		// Another account, with a registered key but no grant, is refused,
		// and is told nothing of the bundle.
		if s, err := gw.StepLog(ctx, a.Key(2), owner, "1", pid); err == nil || !strings.Contains(err.Error(), "may not read") {
			t.Fatalf("another account reads %s: %+v %v", pid, s, err)
		}
		if s, err := gw.StepLog(ctx, a.Key(2), owner, "1", "1:99"); err == nil || !strings.Contains(err.Error(), "may not read") {
			t.Fatalf("another account on a process without a bundle: %+v %v", s, err)
		}
	}

	keys, err := redisscan.Keys(ctx, rdb, "*")
	if err != nil {
		t.Fatal(err)
	}
	logs := 0
	for _, k := range keys {
		vals := redisValues(t, ctx, rdb, k)
		text := strings.Join(vals, " ")
		// The session's own records hold its payload (live state, gone at
		// the session TTL); nothing else may: no bundle, no grant, no index.
		if (strings.Contains(text, "C01X00T47") || strings.Contains(text, "Mustermann")) && !strings.HasPrefix(k, "xgr:{"+owner+":1}:") {
			t.Fatalf("plaintext of an encrypted bundle in %s", k)
		}
		if strings.HasPrefix(k, "xgr:log:") {
			logs++
			if v := rdb.HGet(ctx, k, "enc").Val(); v != "1" {
				t.Fatalf("%s: enc %q, want 1", k, v)
			}
		}
	}
	if logs != len(steps) {
		t.Fatalf("%d bundle keys, want %d", logs, len(steps))
	}
}
