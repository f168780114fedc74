package authority_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/authority"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/testenv"
)

// Checker.Start starts the sessions of authorized runners only: the owner
// of everything, an executor of the registry and the rules; it refuses a
// runner missing on the registry or on a rule (an executor on an
// owner-only legacy rule too) and writes nothing to Redis then.
func TestStartChecksAuthority(t *testing.T) {
	w := newWorld(t)
	a := w.a
	rdb := testenv.StartRedis(t).Client()
	store := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour})
	c := authority.NewChecker(authority.NewChainReader(a.Backend()))
	listed := flow(t, "listed", w.rule.Address)
	legacy := flow(t, "legacy", w.rule.Address, w.legacy)
	src := reactor.NewStaticSource(listed, legacy)
	ctx := context.Background()
	start := func(key int, o *registry.Orchestration, reg string) (joinstore.StartResult, error) {
		return reactor.StartGated(ctx, store, src, reactor.StartRequest{Owner: strings.ToLower(a.Address(key).Hex()), XRC729: reg, OstcID: o.ID,
			Step: "S1", Payload: json.RawMessage(`{"n": 1}`)}, time.Now(), c)
	}
	keys := func() int64 {
		n, err := rdb.DBSize(ctx).Result()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	for _, c := range []struct {
		name string
		key  int
		o    *registry.Orchestration
		reg  string
	}{
		{"owner", 0, listed, w.reg.Address.Hex()},
		{"owner on a legacy rule", 0, legacy, w.reg.Address.Hex()},
		{"executor", 1, listed, w.reg.Address.Hex()},
		{"executor, file session", 1, listed, "file"},
	} {
		if res, err := start(c.key, c.o, c.reg); err != nil || res.Ack != "queued" {
			t.Fatalf("%s: %+v %v", c.name, res, err)
		}
	}

	for _, c := range []struct {
		name     string
		key      int
		o        *registry.Orchestration
		reg      string
		contract common.Address
	}{
		{"stranger", 2, listed, w.reg.Address.Hex(), w.reg.Address},
		{"stranger, file session", 2, listed, "file", w.rule.Address},
		{"executor on a legacy rule", 1, legacy, w.reg.Address.Hex(), w.legacy},
	} {
		before := keys()
		_, err := start(c.key, c.o, c.reg)
		var ae *authority.Error
		if !errors.As(err, &ae) || ae.Refused.Contract != c.contract || ae.Runner != a.Address(c.key) {
			t.Fatalf("%s: want a refusal naming %s, got %v", c.name, c.contract.Hex(), err)
		}
		if after := keys(); after != before {
			t.Fatalf("%s: a refused start changed Redis (%d keys, before %d)", c.name, after, before)
		}
	}
	// A runner that is no account is refused before anything is read.
	if _, err := reactor.StartGated(ctx, store, src, reactor.StartRequest{Owner: "file", XRC729: "file", OstcID: "listed", Step: "S1"}, time.Now(), c); err == nil ||
		!strings.Contains(err.Error(), "must be an account") {
		t.Fatalf("owner that is no address: %v", err)
	}
}
