package logseal

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/envelope"
	"github.com/xgr-sidecar/xgr/evidence"
	"github.com/xgr-sidecar/xgr/grant"
	"github.com/xgr-sidecar/xgr/internal/redisscan"
	"github.com/xgr-sidecar/xgr/testenv"
)

const secret = "PASSPORT-X1234567-SECRET"

func lower(a common.Address) string { return strings.ToLower(a.Hex()) }

// An encryptLogs bundle sealed with the keys the owner and an auditor
// registered in an XRC-563 registry on anvil: the auditor's grant opens
// it with the auditor's read key, another key opens nothing, a grantee
// without a registered key is reported and gets no grant, and Redis holds
// no plaintext of it.
func TestSealWithRegisteredKeys(t *testing.T) {
	a := testenv.StartAnvil(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	reg, _, err := chain.DeployKeyRegistry(ctx, testenv.Sender(t, a, 0))
	if err != nil {
		t.Fatal(err)
	}
	ownerKey, _ := envelope.GenerateReadKey()
	auditorKey, _ := envelope.GenerateReadKey()
	otherKey, _ := envelope.GenerateReadKey()
	if _, err := reg.Register(ctx, testenv.Sender(t, a, 0), ownerKey.Public().Bytes()); err != nil {
		t.Fatal(err)
	}
	if _, err := reg.Register(ctx, testenv.Sender(t, a, 1), auditorKey.Public().Bytes()); err != nil {
		t.Fatal(err)
	}
	owner, auditor, nokey := lower(a.Address(0)), lower(a.Address(1)), lower(a.Address(2))

	rdb := testenv.StartRedis(t).Client()
	grants := grant.New(rdb)
	store, err := evidence.New(rdb, evidence.Config{Grants: grants, Sealer: &Sealer{Keys: reg}})
	if err != nil {
		t.Fatal(err)
	}
	b := &evidence.Bundle{Owner: owner, SessionID: 9, Pid: "9:1", Iter: 1, Step: "KYC",
		Payload: json.RawMessage(`{"passport":"` + secret + `"}`), Outcome: evidence.Outcome{Result: evidence.Valid}, Time: time.Now().UnixMilli()}
	p := evidence.Policy{Encrypt: true, Grants: []evidence.Reader{{Address: auditor, Rights: grant.Read}, {Address: nokey, Rights: grant.Read}}}
	st, err := store.Put(ctx, b, p, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if !st.Created || !st.Encrypted || len(st.Unwrapped) != 1 || st.Unwrapped[0] != nokey {
		t.Fatalf("stored %+v", st)
	}
	blob, err := store.Body(ctx, owner, 9, 1)
	if err != nil {
		t.Fatal(err)
	}
	for who, k := range map[string]*envelope.ReadKey{owner: ownerKey, auditor: auditorKey} {
		g, err := grants.Get(ctx, st.RID, grant.ScopeLog, who)
		if err != nil || g == nil {
			t.Fatalf("%s: grant %v %v", who, g, err)
		}
		pt, err := envelope.Open(blob, g.EncDEK, k, envelope.ScopeLog, evidence.HardMaxBytes)
		if err != nil || !strings.Contains(string(pt), secret) {
			t.Fatalf("%s: open: %v", who, err)
		}
		if _, err := envelope.Open(blob, g.EncDEK, otherKey, envelope.ScopeLog, evidence.HardMaxBytes); err == nil {
			t.Fatalf("another key opened %s's wrapped key", who)
		}
		if _, err := envelope.Open(blob, g.EncDEK, k, envelope.ScopeRule, evidence.HardMaxBytes); err == nil {
			t.Fatalf("%s's log key opened in the rule scope", who)
		}
	}
	if g, _ := grants.Get(ctx, st.RID, grant.ScopeLog, nokey); g != nil {
		t.Fatalf("a grantee without a key got a grant: %+v", g)
	}
	keys, err := redisscan.Keys(ctx, rdb, "*")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		var text string
		switch rdb.Type(ctx, k).Val() {
		case "hash":
			text = strings.Join(flatten(rdb.HGetAll(ctx, k).Val()), " ")
		case "zset":
			text = strings.Join(rdb.ZRange(ctx, k, 0, -1).Val(), " ")
		case "string":
			text = rdb.Get(ctx, k).Val()
		case "set":
			text = strings.Join(rdb.SMembers(ctx, k).Val(), " ")
		default:
			t.Fatalf("%s: type %s not scanned", k, rdb.Type(ctx, k).Val())
		}
		if strings.Contains(text, secret) || strings.Contains(text, "passport") {
			t.Fatalf("plaintext of an encrypted bundle in %s", k)
		}
	}
	if len(keys) < 2 {
		t.Fatalf("scanned %d keys: %v", len(keys), keys)
	}
}

func flatten(m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, k, v)
	}
	return out
}

type failingKeys struct{}

func (failingKeys) ReadKey(context.Context, common.Address) ([]byte, error) {
	return nil, errors.New("node down")
}

// A registry that cannot be read fails the seal: the store keeps nothing.
func TestSealFailsClosed(t *testing.T) {
	rdb := testenv.StartRedis(t).Client()
	store, err := evidence.New(rdb, evidence.Config{Grants: grant.New(rdb), Sealer: &Sealer{Keys: failingKeys{}}})
	if err != nil {
		t.Fatal(err)
	}
	owner := "0x00000000000000000000000000000000000000aa"
	b := &evidence.Bundle{Owner: owner, SessionID: 9, Pid: "9:1", Iter: 1, Step: "KYC",
		Payload: json.RawMessage(`{"passport":"` + secret + `"}`), Outcome: evidence.Outcome{Result: evidence.Valid}, Time: 1}
	_, err = store.Put(context.Background(), b, evidence.Policy{Encrypt: true}, time.Now())
	if !errors.Is(err, evidence.ErrSeal) || strings.Contains(err.Error(), secret) {
		t.Fatalf("Put: %v, want ErrSeal without plaintext", err)
	}
	if n := rdb.DBSize(context.Background()).Val(); n != 0 {
		t.Fatalf("%d keys after a failed seal", n)
	}
}
