package testenv

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/internal/toolbin"
)

// EthersScript is the ethers.js v6 permit signer, relative to the
// repository root: a JSON job (or an array of jobs) on stdin, the signed
// EIP-712 envelopes on stdout (see the script's header).
const EthersScript = "rpc/permit/testdata/sign.mjs"

// Ethers finds node and the ethers module pinned by scripts/install-tools.sh
// (ETHERS_VERSION) in .tools/npm/node_modules. Anything missing or another
// version fails the test with the command that installs it.
func Ethers(t testing.TB) (node, modules string) {
	t.Helper()
	node, err := toolbin.Find("node")
	if err != nil {
		t.Fatalf("%v\nsigning permits with ethers.js needs Node.js and the pinned ethers module: install Node.js with npm, then run `make tools`", err)
	}
	dir, err := toolbin.ToolDir()
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	script, err := os.ReadFile(filepath.Join(filepath.Dir(dir), "scripts", "install-tools.sh"))
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	m := regexp.MustCompile(`(?m)^ETHERS_VERSION=(\S+)$`).FindSubmatch(script)
	if m == nil {
		t.Fatal("testenv: scripts/install-tools.sh pins no ETHERS_VERSION")
	}
	pinned := string(m[1])
	modules = filepath.Join(dir, "npm", "node_modules")
	manifest, err := os.ReadFile(filepath.Join(modules, "ethers", "package.json"))
	if err != nil {
		t.Fatalf("ethers %s is not installed in %s (%v): run `make tools`", pinned, modules, err)
	}
	var pkg struct{ Version string }
	if err := json.Unmarshal(manifest, &pkg); err != nil || pkg.Version != pinned {
		t.Fatalf("ethers in %s is %q, scripts/install-tools.sh pins %s: run `make tools`", modules, pkg.Version, pinned)
	}
	return node, modules
}

// SignWithEthers signs jobs (a slice; each one the input object of
// EthersScript: privateKey, domain, types, primaryType, message, form) with
// ethers.js in one node run and returns one envelope per job.
func SignWithEthers[J any](t testing.TB, jobs []J) []json.RawMessage {
	t.Helper()
	node, modules := Ethers(t)
	dir, err := toolbin.ToolDir()
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	in, err := json.Marshal(jobs)
	if err != nil {
		t.Fatalf("testenv: ethers jobs: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(filepath.Dir(dir), filepath.FromSlash(EthersScript)))
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %s: %v\n%s", EthersScript, err, stderr.String())
	}
	var envs []json.RawMessage
	if err := json.Unmarshal(out, &envs); err != nil || len(envs) != len(jobs) {
		t.Fatalf("%s printed %d envelopes for %d jobs (%v):\n%s", EthersScript, len(envs), len(jobs), err, out)
	}
	return envs
}
