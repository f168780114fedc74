package indexer

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/authority"
	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/rulesource"
	"github.com/xgr-sidecar/xgr/session"
	"github.com/xgr-sidecar/xgr/testenv"
)

// A start that fails on its way to Redis (connection refused: a master
// down, a failover) is not final: the trigger stays pending with its
// attempts and last error, and the next pass starts its session with the
// same key.
func TestTriggerStartRetriesTransportErrors(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	r.sim.Mine(3)
	live := r.starter.Store
	down := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(testenv.FreePort(t)), MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	defer down.Close()
	r.starter.Store = joinstore.New(down, joinstore.Config{})
	outcomes := map[string]int{}
	r.starter.Count = func(o string) { outcomes[o]++ }
	if n := r.sync(t); n != 0 {
		t.Fatalf("%d sessions started on a Redis that is down", n)
	}
	keys, _ := r.follow.Index.PendingStarts(ctx, 1<<62, 10)
	if len(keys) != 1 {
		t.Fatalf("pending starts after a refused connection: %v, want the one trigger still pending", keys)
	}
	rec, _ := r.follow.Index.Entry(ctx, keys[0])
	if rec["status"] != "pending" || rec["attempts"] != "1" || !strings.Contains(rec["lastError"], "refused") {
		t.Fatalf("trigger after a refused connection: %v", rec)
	}
	if list, err := r.follow.Index.PendingList(ctx, 10); err != nil || len(list) != 1 || list[0].Key != keys[0] || list[0].Attempts != 1 || list[0].Block == 0 {
		t.Fatalf("pending list: %+v %v", list, err)
	}
	r.starter.Store = live
	if n := r.sync(t); n != 1 {
		t.Fatalf("%d sessions started once Redis answered, want 1", n)
	}
	if list := r.sessions(t); len(list) != 1 {
		t.Fatalf("%d sessions, want 1", len(list))
	}
	if rec, _ = r.follow.Index.Entry(ctx, keys[0]); rec["status"] != "started" {
		t.Fatalf("trigger after its start: %v", rec)
	}
	if outcomes["retry"] != 1 || outcomes["started"] != 1 || outcomes["failed"] != 0 {
		t.Errorf("counted outcomes %v, want one retry and one start", outcomes)
	}
}

// A definite refusal (here: a start step the orchestration does not have)
// is final: the trigger is marked failed with the reason and not retried.
func TestTriggerStartRefusalIsFinal(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	cfg, err := ParseConfig("test.yaml", []byte(strings.Replace(triggerConfig(r.reg.Address), "start: A1", "start: NOPE", 1)))
	if err != nil {
		t.Fatal(err)
	}
	r.follow.Triggers = cfg.Triggers
	r.sim.Mine(3)
	if n := r.sync(t); n != 0 {
		t.Fatalf("%d sessions started at an unknown step", n)
	}
	if keys, _ := r.follow.Index.PendingStarts(ctx, 1<<62, 10); len(keys) != 0 {
		t.Fatalf("a refused start is still pending: %v", keys)
	}
	starts, _ := r.follow.Index.Keys(ctx, "start:")
	if len(starts) != 1 {
		t.Fatalf("trigger records %v", starts)
	}
	if rec, _ := r.follow.Index.Entry(ctx, starts[0]); rec["status"] != "failed" || !strings.Contains(rec["error"], "unknown start step") {
		t.Fatalf("refused trigger: %v", rec)
	}
}

// With an authority checker, a trigger whose owner is neither the
// registry's owner nor on its executor list is refused for good (XRC-729
// §3.1/§4.2) and creates nothing; the registry's owner starts as before.
// The orchestration names its rules by alias (${addr:XRC137_A}, …): each
// is resolved as the runtime resolves it before authority is decided. A
// runtime that plays them from scripted outcomes reads no rule; one whose
// addresses: section binds them to another owner's rule contract refuses
// the owner (not on that contract's executor list), and one that binds
// none refuses the start as unresolved.
func TestTriggerStartChecksAuthority(t *testing.T) {
	aliases := []string{"XRC137_A", "XRC137_G", "XRC137_H", "XRC137_J1", "XRC137_J2", "XRC137_P", "XRC137_Q", "XRC137_Z"}
	for _, tc := range []struct {
		name, owner string
		// rules builds the runtime's resolver; foreign is a rule contract
		// of key 1 with no executors.
		rules   func(foreign common.Address) authority.Resolver
		started int
		refusal string
	}{
		{"owner", "{arg: owner}", func(common.Address) authority.Resolver { return authority.ScriptedSteps(&rulesource.Loader{}) }, 1, ""},
		{"stranger", `"0x00000000000000000000000000000000000000d1"`, func(common.Address) authority.Resolver { return authority.ScriptedSteps(&rulesource.Loader{}) }, 0, "not authorized"},
		{"owner, aliases bound to another owner's rule", "{arg: owner}", func(foreign common.Address) authority.Resolver {
			addrs := rulesource.Addresses{}
			for _, a := range aliases {
				addrs[a] = foreign
			}
			return &rulesource.Loader{Addresses: addrs}
		}, 0, "not authorized on XRC-137 rule contract"},
		{"owner, aliases bound to nothing", "{arg: owner}", func(common.Address) authority.Resolver { return &rulesource.Loader{Addresses: rulesource.Addresses{}} }, 0, "does not resolve"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t)
			ctx := context.Background()
			cfg, err := ParseConfig("test.yaml", []byte(strings.Replace(triggerConfig(r.reg.Address), "owner: {arg: owner}", "owner: "+tc.owner, 1)))
			if err != nil {
				t.Fatal(err)
			}
			foreign, _, err := chain.DeployRule(ctx, testenv.Sender(t, r.sim, 1), []byte(`{"payload": {}}`))
			if err != nil {
				t.Fatal(err)
			}
			r.follow.Triggers = cfg.Triggers
			r.starter.Authority = authority.NewChecker(authority.NewChainReader(r.sim.Backend())).WithRules(tc.rules(foreign.Address))
			r.sim.Mine(3)
			if n := r.sync(t); n != tc.started {
				t.Fatalf("%d sessions started, want %d", n, tc.started)
			}
			if keys, _ := r.follow.Index.PendingStarts(ctx, 1<<62, 10); len(keys) != 0 {
				t.Fatalf("a decided start is still pending: %v", keys)
			}
			if tc.started > 0 {
				return
			}
			starts, _ := r.follow.Index.Keys(ctx, "start:")
			if rec, _ := r.follow.Index.Entry(ctx, starts[0]); rec["status"] != "failed" || !strings.Contains(rec["error"], tc.refusal) {
				t.Fatalf("refused trigger: %v, want an error with %q", rec, tc.refusal)
			}
			for _, owner := range []string{"0x00000000000000000000000000000000000000d1", chainOwner(r.sim)} {
				if list, _ := r.store.Sessions(ctx, owner, 0, 10, true); len(list) != 0 {
					t.Fatalf("a refused trigger created sessions: %v", list)
				}
			}
		})
	}
}

// Every kind of the start use case has a trigger outcome.
func TestTriggerOutcomeCoversEveryKind(t *testing.T) {
	for _, k := range session.Kinds {
		switch triggerOutcome[k] {
		case "failed", "waiting", "retry":
		default:
			t.Errorf("kind %s: no trigger outcome", k)
		}
	}
}
