package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/indexstore"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/testenv"
)

// The whole path with real rules: XRC-137 rule contracts on anvil, an
// orchestration that names them by address, a trigger event → the indexer
// caches the orchestration and its rules → the session manager runs every
// step's rule (no scripted outcome) through a join to the end.
func TestTriggerToRulesOnChain(t *testing.T) {
	anvil := testenv.StartAnvil(t)
	redis := testenv.StartRedis(t)
	ctx := context.Background()
	// Every step's rule passes its input on and adds its own key.
	rule := func(key string) string {
		return fmt.Sprintf(`{"payload":{},"rules":[],"onValid":{"payload":{"%s":"done"}}}`, key)
	}
	addr := map[string]string{}
	for _, step := range []string{"A1", "G1", "H1", "J1", "Z1"} {
		r, _ := testenv.DeployXRC137(t, anvil, rule(step))
		addr[step] = r.Address.Hex()
	}
	flow := fmt.Sprintf(`{"id":"rules_flow","structure":{
  "A1":{"rule":"%s","onValid":{"spawns":["G1","H1"],"join":{"joinid":"J1","mode":"all","waitonjoin":"drain","from":[{"node":"G1","when":"valid"},{"node":"H1","when":"valid"}]}}},
  "G1":{"rule":"%s"},"H1":{"rule":"%s"},
  "J1":{"rule":"%s","onValid":{"spawns":["Z1"]}},
  "Z1":{"rule":"%s"}}}`, addr["A1"], addr["G1"], addr["H1"], addr["J1"], addr["Z1"])
	reg, _ := testenv.DeployXRC729(t, anvil, chain.RegistryInit{})
	dir := t.TempDir()
	cfg := filepath.Join(dir, "xgr.yaml")
	os.WriteFile(cfg, []byte(fmt.Sprintf(`
registries: ["%[1]s"]
finality: confirmations
confirmations: 1
triggers:
  - name: go
    contract: "%[1]s"
    event: "OSTCUpdated(address indexed xrc729Address, address indexed owner, bytes32 indexed ostcIdHash, bytes32 ostcHash, string id, uint256 version, uint64 updatedAt)"
    orchestration: {registry: "%[1]s", id: rules_flow}
    start: A1
    owner: {arg: owner}
    payload: {Order: {arg: id}}
`, reg.Address.Hex())), 0o644)
	redisURL := "redis://" + redis.Addr + "/0"
	var logs lockedBuffer
	run := exec.Command(xgrBin, "--log-format", "json", "run", "--rpc", anvil.URL, "--redis", redisURL, "--config", cfg,
		"--poll", "20ms", "--index-poll", "50ms", "--listen", "")
	run.Stdout, run.Stderr = &logs, &logs
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		run.Process.Signal(syscall.SIGTERM)
		run.Wait()
		if t.Failed() {
			t.Logf("xgr run log:\n%s", logs.String())
		}
	}()
	// Registering the orchestration is itself the trigger event.
	if _, err := reg.Put(ctx, testenv.Sender(t, anvil, 0), "rules_flow", []byte(flow)); err != nil {
		t.Fatal(err)
	}
	store := joinstore.New(redis.Client(), joinstore.Config{})
	owner := strings.ToLower(anvil.Address(0).Hex())
	deadline := time.Now().Add(60 * time.Second)
	var root joinstore.Root
	for {
		if list, _ := store.Sessions(ctx, owner, 0, 10, true); len(list) == 1 {
			root = list[0].Root
			if m, _ := store.SessionMeta(ctx, root); m.Status == joinstore.SessionFinished {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the session did not finish within 60s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	procs, _ := store.Processes(ctx, root)
	byStep := map[string]joinstore.Process{}
	for _, p := range procs {
		byStep[p.ResumeStep] = p
	}
	for _, step := range []string{"A1", "G1", "H1", "J1", "Z1"} {
		if p := byStep[step]; p.Status != joinstore.StatusDone || p.Valid == nil || !*p.Valid {
			t.Fatalf("step %s: %+v", step, p)
		}
	}
	// Z1's payload carries every step's output and the trigger's payload.
	z := string(byStep["Z1"].ResumePlain)
	for _, want := range []string{`"Order":"rules_flow"`, `"A1":"done"`, `"G1":"done"`, `"H1":"done"`, `"J1":"done"`, `"Z1":"done"`} {
		if !strings.Contains(z, want) {
			t.Errorf("Z1's payload %s lacks %s", z, want)
		}
	}
	// The rules came from the indexer's verified cache.
	idx := indexstore.New(redis.Client(), 31337)
	if n, _ := idx.Count(ctx, "rule:"); n != 5 {
		t.Errorf("%d rules cached, want 5", n)
	}
}
