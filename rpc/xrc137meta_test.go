package rpc_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/xgr-sidecar/xgr/authority"
	"github.com/xgr-sidecar/xgr/envelope"
	"github.com/xgr-sidecar/xgr/grant"
	"github.com/xgr-sidecar/xgr/indexer"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/rpc"
	"github.com/xgr-sidecar/xgr/rpc/client"
	"github.com/xgr-sidecar/xgr/testenv"
)

// ruleTexts is a RuleReader over fixed contract texts.
type ruleTexts map[common.Address]string

func (r ruleTexts) RuleText(_ context.Context, a common.Address) (string, bool, error) {
	t, ok := r[a]
	if !ok {
		return "", false, errors.New("no code at that address")
	}
	return t, envelope.IsSealed([]byte(t)), nil
}

// xgr_getXRC137Meta returns an encrypted rule's envelope and the data key
// its reader's live READ grant holds, which opens the rule with the
// reader's key; a reader without a grant, after a revoke, or asking for
// a plaintext rule gets not-found; bad parameters name their field.
func TestGetXRC137Meta(t *testing.T) {
	rdb := testenv.StartRedis(t).Client()
	o, err := registry_Parse(flowText)
	if err != nil {
		t.Fatal(err)
	}
	const doc = `{"rules": ["[n] > 0"]}`
	k, _ := envelope.GenerateReadKey()
	sealed, err := envelope.SealRule([]byte(doc), k.Public())
	if err != nil {
		t.Fatal(err)
	}
	enc, plain := common.HexToAddress("0x00000000000000000000000000000000000137e1"), common.HexToAddress("0x00000000000000000000000000000000000137a1")
	gs := grant.New(rdb)
	store := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour})
	svc, err := rpc.NewService(rpc.Config{Store: store, Source: reactor.NewStaticSource(o), Authority: authority.NewChecker(&owners{m: map[common.Address]common.Address{}}).WithRules(scriptedRules),
		Registries: &indexer.Followed{Registries: []common.Address{xrc729}}, ChainID: chainID, ControlContract: precomp, Skew: time.Second,
		GrantStore: gs, Rules: ruleTexts{enc: sealed.Sealed.String(), plain: doc}})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := rpc.NewServer(svc, rpc.ServerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { hs.Close(); srv.Stop() })
	c, err := client.Dial(context.Background(), hs.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ctx := context.Background()
	reader, other := "0x00000000000000000000000000000000000000aa", "0x00000000000000000000000000000000000000bb"
	rid := grant.RID(sealed.Sealed.RID)
	now := time.Now()
	exp := now.Add(time.Hour).Truncate(time.Millisecond)
	if err := gs.Put(ctx, rid, grant.ScopeRule, []grant.Grant{{RID: rid, Scope: grant.ScopeRule, Grantee: reader, Rights: grant.Read, ExpireAt: exp,
		EncDEK: sealed.Wrapped.String(), Owner: reader, GrantedBy: reader, UpdatedAt: now}}, now); err != nil {
		t.Fatal(err)
	}
	get := func(params map[string]any) (*rpc.XRC137Meta, error) {
		var m rpc.XRC137Meta
		err := c.Raw(ctx, &m, "xgr_getXRC137Meta", params)
		return &m, err
	}
	m, err := get(map[string]any{"address": enc.Hex(), "owner": reader, "scope": 1})
	if err != nil || m.RID != rid.String() || m.Blob != sealed.Sealed.String() || m.Exp != exp.Unix() {
		t.Fatalf("meta: %+v %v", m, err)
	}
	if pt, err := envelope.OpenRule(m.Blob, m.EncDEK, k); err != nil || string(pt) != doc {
		t.Fatalf("the meta does not open with the reader's key: %v", err)
	}
	code := func(err error) (int, string) {
		var de gethrpc.Error
		if !errors.As(err, &de) {
			return 0, ""
		}
		return de.ErrorCode(), err.Error()
	}
	for name, c := range map[string]struct {
		params map[string]any
		code   int
		msg    string
	}{
		"another reader": {map[string]any{"address": enc.Hex(), "owner": other}, rpc.CodeNotFound, "holds no live READ grant"},
		"plaintext rule": {map[string]any{"address": plain.Hex(), "owner": reader}, rpc.CodeNotFound, "is not encrypted"},
		"log scope":      {map[string]any{"address": enc.Hex(), "owner": reader, "scope": 2}, rpc.CodeInvalidParams, "scope: 2"},
		"bad address":    {map[string]any{"address": "0x12", "owner": reader}, rpc.CodeInvalidParams, "address:"},
		"bad owner":      {map[string]any{"address": enc.Hex(), "owner": "bob"}, rpc.CodeInvalidParams, "owner:"},
	} {
		_, err := get(c.params)
		if got, msg := code(err); got != c.code || !strings.Contains(msg, c.msg) {
			t.Errorf("%s: %v, want code %d with %q", name, err, c.code, c.msg)
		}
	}
	if err := gs.Delete(ctx, rid, grant.ScopeRule, []string{reader}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := get(map[string]any{"address": enc.Hex(), "owner": reader}); err == nil {
		t.Fatal("a revoked grant still gives the key")
	}
}
