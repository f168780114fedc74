package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/authority"
	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/rulesource"
	"github.com/xgr-sidecar/xgr/session"
	"github.com/xgr-sidecar/xgr/testenv"
)

// The runner's authority, on a simulated chain: key 0 owns a registry (key
// 1 its executor), an XRC-137 rule (key 1 its executor) and a legacy rule
// without executor list. A start is created for the owner of everything
// and for an executor of the registry and the rules (also of a file
// session: its rules alone), with each reference resolved as the runtime
// resolves it (an alias the config binds is judged on its contract). A
// stranger, an executor on an owner-only rule, a runner refused on the
// contract an alias resolves to, and a reference that resolves nowhere are
// refused, naming the contract or the step, and write nothing. The
// registry is judged before its orchestration is read.
func TestStartChecksAuthority(t *testing.T) {
	sim := testenv.StartSim(t)
	reg, _ := testenv.DeployXRC729(t, sim, chain.RegistryInit{Executors: []common.Address{sim.Address(1)}})
	rule, _ := testenv.DeployXRC137(t, sim, `{"payload": {}}`)
	ctx := context.Background()
	actx, cancel := context.WithTimeout(ctx, 30*time.Second)
	if _, err := rule.AddExecutor(actx, testenv.Sender(t, sim, 0), sim.Address(1)); err != nil {
		t.Fatal(err)
	}
	cancel()
	legacy := testenv.DeployLegacyRule(t, sim, 0, `{"payload": {}}`)

	rdb := testenv.StartRedis(t).Client()
	store := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour})
	// Each starts at S1, which spawns S2.
	texts := []string{}
	for _, f := range []struct{ id, s1, s2 string }{
		{"listed", rule.Address.Hex(), rule.Address.Hex()},
		{"legacy", rule.Address.Hex(), legacy.Hex()},
		{"aliased", "${addr:LEGACY}", rule.Address.Hex()},
		{"unbound", rule.Address.Hex(), "${addr:NOPE}"},
	} {
		texts = append(texts, fmt.Sprintf(`{"id": %q, "structure": {"S1": {"rule": %q, "onValid": {"spawns": ["S2"]}}, "S2": {"rule": %q}}}`, f.id, f.s1, f.s2))
	}
	src, orchs := orchestrations(t, texts...)
	listed, old, aliased, unbound := orchs[0], orchs[1], orchs[2], orchs[3]
	source := &countingSource{Source: src}
	loader := &rulesource.Loader{Addresses: rulesource.Addresses{"LEGACY": legacy}}
	starter := session.Starter{Store: store, Source: source, Authority: authority.NewChecker(authority.NewChainReader(sim.Backend())).WithRules(loader)}
	start := func(key int, o *registry.Orchestration, reg string) (session.Started, error) {
		return starter.Start(ctx, session.Request{Owner: strings.ToLower(sim.Address(key).Hex()), Registry: reg, OstcID: o.ID,
			Step: "S1", Payload: json.RawMessage(`{"n": 1}`)})
	}

	for _, c := range []struct {
		name string
		key  int
		o    *registry.Orchestration
		reg  string
	}{
		{"owner", 0, listed, reg.Address.Hex()},
		{"owner on a legacy rule", 0, old, reg.Address.Hex()},
		{"owner on an alias of a legacy rule", 0, aliased, reg.Address.Hex()},
		{"executor", 1, listed, reg.Address.Hex()},
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
		kind     session.Kind
		path     string
		contract common.Address
		reads    int32 // orchestration reads
	}{
		{"stranger", 2, listed, reg.Address.Hex(), session.KindNotAuthorized, "owner", reg.Address, 0},
		{"stranger, file session", 2, listed, "file", session.KindNotAuthorized, "owner", rule.Address, 1},
		{"executor on a legacy rule", 1, old, reg.Address.Hex(), session.KindNotAuthorized, "owner", legacy, 1},
		{"executor on an alias of a legacy rule", 1, aliased, reg.Address.Hex(), session.KindNotAuthorized, "owner", legacy, 1},
		{"owner, unbound alias", 0, unbound, reg.Address.Hex(), session.KindRuleUnresolved, "structure.S2.rule", common.Address{}, 1},
	} {
		before, reads := keys(t, rdb), source.reads
		_, err := start(c.key, c.o, c.reg)
		var se *session.Error
		if !errors.As(err, &se) || se.Kind != c.kind || se.Path != c.path {
			t.Fatalf("%s: %v, want %s at %s", c.name, err, c.kind, c.path)
		}
		var ae *authority.Error
		if c.contract != (common.Address{}) && (!errors.As(err, &ae) || ae.Refused.Contract != c.contract || ae.Runner != sim.Address(c.key)) {
			t.Fatalf("%s: want a refusal naming %s, got %v", c.name, c.contract.Hex(), err)
		}
		if after := keys(t, rdb); after != before {
			t.Fatalf("%s: a refused start changed Redis (%d keys, before %d)", c.name, after, before)
		}
		if n := source.reads - reads; n != c.reads {
			t.Errorf("%s: %d orchestration reads, want %d (the registry is judged first)", c.name, n, c.reads)
		}
	}
}

// countingSource counts orchestration reads.
type countingSource struct {
	reactor.Source
	reads int32
}

func (c *countingSource) Orchestration(ctx context.Context, xrc729, ostcID string, hash common.Hash) (*registry.Orchestration, error) {
	c.reads++
	return c.Source.Orchestration(ctx, xrc729, ostcID, hash)
}
