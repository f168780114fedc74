package rpc_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/xgr-sidecar/xgr/authority"
	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/indexer"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/rpc"
	"github.com/xgr-sidecar/xgr/rulesource"
	"github.com/xgr-sidecar/xgr/testenv"
)

// The gateway starts sessions for the registry's owner and for its
// executors, as long as the signer is also owner or executor of every rule
// contract the orchestration references (XRC-729 §4.2), read from anvil.
// Any other signer is refused with CodeRunnerNotAuthorized naming the
// contract and the runner, and nothing is written to Redis; an owner-only
// legacy rule (no getExecutorList) admits its owner only; changes of the
// executor lists count from the next start on.
func TestStartAuthorityOnAnvil(t *testing.T) {
	a := testenv.StartAnvil(t)
	ctx := context.Background()
	reg, _ := testenv.DeployXRC729(t, a, chain.RegistryInit{Executors: []common.Address{a.Address(1)}})
	rule, _ := testenv.DeployXRC137(t, a, `{"payload": {}}`)
	send := func(what string, f func(context.Context, *chain.Sender) error) {
		t.Helper()
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if err := f(ctx, testenv.Sender(t, a, 0)); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	send("rule.addExecutor(1)", func(ctx context.Context, s *chain.Sender) error {
		_, err := rule.AddExecutor(ctx, s, a.Address(1))
		return err
	})
	legacy := testenv.DeployLegacyRule(t, a, 0, `{"payload": {}}`)
	listed := mustParse(t, `{"id": "listed", "structure": {"A1": {"rule": "`+rule.Address.Hex()+`"}}}`)
	old := mustParse(t, `{"id": "legacy", "structure": {"A1": {"rule": "`+rule.Address.Hex()+`", "onValid": {"spawns": ["B1"]}}, "B1": {"rule": "`+legacy.Hex()+`"}}}`)
	g := newGatewayWith(t, rpc.ServerConfig{}, func(c *rpc.Config) {
		c.Source = reactor.NewStaticSource(listed, old)
		c.Authority = authority.NewChecker(authority.NewChainReader(a.Backend()))
		c.Registries = &indexer.Followed{Registries: []common.Address{reg.Address}}
	})
	start := func(key int, o *registry.Orchestration) error {
		_, err := g.client.Start(ctx, a.Key(key), reg.Address, o.ID, o.Hash, "A1", json.RawMessage(`{"n": 1}`))
		return err
	}
	allowed := func(name string, key int, o *registry.Orchestration) {
		t.Helper()
		if err := start(key, o); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	refusedBy := func(name string, key int, o *registry.Orchestration, contract common.Address, kind authority.Kind, list bool) {
		t.Helper()
		before := g.keys0()
		err := start(key, o)
		refused(t, err, rpc.CodeRunnerNotAuthorized, authority.Reason)
		var de gethrpc.DataError
		errors.As(err, &de)
		data, _ := de.ErrorData().(map[string]any)
		if data["contract"] != contract.Hex() || data["runner"] != a.Address(key).Hex() || data["kind"] != string(kind) ||
			data["owner"] != a.Address(0).Hex() || data["executorList"] != list || data["path"] != "permit.message.from" ||
			data["missing"] != float64(1) || data["rulesChecked"] != (kind == authority.KindRule) {
			t.Fatalf("%s: error data %v", name, data)
		}
		if !strings.Contains(err.Error(), contract.Hex()) || !strings.Contains(err.Error(), a.Address(key).Hex()) {
			t.Fatalf("%s: the message must name the contract and the runner: %v", name, err)
		}
		if after := g.keys0(); after != before {
			t.Fatalf("%s: a refused start changed Redis: %d keys, before %d", name, after, before)
		}
	}

	allowed("the owner of everything", 0, listed)
	allowed("an executor of the registry and the rule", 1, listed)
	refusedBy("a stranger", 2, listed, reg.Address, authority.KindRegistry, true)
	allowed("the owner, with a legacy rule", 0, old)
	refusedBy("an executor, with an owner-only legacy rule", 1, old, legacy, authority.KindRule, false)

	// Key 2 joins the registry's list: the rule still refuses it; then
	// the rule's too: it starts; then it leaves the rule's list again.
	send("registry.addExecutor(2)", func(ctx context.Context, s *chain.Sender) error {
		_, err := reg.AddExecutor(ctx, s, a.Address(2))
		return err
	})
	refusedBy("key 2 on the registry's list only", 2, listed, rule.Address, authority.KindRule, true)
	send("rule.addExecutor(2)", func(ctx context.Context, s *chain.Sender) error {
		_, err := rule.AddExecutor(ctx, s, a.Address(2))
		return err
	})
	allowed("key 2 on both lists", 2, listed)
	send("rule.removeExecutor(2)", func(ctx context.Context, s *chain.Sender) error {
		_, err := rule.RemoveExecutor(ctx, s, a.Address(2))
		return err
	})
	refusedBy("key 2 removed from the rule's list", 2, listed, rule.Address, authority.KindRule, true)
}

// Issue 38 High 1 at the gateway: a step that names its rule by alias is
// judged on the contract the operator's addresses: section binds it to, as
// the runtime will read it: A0 may not start A1's rule by alias any more
// than by address (-32008 runner-not-authorized), an alias nothing binds
// is refused as unresolved (-32009 rule-unresolved), and neither writes
// to Redis. A0's own rule, by alias, starts.
func TestStartResolvesRuleReferences(t *testing.T) {
	a := testenv.StartAnvil(t)
	ctx := context.Background()
	reg, _ := testenv.DeployXRC729(t, a, chain.RegistryInit{})
	own, _ := testenv.DeployXRC137(t, a, `{"payload": {}}`)
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	secret, _, err := chain.DeployRule(dctx, testenv.Sender(t, a, 1), []byte(`{"payload": {}}`))
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	alias := mustParse(t, `{"id": "alias", "structure": {"B1": {"rule": "${addr:VSECRET}"}}}`)
	hex := mustParse(t, `{"id": "hex", "structure": {"B1": {"rule": "`+secret.Address.Hex()+`"}}}`)
	unbound := mustParse(t, `{"id": "unbound", "structure": {"B1": {"rule": "<NOPE>"}}}`)
	mine := mustParse(t, `{"id": "mine", "structure": {"B1": {"rule": "${addr:OWN}"}}}`)
	rules := &rulesource.Loader{Addresses: rulesource.Addresses{"VSECRET": secret.Address, "OWN": own.Address}}
	g := newGatewayWith(t, rpc.ServerConfig{}, func(c *rpc.Config) {
		c.Source = reactor.NewStaticSource(alias, hex, unbound, mine)
		c.Authority = authority.NewChecker(authority.NewChainReader(a.Backend())).WithRules(rules)
		c.Registries = &indexer.Followed{Registries: []common.Address{reg.Address}}
	})
	start := func(o *registry.Orchestration) error {
		_, err := g.client.Start(ctx, a.Key(0), reg.Address, o.ID, o.Hash, "B1", json.RawMessage(`{}`))
		return err
	}
	for _, c := range []struct {
		o      *registry.Orchestration
		code   int
		reason string
	}{
		{hex, rpc.CodeRunnerNotAuthorized, authority.Reason},
		{alias, rpc.CodeRunnerNotAuthorized, authority.Reason},
		{unbound, rpc.CodeRuleUnresolved, authority.ReasonUnresolved},
	} {
		before := g.keys0()
		err := start(c.o)
		refused(t, err, c.code, c.reason)
		var de gethrpc.DataError
		errors.As(err, &de)
		data, _ := de.ErrorData().(map[string]any)
		if c.code == rpc.CodeRunnerNotAuthorized && (data["contract"] != secret.Address.Hex() || data["owner"] != a.Address(1).Hex()) ||
			c.code == rpc.CodeRuleUnresolved && (data["rule"] != "<NOPE>" || data["step"] != "B1" || data["ostcId"] != "unbound") {
			t.Fatalf("%s: error data %v", c.o.ID, data)
		}
		if after := g.keys0(); after != before {
			t.Fatalf("%s: a refused start changed Redis: %d keys, before %d", c.o.ID, after, before)
		}
	}
	if err := start(mine); err != nil {
		t.Fatalf("the owner's own rule by alias: %v", err)
	}
}
