package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/xgr-sidecar/xgr/authority"
	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/console"
	"github.com/xgr-sidecar/xgr/indexer"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/rpc"
	"github.com/xgr-sidecar/xgr/rulesource"
	"github.com/xgr-sidecar/xgr/testenv"
)

// Issue 38 High 1: a rule reference is resolved as the runtime resolves
// it before the runner's authority is decided, at every front door. A0
// (key 0) owns the registry; A1 (key 1) owns a rule contract with an empty
// executor list, which the operator's config binds as VSECRET. A0's
// orchestration that names it ${addr:VSECRET} is refused exactly as the
// one naming its 0x address (runner-not-authorized), and one naming an
// alias nothing binds is refused as unresolved (rule-unresolved); nothing
// is written to Redis. Front doors: the gateway (xgr_validateDataTransfer),
// xgr session start --rpc --config, the console's start and xgr simulate
// --rpc (the trigger starter: indexer's TestTriggerStartChecksAuthority).
func TestRuleReferencesResolvedAtEveryFrontDoor(t *testing.T) {
	a := testenv.StartAnvil(t)
	ctx := context.Background()
	reg, _ := testenv.DeployXRC729(t, a, chain.RegistryInit{})
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	secret, _, err := chain.DeployRule(dctx, testenv.Sender(t, a, 1), []byte(`{"payload": {}}`))
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{
		"alias":   `{"id": "alias", "structure": {"B1": {"rule": "${addr:VSECRET}"}}}`,
		"hex":     `{"id": "hex", "structure": {"B1": {"rule": "` + secret.Address.Hex() + `"}}}`,
		"unbound": `{"id": "unbound", "structure": {"B1": {"rule": "${addr:NOPE}"}}}`,
	}
	files := map[string]string{}
	var orchs []*registry.Orchestration
	for id, text := range texts {
		files[id] = writeFile(t, id+".json", text)
		o, err := loadOSTC(files[id])
		if err != nil {
			t.Fatal(err)
		}
		orchs = append(orchs, o)
	}
	cfg := writeFile(t, "xgr.yaml", "addresses:\n  VSECRET: \""+secret.Address.Hex()+"\"\n")
	// simulate reads no addresses: section; its --rules DIR binds the alias.
	simRules := ruleDir(t, map[string]string{"rules.json": `{"${addr:VSECRET}": "` + secret.Address.Hex() + `"}`})

	srv := testenv.StartRedis(t)
	rdb := srv.Client()
	redisURL := "redis://" + srv.Addr + "/0"
	store := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour})
	keys := func() int64 {
		n, err := rdb.DBSize(ctx).Result()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	// The resolver xgr run builds from the same --config.
	loader := &rulesource.Loader{Addresses: rulesource.Addresses{"VSECRET": secret.Address}}
	checker := authority.NewChecker(authority.NewChainReader(a.Backend())).WithRules(loader)
	source := reactor.NewStaticSource(orchs...)

	svc, err := rpc.NewService(rpc.Config{Store: store, Source: source, Authority: checker,
		Registries: &indexer.Followed{Registries: []common.Address{reg.Address}},
		ChainID:    a.ChainID(), ControlContract: common.HexToAddress(DefaultPrecompile)})
	if err != nil {
		t.Fatal(err)
	}
	gw, _ := rpc.NewServer(svc, rpc.ServerConfig{})
	gwServer := httptest.NewServer(gw)
	defer gwServer.Close()

	ui := console.New(console.Config{Store: store, Redis: rdb, Source: source, Authority: checker, DirectActions: true, ChainID: a.ChainID().Uint64()})
	uiServer := httptest.NewServer(ui.Handler())
	defer uiServer.Close()
	owner := strings.ToLower(a.Address(0).Hex())
	// The console starts a session like an existing one: templates of each
	// orchestration, written straight to the store.
	templates := map[string]int64{}
	for id := range texts {
		o, _ := loadOSTC(files[id])
		res, err := store.Start(ctx, joinstore.StartRequest{Owner: owner, XRC729: reg.Address.Hex(), OstcID: id, OstcHash: o.Hash.Hex(), StartStep: "B1",
			Payload: []byte(`{}`), Now: time.Now(), Paused: true, IdempotencyKey: "template-" + id})
		if err != nil {
			t.Fatal(err)
		}
		templates[id] = res.Root.RootPid
	}

	t.Setenv(chain.PrivateKeyEnv, "0x"+common.Bytes2Hex(crypto.FromECDSA(a.Key(0))))
	doors := []struct {
		name  string
		start func(id string) (string, int)
	}{
		{"gateway", func(id string) (string, int) {
			return run(t, "rpc", "start", files[id], "--orchestration", reg.Address.Hex(), "--endpoint", gwServer.URL, "--step", "B1")
		}},
		{"session start", func(id string) (string, int) {
			return run(t, "session", "start", files[id], "--redis", redisURL, "--owner", owner, "--xrc729", reg.Address.Hex(), "--rpc", a.URL, "--config", cfg)
		}},
		{"console", func(id string) (string, int) {
			req, _ := http.NewRequest(http.MethodPost, uiServer.URL+"/ui/api/start", strings.NewReader(fmt.Sprintf(`{"owner":%q,"rootPid":%d}`, owner, templates[id])))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set(console.ActionHeader, "1")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return string(b), resp.StatusCode
		}},
		{"simulate", func(id string) (string, int) {
			return run(t, "simulate", files[id], "--rpc", a.URL, "--owner", owner, "--rules", simRules, "--deterministic")
		}},
	}
	for _, d := range doors {
		for _, c := range []struct {
			id   string
			want []string
		}{
			{"hex", []string{"not authorized on XRC-137 rule contract " + secret.Address.Hex(), "step B1"}},
			{"alias", []string{"not authorized on XRC-137 rule contract " + secret.Address.Hex()}},
			{"unbound", []string{"B1"}},
		} {
			before := keys()
			out, code := d.start(c.id)
			if code == 0 || code == http.StatusOK {
				t.Errorf("%s, %s: started (%d):\n%s", d.name, c.id, code, out)
				continue
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("%s, %s: exit %d, want %q in:\n%s", d.name, c.id, code, w, out)
				}
			}
			if d.name == "gateway" {
				reason := map[string]string{"hex": `"reason":"runner-not-authorized"`, "alias": `"reason":"runner-not-authorized"`, "unbound": `"reason":"rule-unresolved"`}[c.id]
				if !strings.Contains(out, reason) {
					t.Errorf("gateway, %s: want %s (codes: rpc's TestStartResolvesRuleReferences):\n%s", c.id, reason, out)
				}
			}
			if after := keys(); after != before {
				t.Errorf("%s, %s: a refused start changed Redis: %d keys, before %d", d.name, c.id, after, before)
			}
		}
	}
}
