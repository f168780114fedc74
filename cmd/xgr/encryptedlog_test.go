package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/envelope"
	"github.com/xgr-sidecar/xgr/evidence"
	"github.com/xgr-sidecar/xgr/grant"
	"github.com/xgr-sidecar/xgr/internal/redisscan"
	"github.com/xgr-sidecar/xgr/testenv"
)

// xgr run --log-bundles --key-registry seals the bundle of an encryptLogs
// branch for the owner's and the granted auditor's registered read keys:
// the auditor's grant opens it with the auditor's key, another key opens
// nothing, and no key or value in Redis but the session's own live records
// holds its plaintext.
func TestRunEncryptsLogBundles(t *testing.T) {
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
	stranger, _ := envelope.GenerateReadKey()
	for i, k := range []*envelope.ReadKey{ownerKey, auditorKey} {
		if _, err := reg.Register(ctx, testenv.Sender(t, a, i), k.Public().Bytes()); err != nil {
			t.Fatal(err)
		}
	}
	owner, auditor := strings.ToLower(a.Address(0).Hex()), strings.ToLower(a.Address(1).Hex())
	const secret = "PASSPORT-X1234567-SECRET"
	ostc := writeFile(t, "kyc.json", `{"id": "kyc", "structure": {"KYC": {"rule": "<kyc>"}}}`)
	rules := ruleDir(t, map[string]string{"kyc.json": `{"payload": {"passport": {"type": "string"}}, "rules": ["[passport] != ''"],
		"onValid": {"payload": {"checked": "[passport]"}, "encryptLogs": true, "grants": [{"address": "` + auditor + `", "rights": 1}]}}`})
	payload := writeFile(t, "p.json", `{"passport": "`+secret+`"}`)
	stop := startReplica(t, "--redis", url, "--rpc", a.URL, "--ostc", ostc, "--rules", rules, "--poll", "20ms",
		"--log-bundles", "--key-registry", reg.Address.Hex())
	defer stop()
	if out, code := run(t, "session", "start", ostc, "--payload", payload, "--redis", url, "--owner", owner); code != 0 {
		t.Fatalf("start: %d %s", code, out)
	}
	waitStatusOf(t, url, owner, 1, "finished")

	out, code := run(t, "session", "log", "--redis", url, "--owner", owner, "1", "1", "--json")
	var l evidence.Log
	if code != 0 || json.Unmarshal([]byte(out), &l) != nil || !l.Encrypted || !strings.HasPrefix(l.Blob, "XGR1.") || len(l.Bundle) != 0 {
		t.Fatalf("session log: %d %s", code, out)
	}
	rid, err := grant.ParseRID(l.RID)
	if err != nil {
		t.Fatal(err)
	}
	gs := grant.New(rdb)
	for who, k := range map[string]*envelope.ReadKey{owner: ownerKey, auditor: auditorKey} {
		g, err := gs.Get(ctx, rid, grant.ScopeLog, who)
		if err != nil || g == nil {
			t.Fatalf("%s: grant %+v %v", who, g, err)
		}
		plain, err := envelope.Open(l.Blob, g.EncDEK, k, envelope.ScopeLog, evidence.HardMaxBytes)
		var b evidence.Bundle
		if err != nil || json.Unmarshal(plain, &b) != nil || b.Step != "KYC" || !strings.Contains(string(b.Payload), secret) || b.Outcome.Result != evidence.Valid {
			t.Fatalf("%s opens: %v %s", who, err, plain)
		}
		if _, err := envelope.Open(l.Blob, g.EncDEK, stranger, envelope.ScopeLog, evidence.HardMaxBytes); err == nil {
			t.Fatalf("another key opened %s's wrapped key", who)
		}
	}
	keys, err := redisscan.Keys(ctx, rdb, "*")
	if err != nil {
		t.Fatal(err)
	}
	logs := 0
	for _, k := range keys {
		vals := redisValues(t, ctx, rdb, k)
		// The session's own records hold its payload (live state, gone at
		// the session TTL); nothing else may: not the bundle, not a grant.
		if strings.Contains(strings.Join(vals, " "), secret) && !strings.HasPrefix(k, "xgr:{"+owner+":1}:") {
			t.Fatalf("plaintext of the encrypted bundle in %s", k)
		}
		if strings.HasPrefix(k, "xgr:log:") {
			logs++
		}
	}
	if logs != 1 {
		t.Fatalf("%d bundle keys, want 1", logs)
	}
}

// redisValues is every field and value a key holds, as text, for scans
// that look for plaintext in Redis.
func redisValues(t *testing.T, ctx context.Context, rdb redis.UniversalClient, k string) []string {
	t.Helper()
	var vals []string
	switch typ := rdb.Type(ctx, k).Val(); typ {
	case "hash":
		for f, v := range rdb.HGetAll(ctx, k).Val() {
			vals = append(vals, f, v)
		}
	case "zset":
		vals = rdb.ZRange(ctx, k, 0, -1).Val()
	case "list":
		vals = rdb.LRange(ctx, k, 0, -1).Val()
	case "set":
		vals = rdb.SMembers(ctx, k).Val()
	case "string":
		vals = []string{rdb.Get(ctx, k).Val()}
	case "stream":
		for _, m := range rdb.XRange(ctx, k, "-", "+").Val() {
			for f, v := range m.Values {
				vals = append(vals, f, jsonText(v))
			}
		}
	default:
		t.Fatalf("%s: type %s not scanned", k, typ)
	}
	return vals
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
