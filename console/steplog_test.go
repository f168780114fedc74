package console

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/envelope"
	"github.com/xgr-sidecar/xgr/evidence"
	"github.com/xgr-sidecar/xgr/grant"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/logseal"
	"github.com/xgr-sidecar/xgr/testenv"
)

// testAuditor is a grantee of the test bundles (READ).
const testAuditor = "0x00000000000000000000000000000000000000bb"

// testSecret is in the payload of every encrypted test bundle: it must
// reach neither the page nor a log.
const testSecret = "PASSPORT-X1234567-SECRET"

// readKeys is an XRC-563 key registry in memory: the owner's and the
// auditor's registered read public keys.
type readKeys map[common.Address][]byte

func (k readKeys) ReadKey(_ context.Context, a common.Address) ([]byte, error) { return k[a], nil }

// bundleStores are a bundle store that seals encryptLogs bundles for the
// registered read keys of testOwner and testAuditor (real XGR1 envelopes;
// the keys are thrown away: nothing here can open them), and its grants.
func bundleStores(t *testing.T, rdb redis.UniversalClient) (*evidence.Store, *grant.Store) {
	t.Helper()
	keys := readKeys{}
	for _, a := range []string{testOwner, testAuditor} {
		k, err := envelope.GenerateReadKey()
		if err != nil {
			t.Fatal(err)
		}
		keys[common.HexToAddress(a)] = k.Public().Bytes()
	}
	gs := grant.New(rdb)
	ev, err := evidence.New(rdb, evidence.Config{Grants: gs, Sealer: &logseal.Sealer{Keys: keys}})
	if err != nil {
		t.Fatal(err)
	}
	return ev, gs
}

// auditorPolicy grants the auditor READ; encrypt seals the bundle.
func auditorPolicy(encrypt bool) evidence.Policy {
	return evidence.Policy{ExpireDays: 7, Encrypt: encrypt, Grants: []evidence.Reader{{Address: testAuditor, Rights: grant.Read}}}
}

const testTx = "0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060"

func TestStepLog(t *testing.T) {
	srv := testenv.StartRedis(t)
	rdb := srv.Client()
	ev, gs := bundleStores(t, rdb)
	ctx := context.Background()
	now := time.Now()
	plain := &evidence.Bundle{Owner: testOwner, SessionID: 1, Pid: "1:1", Iter: 1, Step: "A1", Rule: "0x00000000000000000000000000000000000000a1",
		RuleHash: "0x1111111111111111111111111111111111111111111111111111111111111111", Executed: 1,
		Payload:  json.RawMessage(`{"amount":18446744073709551617,"price":0.1000000000000000055511151231257827}`),
		APISaves: json.RawMessage(`{"fx":"1.08"}`), ContractSaves: json.RawMessage(`{"limit":900000000000000000001}`),
		Outcome: evidence.Outcome{Result: evidence.Valid, Output: json.RawMessage(`{"checked":true}`)},
		Receipt: &evidence.Receipt{TxHash: testTx, Block: 9007199254740993, GasUsed: 48211, Status: "success"}, Time: now.UnixMilli()}
	if _, err := ev.Put(ctx, plain, auditorPolicy(false), now); err != nil {
		t.Fatal(err)
	}
	sealed := *plain
	sealed.Pid, sealed.Iter, sealed.Payload = "1:2", 2, json.RawMessage(`{"passport":"`+testSecret+`"}`)
	sealed.Outcome = evidence.Outcome{Result: evidence.Invalid, Reasons: []string{"passport " + testSecret + " refused"}}
	st, err := ev.Put(ctx, &sealed, auditorPolicy(true), now)
	if err != nil || !st.Encrypted {
		t.Fatalf("sealed bundle: %+v %v", st, err)
	}
	var logs bytes.Buffer
	c := New(Config{Store: joinstore.New(rdb, joinstore.Config{}), Bundles: ev, Grants: gs, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	hs := httptest.NewServer(c.Handler())
	t.Cleanup(func() { c.Close(); hs.Close() })
	get := func(q string) (int, string) {
		return do(t, http.MethodGet, hs.URL+"/ui/api/steplog?owner="+testOwner+"&root=1&"+q, "", false)
	}

	code, body := get("pid=1:1")
	var v StepLogView
	if code != 200 || json.Unmarshal([]byte(body), &v) != nil {
		t.Fatalf("plaintext bundle: %d %s", code, body)
	}
	b := v.Bundle
	if v.Encrypted || b == nil || v.RID != evidence.LogRID(testOwner, 1, 1).String() || b.Step != "A1" || b.Rule != plain.Rule || b.RuleHash != plain.RuleHash || b.Result != "valid" {
		t.Fatalf("plaintext bundle: %s", body)
	}
	if r := b.Receipt; r == nil || r.TxHash != testTx || r.Block != "9007199254740993" || r.GasUsed != "48211" || r.Status != "success" {
		t.Fatalf("receipt: %+v", b.Receipt)
	}
	// The sections are the stored text: every digit.
	if b.Payload != string(plain.Payload) || b.ContractSaves != `{"limit":900000000000000000001}` || b.APISaves != `{"fx":"1.08"}` || b.Output != `{"checked":true}` {
		t.Fatalf("sections: %+v", b)
	}
	if exp := time.UnixMilli(v.ExpiresAt); exp.Before(now.Add(7*24*time.Hour-time.Minute)) || exp.After(now.Add(7*24*time.Hour+time.Minute)) {
		t.Errorf("expires %s, want in 7 days", exp)
	}
	if len(v.Readers) != 2 || !hasReader(v.Readers, testOwner, "owner") || !hasReader(v.Readers, testAuditor, "read") {
		t.Errorf("readers %+v", v.Readers)
	}
	// The iteration alone names the same process.
	if code, body2 := get("pid=1"); code != 200 || !strings.Contains(body2, testTx) {
		t.Errorf("pid=1: %d %s", code, body2)
	}

	code, body = get("pid=1:2")
	v = StepLogView{}
	if code != 200 || json.Unmarshal([]byte(body), &v) != nil {
		t.Fatalf("encrypted bundle: %d %s", code, body)
	}
	if !v.Encrypted || v.Bundle != nil || v.RID != st.RID.String() || v.Bytes != st.Bytes || v.ExpiresAt == 0 {
		t.Fatalf("encrypted bundle: %s", body)
	}
	if !hasReader(v.Readers, testOwner, "owner") || !hasReader(v.Readers, testAuditor, "read") {
		t.Errorf("encrypted bundle's readers %+v", v.Readers)
	}
	// Neither its plaintext nor its envelope nor a wrapped key.
	for _, bad := range []string{testSecret, "passport", "XGR1.", "XGRK2", "encDEK", `"step"`} {
		if strings.Contains(body, bad) {
			t.Errorf("the encrypted bundle's answer holds %q: %s", bad, body)
		}
	}

	for q, want := range map[string]int{
		"pid=1:3": 404, "pid=2:1": 400, "pid=x": 400, "pid=": 400, "pid=1:-1": 400, "pid=1:0": 400,
		"pid=" + strings.Repeat("1", 50): 400, "pid=1:99999999999999999999": 400,
	} {
		if code, body := get(q); code != want {
			t.Errorf("%s: %d %s, want %d", q, code, body, want)
		}
	}
	if code, body := do(t, http.MethodGet, hs.URL+"/ui/api/steplog?owner=nobody&root=1&pid=1:1", "", false); code != 400 {
		t.Errorf("bad owner: %d %s", code, body)
	}
	if strings.Contains(logs.String(), testSecret) {
		t.Errorf("the log holds the secret: %s", logs.String())
	}

	// A replica that reads no bundles says so.
	off := New(Config{Store: joinstore.New(rdb, joinstore.Config{})})
	rec := httptest.NewRecorder()
	off.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/ui/api/steplog?owner="+testOwner+"&root=1&pid=1:1", nil))
	if rec.Code != 404 || !strings.Contains(rec.Body.String(), "reads no log bundles") {
		t.Errorf("without bundles: %d %s", rec.Code, rec.Body)
	}
}

func hasReader(rs []ReaderView, addr, rights string) bool {
	for _, r := range rs {
		if r.Address == addr && r.Rights == rights && r.ExpireAt > 0 {
			return true
		}
	}
	return false
}

// A stored body that is not its process's bundle is refused without
// quoting it.
func TestBundleViewRefuses(t *testing.T) {
	root := joinstore.Root{Owner: testOwner, RootPid: 1}
	for _, body := range []string{`not json ` + testSecret, `{"owner":"` + testAuditor + `","sessionId":1,"iter":1,"payload":{"s":"` + testSecret + `"}}`,
		`{"owner":"` + testOwner + `","sessionId":1,"iter":2}`} {
		if _, err := bundleView([]byte(body), root, 1); err == nil || strings.Contains(err.Error(), testSecret) {
			t.Errorf("%s: %v", body, err)
		}
	}
}

func TestRightsText(t *testing.T) {
	for _, c := range []struct {
		r     uint8
		owner bool
		want  string
	}{{grant.Read, false, "read"}, {grant.All, false, "read, write, manage"}, {grant.Manage, false, "manage"}, {grant.All, true, "owner"}} {
		if got := rightsText(c.r, c.owner); got != c.want {
			t.Errorf("rights %d owner %v: %q, want %q", c.r, c.owner, got, c.want)
		}
	}
}
