package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/xgr-sidecar/xgr/authority"
	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/testenv"
)

// authorityChain is anvil with a registry and rule contracts of key 0:
// key 1 is an executor of the registry and of the XRC-137 rule; the legacy
// rule has no executor list (owner-only).
type authorityChain struct {
	a      *testenv.Anvil
	reg    *chain.Registry
	rule   *chain.Rule
	legacy common.Address
	// listed uses the rule; old the rule and the legacy rule; local a rule
	// alias (no address).
	listed, old, local string
}

func newAuthorityChain(t *testing.T) *authorityChain {
	t.Helper()
	a := testenv.StartAnvil(t)
	w := &authorityChain{a: a}
	w.reg, _ = testenv.DeployXRC729(t, a, chain.RegistryInit{Executors: []common.Address{a.Address(1)}})
	w.rule, _ = testenv.DeployXRC137(t, a, `{"payload": {}}`)
	w.send(t, func(ctx context.Context, s *chain.Sender) error {
		_, err := w.rule.AddExecutor(ctx, s, a.Address(1))
		return err
	})
	w.legacy = testenv.DeployLegacyRule(t, a, 0, `{"payload": {}}`)
	w.listed = `{"id": "listed", "structure": {"A1": {"rule": "` + w.rule.Address.Hex() + `", "onValid": {"spawns": ["B1"]}}, "B1": {"rule": "` + w.rule.Address.Hex() + `"}}}`
	w.old = `{"id": "legacy", "structure": {"A1": {"rule": "` + w.rule.Address.Hex() + `", "onValid": {"spawns": ["B1"]}}, "B1": {"rule": "` + w.legacy.Hex() + `"}}}`
	w.local = `{"id": "local", "structure": {"A1": {"rule": "${addr:LOCAL}"}}}`
	return w
}

// send runs a transaction of key 0 and fails the test unless it is mined.
func (w *authorityChain) send(t *testing.T, f func(context.Context, *chain.Sender) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := f(ctx, testenv.Sender(t, w.a, 0)); err != nil {
		t.Fatal(err)
	}
}

func (w *authorityChain) owner(i int) string { return strings.ToLower(w.a.Address(i).Hex()) }

// xgr session start --rpc starts sessions of the registry's owner and its
// executors that are owner or executor of every rule contract too, and
// refuses anyone else (exit 1, naming the contract and the runner) without
// writing to Redis; an owner-only legacy rule admits its owner only; a
// registry address without --rpc is a usage error; an executor added on
// chain may start from then on.
func TestSessionStartAuthorityOnAnvil(t *testing.T) {
	w := newAuthorityChain(t)
	srv := testenv.StartRedis(t)
	rdb := srv.Client()
	url := "redis://" + srv.Addr + "/0"
	listed, old := writeFile(t, "listed.json", w.listed), writeFile(t, "legacy.json", w.old)
	start := func(key int, file string, extra ...string) (string, int) {
		return run(t, append([]string{"session", "start", file, "--redis", url, "--owner", w.owner(key), "--xrc729", w.reg.Address.Hex(), "--rpc", w.a.URL}, extra...)...)
	}
	keys := func() int64 {
		n, err := rdb.DBSize(context.Background()).Result()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, c := range []struct {
		name string
		key  int
		file string
	}{{"owner", 0, listed}, {"executor", 1, listed}, {"owner, legacy rule", 0, old}} {
		if out, code := start(c.key, c.file); code != 0 || !strings.HasPrefix(out, "queued: session ") {
			t.Fatalf("%s: exit %d\n%s", c.name, code, out)
		}
	}
	refused := func(name string, key int, file string, contract common.Address) {
		t.Helper()
		before := keys()
		out, code := start(key, file)
		if code != 1 || !strings.Contains(out, "session start: ") || !strings.Contains(out, contract.Hex()) || !strings.Contains(out, w.a.Address(key).Hex()) {
			t.Fatalf("%s: exit %d, want 1 naming %s and the runner:\n%s", name, code, contract.Hex(), out)
		}
		if after := keys(); after != before {
			t.Fatalf("%s: a refused start changed Redis: %d keys, before %d", name, after, before)
		}
	}
	refused("stranger", 2, listed, w.reg.Address)
	refused("executor, legacy rule", 1, old, w.legacy)
	if out, code := run(t, "session", "start", listed, "--redis", url, "--owner", w.owner(0), "--xrc729", w.reg.Address.Hex()); code != 2 ||
		!strings.Contains(out, "--rpc") {
		t.Fatalf("--xrc729 ADDRESS without --rpc: exit %d\n%s", code, out)
	}
	// A file session (no registry) is judged on its rule contracts.
	if out, code := run(t, "session", "start", listed, "--redis", url, "--owner", w.owner(2), "--rpc", w.a.URL); code != 1 || !strings.Contains(out, w.rule.Address.Hex()) {
		t.Fatalf("file session of a stranger: exit %d\n%s", code, out)
	}

	w.send(t, func(ctx context.Context, s *chain.Sender) error {
		_, err := w.reg.AddExecutor(ctx, s, w.a.Address(2))
		return err
	})
	refused("key 2 on the registry's list only", 2, listed, w.rule.Address)
	w.send(t, func(ctx context.Context, s *chain.Sender) error {
		_, err := w.rule.AddExecutor(ctx, s, w.a.Address(2))
		return err
	})
	if out, code := start(2, listed); code != 0 {
		t.Fatalf("key 2 on both lists: exit %d\n%s", code, out)
	}
}

// xgr ostc coverage reports each rule contract of the registry's
// orchestrations for a runner as the OPS panel does — has executor, owner
// (implicit), missing — as text and --json, and exits 1 while one is
// missing.
func TestOSTCCoverageOnAnvil(t *testing.T) {
	w := newAuthorityChain(t)
	t.Setenv(chain.PrivateKeyEnv, keyHex(w.a, 0))
	for id, text := range map[string]string{"listed": w.listed, "legacy": w.old, "local": w.local} {
		if out, code := run(t, "ostc", "put", "--rpc", w.a.URL, "--registry", w.reg.Address.Hex(), id, writeFile(t, id+".json", text)); code != 0 {
			t.Fatalf("ostc put %s: %d %s", id, code, out)
		}
	}
	cover := func(runner int, extra ...string) (string, int) {
		return run(t, append([]string{"ostc", "coverage", "--rpc", w.a.URL, "--registry", w.reg.Address.Hex(), "--runner", w.a.Address(runner).Hex()}, extra...)...)
	}
	line := func(out string, contract common.Address) string {
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, contract.Hex()) && !strings.HasPrefix(l, "runner") {
				return strings.Join(strings.Fields(l), " ")
			}
		}
		t.Fatalf("no row for %s:\n%s", contract.Hex(), out)
		return ""
	}
	owner := w.a.Address(0).Hex()

	// The executor: covered on the registry and the rule, missing on the
	// owner-only legacy rule.
	out, code := cover(1)
	if code != 1 {
		t.Fatalf("executor with a legacy rule: exit %d\n%s", code, out)
	}
	for contract, want := range map[common.Address]string{
		w.reg.Address:  "registry " + w.reg.Address.Hex() + " " + owner + " has executor",
		w.rule.Address: "rule " + w.rule.Address.Hex() + " " + owner + " has executor ",
		w.legacy:       "rule " + w.legacy.Hex() + " " + owner + " (owner-only) missing legacy: B1",
	} {
		if got := line(out, contract); !strings.HasPrefix(got, want) {
			t.Errorf("row %q, want it to start with %q", got, want)
		}
	}
	if !strings.Contains(out, `not checked: local step A1: rule "${addr:LOCAL}" names no contract address`) ||
		!strings.Contains(out, "2 rule contract(s): 1 has executor, 0 owner (implicit), 1 missing; registry: has executor") {
		t.Errorf("text output:\n%s", out)
	}

	// --json: the same verdict, machine-readable.
	out, code = cover(1, "--json")
	var rep struct {
		RegistryAddress common.Address
		Orchestrations  []string
		Registry        authority.Row
		Rules           []authority.Row
		Unresolved      []authority.Unresolved
		Missing         int
		OK              bool
	}
	if code != 1 || json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &rep) != nil {
		t.Fatalf("--json: exit %d\n%s", code, out)
	}
	if rep.OK || rep.Missing != 1 || rep.Registry.Status != authority.StatusExecutor || len(rep.Rules) != 2 || len(rep.Orchestrations) != 3 ||
		rep.Rules[0].Contract != w.rule.Address || rep.Rules[0].Status != authority.StatusExecutor ||
		rep.Rules[1].Contract != w.legacy || rep.Rules[1].Status != authority.StatusMissing || rep.Rules[1].ExecutorList ||
		len(rep.Unresolved) != 1 || rep.RegistryAddress != w.reg.Address {
		t.Fatalf("--json report %+v\n%s", rep, out)
	}

	// One orchestration without the legacy rule: covered.
	if out, code := cover(1, "--ostc", "listed"); code != 0 || !strings.Contains(out, "1 rule contract(s): 1 has executor, 0 owner (implicit), 0 missing") {
		t.Fatalf("--ostc listed: exit %d\n%s", code, out)
	}
	// The owner is covered everywhere, implicitly.
	if out, code := cover(0); code != 0 || !strings.HasPrefix(line(out, w.legacy), "rule "+w.legacy.Hex()+" "+owner+" (owner-only) owner (implicit)") {
		t.Fatalf("owner: exit %d\n%s", code, out)
	}
	// A stranger is missing everywhere.
	if out, code := cover(2); code != 1 || !strings.Contains(out, "registry: missing") || !strings.Contains(out, "missing on 3 of 3 contracts") {
		t.Fatalf("stranger: exit %d\n%s", code, out)
	}
	// An unknown --ostc fails; a missing --runner is a usage error.
	if out, code := cover(1, "--ostc", "nope"); code != 1 {
		t.Fatalf("--ostc nope: exit %d\n%s", code, out)
	}
	if out, code := run(t, "ostc", "coverage", "--rpc", w.a.URL, "--registry", w.reg.Address.Hex()); code != 2 || !strings.Contains(out, "--runner") {
		t.Fatalf("no --runner: exit %d\n%s", code, out)
	}
}
