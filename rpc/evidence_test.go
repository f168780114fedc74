package rpc_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/authority"
	"github.com/xgr-sidecar/xgr/evidence"
	"github.com/xgr-sidecar/xgr/grant"
	"github.com/xgr-sidecar/xgr/indexer"
	"github.com/xgr-sidecar/xgr/internal/redisscan"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/rpc"
	"github.com/xgr-sidecar/xgr/rpc/client"
	"github.com/xgr-sidecar/xgr/testenv"
)

// evGateway is a gateway with grants and log bundles on rdb.
type evGateway struct {
	*gateway
	ev     *evidence.Store
	grants *grant.Store
}

func newEvidenceGateway(t *testing.T, rdb redis.UniversalClient) *evGateway {
	t.Helper()
	return newEvidenceGatewayWith(t, rdb, nil, nil)
}

// newEvidenceGatewayWith is newEvidenceGateway with a sealer for encrypted
// bundles and a logger (each may be nil).
func newEvidenceGatewayWith(t *testing.T, rdb redis.UniversalClient, sealer evidence.Sealer, log *slog.Logger) *evGateway {
	t.Helper()
	return newEvidenceGatewayCfg(t, rdb, sealer, log, nil)
}

// newEvidenceGatewayCfg is newEvidenceGatewayWith with a last change to
// the gateway's config (nil: none).
func newEvidenceGatewayCfg(t *testing.T, rdb redis.UniversalClient, sealer evidence.Sealer, log *slog.Logger, edit func(*rpc.Config)) *evGateway {
	t.Helper()
	o, err := registry_Parse(flowText)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := testenv.DevKeys(3)
	if err != nil {
		t.Fatal(err)
	}
	gs := grant.New(rdb)
	ev, err := evidence.New(rdb, evidence.Config{Grants: gs, Sealer: sealer})
	if err != nil {
		t.Fatal(err)
	}
	g := &gateway{t: t, rdb: rdb, store: joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour}), orch: o, keys: keys,
		owners: &owners{m: map[common.Address]common.Address{xrc729: addr(keys[0])}}}
	cfg := rpc.Config{Store: g.store, Source: reactor.NewStaticSource(o), Authority: authority.NewChecker(g.owners).WithRules(scriptedRules),
		Registries: &indexer.Followed{Registries: []common.Address{xrc729}}, ChainID: chainID, ControlContract: precomp, Skew: time.Second,
		GrantStore: gs, Evidence: ev, Log: log}
	if edit != nil {
		edit(&cfg)
	}
	svc, err := rpc.NewService(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := rpc.NewServer(svc, rpc.ServerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { hs.Close(); srv.Stop() })
	if g.client, err = client.Dial(context.Background(), hs.URL); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.client.Close)
	return &evGateway{gateway: g, ev: ev, grants: gs}
}

// putBundle stores the log bundle of process iter of owner's session 9,
// readable by the given grantees.
func (g *evGateway) putBundle(t *testing.T, owner string, iter int64, readers ...evidence.Reader) *evidence.Stored {
	t.Helper()
	b := &evidence.Bundle{Owner: owner, SessionID: 9, Pid: fmt.Sprintf("9:%d", iter), Iter: iter, Step: "A1", Executed: iter,
		Payload: json.RawMessage(`{"secretPayload":"P-123","n":18446744073709551617}`), Outcome: evidence.Outcome{Result: evidence.Valid, Output: json.RawMessage(`{"ok":true}`)},
		Time: time.Now().UnixMilli()}
	st, err := g.ev.Put(context.Background(), b, evidence.Policy{Grants: readers}, time.Now())
	if err != nil || !st.Created {
		t.Fatalf("put: %+v %v", st, err)
	}
	return st
}

// countKeys counts every key (on every master of a cluster).
func countKeys(t *testing.T, rdb redis.UniversalClient) int {
	t.Helper()
	keys, err := redisscan.Keys(context.Background(), rdb, "*")
	if err != nil {
		t.Fatal(err)
	}
	return len(keys)
}

// bodyReads counts commands that read a log bundle's body.
func bodyReads(cmds [][]string) int {
	n := 0
	for _, c := range cmds {
		if len(c) > 1 && strings.HasPrefix(c[1], "xgr:log:") {
			name := strings.ToLower(c[0])
			if name == "hgetall" || name == "get" || (name == "hget" || name == "hmget") && strings.Contains(strings.Join(c[2:], " "), "body") {
				n++
			}
		}
	}
	return n
}

// TestStepLogReaders: xgr_getStepLog gives the bundle to the session
// owner and to a grantee with READ; a stranger, a grantee whose grant has
// no READ, a revoked grantee and anyone asking for a bundle that does not
// exist get the same refusal, and none of them makes the gateway read a
// bundle's body. Single Redis and a 3-master Cluster.
func TestStepLogReaders(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		g := newEvidenceGateway(t, rdb)
		ctx := context.Background()
		ownerKey, auditorKey, strangerKey := g.keys[0], g.keys[1], g.keys[2]
		own := lower(addr(ownerKey))
		g.putBundle(t, own, 1, evidence.Reader{Address: lower(addr(auditorKey)), Rights: grant.Read})
		g.putBundle(t, own, 2, evidence.Reader{Address: lower(addr(auditorKey)), Rights: grant.RightWrite | grant.Manage})
		log := hook(t, g.gateway)

		for name, key := range map[string]*ecdsa.PrivateKey{"owner": ownerKey, "auditor": auditorKey} {
			var res *rpc.StepLog
			var err error
			cmds := log.during(func() { res, err = g.client.StepLog(ctx, key, own, "9", "1") })
			if bodyReads(cmds) != 1 {
				t.Fatalf("%s: an allowed read sent %d body reads, want 1 (the counter is broken): %v", name, bodyReads(cmds), cmds)
			}
			if err != nil || res.Encrypted || !strings.Contains(string(res.Bundle), `"n":18446744073709551617`) || res.Pid != "9:1" {
				t.Fatalf("%s: %+v %v", name, res, err)
			}
		}
		for name, tc := range map[string]struct {
			key *ecdsa.PrivateKey
			pid string
		}{
			"stranger":                 {strangerKey, "1"},
			"grantee without READ":     {auditorKey, "2"},
			"stranger, no such bundle": {strangerKey, "3"},
		} {
			var err error
			cmds := log.during(func() { _, err = g.client.StepLog(ctx, tc.key, own, "9", tc.pid) })
			refused(t, err, rpc.CodeUnauthorized, "not-a-reader")
			if n := bodyReads(cmds); n != 0 {
				t.Fatalf("%s: a refused read read the bundle's body (%d commands): %v", name, n, cmds)
			}
			if strings.Contains(err.Error(), "P-123") {
				t.Fatalf("%s: the refusal holds the payload: %v", name, err)
			}
		}
		// The owner asking for a bundle that does not exist: not found.
		_, err := g.client.StepLog(ctx, ownerKey, own, "9", "3")
		refused(t, err, rpc.CodeNotFound, "unknown-log")

		// The owner revokes the auditor: the auditor reads nothing.
		st, _ := g.ev.Head(ctx, own, 9, 1)
		res, err := g.client.ManageGrants(ctx, ownerKey, rpc.ManageGrantsRequest{RID: st.RID.String(), Scope: json.RawMessage(`2`), Owner: own,
			Entries: []rpc.GrantEntry{{Grantee: lower(addr(auditorKey)), Rights: 0}}})
		if err != nil || res.Revoked != 1 {
			t.Fatalf("revoke: %+v %v", res, err)
		}
		cmds := log.during(func() { _, err = g.client.StepLog(ctx, auditorKey, own, "9", "1") })
		refused(t, err, rpc.CodeUnauthorized, "not-a-reader")
		if bodyReads(cmds) != 0 {
			t.Fatalf("a revoked grantee's read read the body: %v", cmds)
		}
		// Bad input: refused before the permit.
		_, err = g.client.StepLog(ctx, ownerKey, own, "9", "8:1")
		refused(t, err, rpc.CodeInvalidParams, "invalid-params")
	})
}

// TestManageAndListGrants: the owner of a bundle grants and revokes over
// xgr_manageGrants; a stranger, a signer that is not the request's owner
// and malformed requests are refused and write nothing; xgr_listGrants
// lists the caller's grants, all of a RID for its owner, with filters and
// the cursor. Single Redis and a 3-master Cluster.
func TestManageAndListGrants(t *testing.T) {
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		g := newEvidenceGateway(t, rdb)
		ctx := context.Background()
		ownerKey, auditorKey, strangerKey := g.keys[0], g.keys[1], g.keys[2]
		own, aud, str := lower(addr(ownerKey)), lower(addr(auditorKey)), lower(addr(strangerKey))
		st1 := g.putBundle(t, own, 1)
		st2 := g.putBundle(t, own, 2)
		exp := uint64(time.Now().Add(time.Hour).Unix())
		upsert := func(key *ecdsa.PrivateKey, req rpc.ManageGrantsRequest) (*rpc.ManageGrantsResult, error) {
			return g.client.ManageGrants(ctx, key, req)
		}
		for _, st := range []*evidence.Stored{st1, st2} {
			res, err := upsert(ownerKey, rpc.ManageGrantsRequest{RID: st.RID.String(), Scope: json.RawMessage(`"2"`), Owner: own, SessionID: json.RawMessage(`"9"`),
				Entries: []rpc.GrantEntry{{Grantee: aud, Rights: grant.Read, ExpireAt: exp}}})
			if err != nil || res.Upserted != 1 {
				t.Fatalf("owner grants: %+v %v", res, err)
			}
		}
		if _, err := g.client.StepLog(ctx, auditorKey, own, "9", "2"); err != nil {
			t.Fatalf("granted auditor: %v", err)
		}
		keys := countKeys(t, rdb)
		for name, tc := range map[string]struct {
			key          *ecdsa.PrivateKey
			req          rpc.ManageGrantsRequest
			code         int
			reason, path string
		}{
			"stranger grants itself": {strangerKey, rpc.ManageGrantsRequest{RID: st1.RID.String(), Scope: json.RawMessage(`2`), Owner: str,
				Entries: []rpc.GrantEntry{{Grantee: str, Rights: grant.Read, ExpireAt: exp}}}, rpc.CodeUnauthorized, "not-manager", ""},
			"reader grants onward": {auditorKey, rpc.ManageGrantsRequest{RID: st1.RID.String(), Scope: json.RawMessage(`2`), Owner: aud,
				Entries: []rpc.GrantEntry{{Grantee: str, Rights: grant.Read, ExpireAt: exp}}}, rpc.CodeUnauthorized, "not-manager", ""},
			"signer is not the owner": {strangerKey, rpc.ManageGrantsRequest{RID: st1.RID.String(), Scope: json.RawMessage(`2`), Owner: own,
				Entries: []rpc.GrantEntry{{Grantee: str, Rights: grant.Read, ExpireAt: exp}}}, rpc.CodeUnauthorized, "owner-mismatch", "owner"},
			"owner makes another owner": {ownerKey, rpc.ManageGrantsRequest{RID: st1.RID.String(), Scope: json.RawMessage(`2`), Owner: own,
				Entries: []rpc.GrantEntry{{Grantee: str, Rights: grant.Read, ExpireAt: exp, IsOwner: true}}}, rpc.CodeUnauthorized, "owner-entry", "entries[0].isOwner"},
			"scope 3": {ownerKey, rpc.ManageGrantsRequest{RID: st1.RID.String(), Scope: json.RawMessage(`3`), Owner: own,
				Entries: []rpc.GrantEntry{{Grantee: str, Rights: grant.Read, ExpireAt: exp}}}, rpc.CodeInvalidParams, "invalid-params", "scope"},
			"expired entry": {ownerKey, rpc.ManageGrantsRequest{RID: st1.RID.String(), Scope: json.RawMessage(`2`), Owner: own,
				Entries: []rpc.GrantEntry{{Grantee: str, Rights: grant.Read, ExpireAt: 1000}}}, rpc.CodeInvalidParams, "invalid-params", "entries[0].expireAt"},
			"bad rid": {ownerKey, rpc.ManageGrantsRequest{RID: "0x12", Scope: json.RawMessage(`2`), Owner: own,
				Entries: []rpc.GrantEntry{{Grantee: str, Rights: grant.Read, ExpireAt: exp}}}, rpc.CodeInvalidParams, "invalid-params", "rid"},
			"no entries": {ownerKey, rpc.ManageGrantsRequest{RID: st1.RID.String(), Scope: json.RawMessage(`2`), Owner: own}, rpc.CodeInvalidParams, "invalid-params", "entries"},
		} {
			_, err := upsert(tc.key, tc.req)
			refused(t, err, tc.code, tc.reason)
			if tc.path != "" && !strings.Contains(err.Error(), tc.path) {
				t.Errorf("%s: the refusal does not name %s: %v", name, tc.path, err)
			}
			if n := countKeys(t, rdb); n != keys {
				t.Fatalf("%s: a refused change wrote keys (%d -> %d)", name, keys, n)
			}
		}

		// Listing: the auditor's own grants, one page at a time.
		var seen []string
		var cursor any
		for i := 0; i < 5; i++ {
			page, err := g.client.ListGrants(ctx, auditorKey, map[string]any{"limit": 1, "cursor": cursor, "scope": 2})
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range page.Items {
				if it.Grantee != aud || it.Owner != own || it.Rights != grant.Read || it.ExpiresAt != int64(exp) || it.SessionID != "9" {
					t.Fatalf("listed: %+v", it)
				}
				seen = append(seen, it.RID)
			}
			if page.NextCursor == 0 {
				break
			}
			cursor = page.NextCursor
		}
		if len(seen) != 2 || seen[0] == seen[1] {
			t.Fatalf("auditor's grants over pages: %v", seen)
		}
		// The owner sees every grant of its RID; the stranger sees nothing.
		page, err := g.client.ListGrants(ctx, ownerKey, map[string]any{"rid": st1.RID.String(), "scope": 2})
		if err != nil || len(page.Items) != 2 {
			t.Fatalf("owner's RID view: %+v %v", page, err)
		}
		page, err = g.client.ListGrants(ctx, strangerKey, map[string]any{"rid": st1.RID.String(), "scope": 2})
		if err != nil || len(page.Items) != 0 {
			t.Fatalf("stranger's RID view: %+v %v", page, err)
		}
		_, err = g.client.ListGrants(ctx, auditorKey, map[string]any{"limit": 100000})
		refused(t, err, rpc.CodeInvalidParams, "invalid-params")
		_, err = g.client.ListGrants(ctx, auditorKey, map[string]any{"grantee": aud})
		refused(t, err, rpc.CodeInvalidParams, "invalid-params")

		// A rule RID (scope 1) is not taken by its first writer: it is its
		// rule contract's owner's (TestRuleRIDFollowsTheContractOwner), and
		// a change that names no contract is refused.
		rid := "0x" + strings.Repeat("5a", 32)
		_, err = upsert(strangerKey, rpc.ManageGrantsRequest{RID: rid, Scope: json.RawMessage(`1`), Owner: str,
			Entries: []rpc.GrantEntry{{Grantee: str, Rights: grant.All, ExpireAt: exp, IsOwner: true, EncDEK: "XGRK2.P256HKDFGCM.00"}}})
		refused(t, err, rpc.CodeUnauthorized, "rule-contract-required")
	})
}

// opaqueSealer stands in for package envelope: its "envelope" is a hash of
// the plaintext (nothing of it readable), each reader's key a hash too.
type opaqueSealer struct{}

func (opaqueSealer) Seal(_ context.Context, plain []byte, readers []string) (*evidence.Sealed, error) {
	rid := grant.RID(sha256.Sum256(plain))
	out := &evidence.Sealed{RID: rid, Blob: "XGR1.AESGCM256." + rid.String() + "." + hex.EncodeToString(rid[:]), Wrapped: map[string]string{}}
	for _, r := range readers {
		sum := sha256.Sum256([]byte(r))
		out.Wrapped[r] = "XGRK2.P256HKDFGCM." + hex.EncodeToString(sum[:])
	}
	return out, nil
}

// TestEncryptedStepLog: an encrypted bundle reaches its owner and its
// auditor as the envelope with each one's own wrapped key; a stranger is
// refused; neither Redis nor the gateway's log holds any of the plaintext.
func TestEncryptedStepLog(t *testing.T) {
	rdb := testenv.StartRedis(t).Client()
	var logs bytes.Buffer
	g := newEvidenceGatewayWith(t, rdb, opaqueSealer{}, slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	ctx := context.Background()
	ownerKey, auditorKey, strangerKey := g.keys[0], g.keys[1], g.keys[2]
	own, aud := lower(addr(ownerKey)), lower(addr(auditorKey))
	const secret = "KYC-DOC-99881234"
	b := &evidence.Bundle{Owner: own, SessionID: 9, Pid: "9:1", Iter: 1, Step: "KYC", Executed: 1,
		Payload: json.RawMessage(`{"document":"` + secret + `"}`), Outcome: evidence.Outcome{Result: evidence.Valid, Output: json.RawMessage(`{"kyc":"` + secret + `-ok"}`)},
		Time: time.Now().UnixMilli()}
	st, err := g.ev.Put(ctx, b, evidence.Policy{Encrypt: true, Grants: []evidence.Reader{{Address: aud, Rights: grant.Read}}}, time.Now())
	if err != nil || !st.Encrypted {
		t.Fatalf("put: %+v %v", st, err)
	}
	keys := map[string]string{}
	for name, key := range map[string]*ecdsa.PrivateKey{"owner": ownerKey, "auditor": auditorKey} {
		res, err := g.client.StepLog(ctx, key, own, "9", "1")
		if err != nil || !res.Encrypted || res.Bundle != nil || !strings.HasPrefix(res.Blob, "XGR1.AESGCM256."+st.RID.String()) || !strings.HasPrefix(res.EncDEK, "XGRK2.") {
			t.Fatalf("%s: %+v %v", name, res, err)
		}
		keys[name] = res.EncDEK
	}
	if keys["owner"] == keys["auditor"] {
		t.Fatal("owner and auditor got the same wrapped key")
	}
	_, err = g.client.StepLog(ctx, strangerKey, own, "9", "1")
	refused(t, err, rpc.CodeUnauthorized, "not-a-reader")
	if _, err := g.client.ManageGrants(ctx, ownerKey, rpc.ManageGrantsRequest{RID: st.RID.String(), Scope: json.RawMessage(`2`), Owner: own,
		Entries: []rpc.GrantEntry{{Grantee: aud}}}); err != nil {
		t.Fatal(err)
	}
	keysAll, _ := redisscan.Keys(ctx, rdb, "*")
	for _, k := range keysAll {
		var v string
		switch rdb.Type(ctx, k).Val() {
		case "hash":
			v = fmt.Sprint(rdb.HGetAll(ctx, k).Val())
		case "zset":
			v = fmt.Sprint(rdb.ZRange(ctx, k, 0, -1).Val())
		default:
			v = rdb.Get(ctx, k).Val()
		}
		if strings.Contains(k+v, secret) {
			t.Fatalf("%s holds the plaintext", k)
		}
	}
	if logs.Len() == 0 || strings.Contains(logs.String(), secret) {
		t.Fatalf("gateway log (%d bytes) holds the plaintext or is empty:\n%s", logs.Len(), logs.String())
	}
}
