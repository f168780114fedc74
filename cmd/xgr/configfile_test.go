package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/indexstore"
	"github.com/xgr-sidecar/xgr/testenv"
)

// oneConfigYAML is xgr run's config file with every section.
const oneConfigYAML = `registries: []
finality: confirmations
confirmations: 1
quotas:
  liveSessions: 10
executions:
  enabled: false
addresses:
  FEED: "0x5FbDB2315678afecb367f032d93F642f64180aa3"
`

// Every command that takes --config reads xgr run's config file whole:
// the same file is accepted by each (none calls another section an
// unknown setting), and an unknown setting, at the top or inside a
// section, is refused by each with file:line:column (exit 2).
func TestOneConfigFileForEveryCommand(t *testing.T) {
	srv := testenv.StartRedis(t)
	redisURL := "redis://" + srv.Addr + "/0"
	flow, outcomes, owner := "../../examples/ostc/kofn_three_sources.json", "../../examples/outcomes/all_valid.json", "0x5FbDB2315678afecb367f032d93F642f64180aa3"
	commands := [][]string{
		{"run", "--rpc", "http://127.0.0.1:1", "--redis", redisURL, "--outcomes", outcomes},
		{"index", "status", "--rpc", "http://127.0.0.1:1", "--redis", redisURL},
		{"session", "start", flow, "--owner", owner, "--redis", redisURL},
		{"simulate", flow, "--owner", owner, "--outcomes", outcomes},
		{"executions", "policy"},
		{"ostc", "link", flow},
		{"owner", owner, "--redis", redisURL},
	}
	good := writeFile(t, "xgr.yaml", oneConfigYAML)
	badTop := writeFile(t, "top.yaml", oneConfigYAML+"finalty: safe\n")
	badSection := writeFile(t, "section.yaml", strings.Replace(oneConfigYAML, "  enabled: false\n", "  enabled: false\n  maxGas: 1\n", 1))
	for _, args := range commands {
		name := strings.Join(args[:2], " ")
		out, code := run(t, append(args, "--config", good)...)
		if code == 2 || strings.Contains(out, "xgr.yaml") {
			t.Errorf("%s: the config is refused (exit %d):\n%s", name, code, out)
		}
		out, code = run(t, append(args, "--config", badTop)...)
		if code != 2 || !strings.Contains(out, `top.yaml:10:1: unknown setting "finalty" (known at the top level:`) {
			t.Errorf("%s: unknown top-level setting: exit %d\n%s", name, code, out)
		}
		out, code = run(t, append(args, "--config", badSection)...)
		if code != 2 || !strings.Contains(out, `section.yaml:8:3: executions.maxGas: unknown setting "maxGas"`) {
			t.Errorf("%s: unknown executions setting: exit %d\n%s", name, code, out)
		}
	}
}

// xgr index status without --config reports the finality rule the
// indexing replica recorded (not the default auto, 12) and says where the
// rule came from; --config overrides it.
func TestIndexStatusShowsTheReplicasFinality(t *testing.T) {
	a := testenv.StartAnvil(t)
	srv := testenv.StartRedis(t)
	args := []string{"index", "status", "--rpc", a.URL, "--redis", "redis://" + srv.Addr + "/0"}
	out, code := run(t, args...)
	if code != 0 || !strings.Contains(out, "finalitySource   default: no --config, and no indexing replica has recorded its rule") {
		t.Fatalf("nothing recorded: exit %d\n%s", code, out)
	}
	chainID, err := a.Client.ChainID(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rec := indexstore.FinalityRecord{Mode: "confirmations", Confirmations: 1, Replica: "r1", At: time.Now()}
	if err := indexstore.New(srv.Client(), chainID.Uint64()).SaveFinality(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	out, code = run(t, args...)
	if code != 0 || !strings.Contains(out, "finality         1 confirmations") || !strings.Contains(out, `finalitySource   recorded by replica "r1" at`) {
		t.Errorf("recorded: exit %d\n%s", code, out)
	}
	cfg := writeFile(t, "xgr.yaml", "finality: confirmations\nconfirmations: 3\n")
	out, code = run(t, append(args, "--config", cfg)...)
	if code != 0 || !strings.Contains(out, "finality         3 confirmations") || !strings.Contains(out, "finalitySource   --config "+cfg) {
		t.Errorf("--config: exit %d\n%s", code, out)
	}
}
