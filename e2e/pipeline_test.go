package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/testenv"
)

// lockedBuffer collects a child process's output while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func readExample(t *testing.T, name string) []byte {
	raw, err := os.ReadFile("../examples/ostc/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// The whole pipeline: registry writes on anvil → the indexer caches them →
// each OSTCUpdated log is a trigger event → after 2 confirmations the
// starter starts one session per log → the session manager runs it (the
// nested joins of 002 §7.4) to the end. Then SIGTERM drains and exits 0.
func TestTriggerToFinishedSessions(t *testing.T) {
	anvil := testenv.StartAnvil(t)
	redis := testenv.StartRedis(t)
	ctx := context.Background()
	reg, _ := testenv.DeployXRC729(t, anvil, chain.RegistryInit{IDs: []string{"flow"}, JSONs: [][]byte{readExample(t, "nested_join.json")}})
	dir := t.TempDir()
	cfg := filepath.Join(dir, "xgr.yaml")
	os.WriteFile(cfg, []byte(fmt.Sprintf(`
registries: ["%[1]s"]
finality: confirmations
confirmations: 2
triggers:
  - name: updated
    contract: "%[1]s"
    event: "OSTCUpdated(address indexed xrc729Address, address indexed owner, bytes32 indexed ostcIdHash, bytes32 ostcHash, string id, uint256 version, uint64 updatedAt)"
    orchestration: {registry: "%[1]s", id: flow}
    start: A1
    owner: {arg: owner}
    payload: {Order: {arg: id}}
`, reg.Address.Hex())), 0o644)
	outcomes := filepath.Join(dir, "o.json")
	os.WriteFile(outcomes, []byte(`{"default":{"result":"valid"}}`), 0o644)
	redisURL := "redis://" + redis.Addr + "/0"

	var logs lockedBuffer
	// Over a websocket, so that the newHeads hint is used.
	wsURL := strings.Replace(anvil.URL, "http://", "ws://", 1)
	run := exec.Command(xgrBin, "--log-format", "json", "run", "--rpc", wsURL, "--redis", redisURL, "--config", cfg,
		"--outcomes", outcomes, "--poll", "20ms", "--index-poll", "50ms", "--listen", "")
	run.Stdout, run.Stderr = &logs, &logs
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if t.Failed() {
			t.Logf("xgr run log:\n%s", logs.String())
		}
	}()
	sender := testenv.Sender(t, anvil, 0)
	for i := 0; i < 5; i++ {
		if _, err := reg.Put(ctx, sender, fmt.Sprintf("order%d", i), readExample(t, "minimal_join.json")); err != nil {
			t.Fatal(err)
		}
	}
	anvil.Mine(t, 2)

	store := joinstore.New(redis.Client(), joinstore.Config{})
	owner := strings.ToLower(anvil.Address(0).Hex())
	deadline := time.Now().Add(60 * time.Second)
	for {
		list, _ := store.Sessions(ctx, owner, 0, 100, true)
		finished := 0
		for _, s := range list {
			if m, _ := store.SessionMeta(ctx, s.Root); m.Status == joinstore.SessionFinished {
				finished++
			}
		}
		if len(list) > 6 {
			t.Fatalf("%d sessions for 6 trigger logs", len(list))
		}
		if finished == 6 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions, %d finished after 60s", len(list), finished)
		}
		time.Sleep(100 * time.Millisecond)
	}

	if !strings.Contains(logs.String(), `"msg":"trigger finality","finality":"confirmations","rule":"2 confirmations"`) {
		t.Errorf("xgr run did not log its trigger finality rule")
	}
	if !strings.Contains(logs.String(), "newHeads subscription active") {
		t.Errorf("xgr run over a websocket did not subscribe to newHeads")
	}
	out, err := exec.Command(xgrBin, "index", "status", "--json", "--rpc", anvil.URL, "--redis", redisURL, "--config", cfg).CombinedOutput()
	if err != nil {
		t.Fatalf("index status: %v\n%s", err, out)
	}
	var st map[string]any
	json.Unmarshal(out, &st)
	if st["cacheEntries"] != float64(6) || st["ownerEntries"] != float64(1) || st["triggerStarts"] != float64(6) || st["pendingTriggers"] != float64(0) || st["mismatches"] != float64(0) ||
		st["finality"] != "2 confirmations" || st["finalLag"] != float64(1) {
		t.Fatalf("index status: %s", out)
	}
	// Without --config: the rule the indexing replica recorded.
	out, err = exec.Command(xgrBin, "index", "status", "--json", "--rpc", anvil.URL, "--redis", redisURL).CombinedOutput()
	st = nil
	if err != nil || json.Unmarshal(out, &st) != nil || st["finality"] != "2 confirmations" ||
		!strings.HasPrefix(fmt.Sprint(st["finalitySource"]), "recorded by replica") {
		t.Fatalf("index status without --config: %v\n%s", err, out)
	}
	run.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- run.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("xgr run did not exit cleanly on SIGTERM: %v", err)
		}
	case <-time.After(20 * time.Second):
		run.Process.Kill()
		t.Fatal("xgr run did not stop within 20s of SIGTERM")
	}
}
