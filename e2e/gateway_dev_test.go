package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/xgr-sidecar/xgr/testenv"
)

// devBanner is what `xgr dev` prints about its chain and gateway.
var devBanner = struct {
	chain, gateway, owner *regexp.Regexp
}{
	chain:   regexp.MustCompile(`xgr dev: chain (\d+) in-process, registry (0x[0-9a-fA-F]{40}) \(block \d+\) with (\d+) orchestrations`),
	gateway: regexp.MustCompile(`xgr dev: JSON-RPC gateway (http://\S+) \(chain id (\d+), registry (0x[0-9a-fA-F]{40}), control contract (0x[0-9a-fA-F]{40})\)`),
	owner:   regexp.MustCompile(`the registry's owner is dev account (0x[0-9a-fA-F]{40}), private key 0x([0-9a-f]{64})`),
}

// xgr dev with its gateway on a free port: a dApp reads the printed URL,
// registry and key, starts a session of one of the registry's example
// orchestrations with an ethers-signed SessionPermit, follows it with
// xgr_sessionAlive, xgr_stepExecuted and xgr_listSessions (owner mode) and
// kills it with xgr_control.
func TestGatewayOnDev(t *testing.T) {
	testenv.Ethers(t) // fail at once, naming make tools, without node or ethers
	dir := t.TempDir()
	outcomes := filepath.Join(dir, "outcomes.json")
	// A1 parks its children for an hour: the session stays alive until killed.
	if err := os.WriteFile(outcomes, []byte(`{"A1": {"result": "valid", "waitSec": 3600}, "default": {"result": "valid"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	listen := fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(t))
	var out lockedBuffer
	startBinary(t, &out, "--log-level", "warn", "dev", "--ostc-dir", "../examples/ostc", "--orders", "0", "--outcomes", outcomes, "--rpc-listen", listen)
	var banner, gw, own []string
	eventually(t, 30*time.Second, "xgr dev prints its gateway", func() bool {
		s := out.String()
		banner, gw, own = devBanner.chain.FindStringSubmatch(s), devBanner.gateway.FindStringSubmatch(s), devBanner.owner.FindStringSubmatch(s)
		return banner != nil && gw != nil && own != nil
	})
	url, registry, precomp := gw[1], common.HexToAddress(gw[3]), strings.ToLower(gw[4])
	if url != "http://"+listen || gw[2] != banner[1] || gw[3] != banner[2] {
		t.Fatalf("xgr dev printed gateway %s (chain %s, registry %s), asked for %s on chain %s, registry %s", url, gw[2], gw[3], listen, banner[1], banner[2])
	}
	chainID, _ := strconv.ParseInt(gw[2], 10, 64)
	key, err := crypto.HexToECDSA(own[2])
	if err != nil || keyAddr(key) != common.HexToAddress(own[1]) {
		t.Fatalf("printed key of %s: %v", own[1], err)
	}
	owner := lowerHex(keyAddr(key))
	waitGateway(t, url, &out)
	var core struct{ Precompile, ChainID string }
	rpcOK(t, url, &core, "xgr_getCoreAddrs")
	if core.Precompile != precomp || core.ChainID != "0x"+strconv.FormatInt(chainID, 16) {
		t.Fatalf("xgr_getCoreAddrs %+v, xgr dev printed chain %d and control contract %s", core, chainID, precomp)
	}

	// The demo trigger listens to the demo orders contract, not to the
	// registry, and --orders 0 with scripted outcomes starts no session
	// (no wake-up flow either): the owner's next root id is 1.
	next := func() int64 {
		var r struct{ NextProcessID string }
		rpcOK(t, url, &r, "xgr_getNextProcessId", map[string]string{"from": owner})
		n, _ := strconv.ParseInt(r.NextProcessID, 10, 64)
		return n
	}
	if n := next(); n != 1 {
		t.Fatalf("xgr_getNextProcessId of the owner: %d before any start, want 1", n)
	}
	s := next()
	sid := strconv.FormatInt(s, 10)

	// The ostcId and ostcHash of a registered file, as a dApp computes them.
	text := readExample(t, "minimal_join.json")
	hash := crypto.Keccak256Hash(text)
	exp := time.Now().Add(10 * time.Minute).Unix()
	envs := testenv.SignWithEthers(t, []ethersJob{
		sessionJob(key, chainID, "minimal_join", hash, s, exp),
		xdalaJob(key, chainID, exp),
		killJob(key, chainID, precomp, s, exp),
	})
	var started struct{ ProcessID, SessionID, Owner, OstcHash string }
	rpcOK(t, url, &started, "xgr_validateDataTransfer", map[string]any{"stepId": "A1", "orchestration": registry.Hex(), "permit": envs[0],
		"payload": map[string]any{"order": "dev-1"}})
	if started.ProcessID != sid+":1" || started.Owner != owner || started.OstcHash != hash.Hex() {
		t.Fatalf("xgr_validateDataTransfer: %+v", started)
	}

	executed := func(iter int) *bool {
		var done *bool
		rpcOK(t, url, &done, "xgr_stepExecuted", owner, sid, iter)
		return done
	}
	eventually(t, 20*time.Second, "A1 runs", func() bool { d := executed(1); return d != nil && *d })
	if d := executed(2); d == nil || *d {
		t.Fatalf("xgr_stepExecuted %s:2 while the children wait: %v", sid, d)
	}
	if d := executed(99); d != nil {
		t.Fatalf("xgr_stepExecuted %s:99 (no such process): %v, want null", sid, *d)
	}
	alive := func() bool {
		var a bool
		rpcOK(t, url, &a, "xgr_sessionAlive", owner, sid)
		return a
	}
	if !alive() {
		t.Fatal("xgr_sessionAlive: false while the children wait")
	}

	var list struct {
		Sessions []struct{ Owner, SessionID, Pid, Step, Status, XRC729, OstcID string }
	}
	rpcOK(t, url, &list, "xgr_listSessions", map[string]any{"rootId": sid, "permit": envs[1]})
	steps := map[string]string{}
	for _, r := range list.Sessions {
		if r.SessionID != sid || r.Owner != owner || r.XRC729 != lowerHex(registry) || r.OstcID != "minimal_join" {
			t.Fatalf("xgr_listSessions row of another session: %+v", r)
		}
		steps[r.Step] = r.Status
	}
	if steps["A1"] != "done" || steps["G1"] != "waiting" || steps["H1"] != "waiting" || steps["J1"] != "waiting" {
		t.Fatalf("xgr_listSessions of session %s: %+v", sid, list.Sessions)
	}
	rpcOK(t, url, &list, "xgr_listSessions", map[string]any{"last": 1, "permit": envs[1]})
	if len(list.Sessions) == 0 || list.Sessions[0].SessionID != sid {
		t.Fatalf("xgr_listSessions last 1: want the newest session %s first: %+v", sid, list.Sessions)
	}

	var killed struct {
		OK        bool
		Owner     string
		ProcessID int64
		Status    string
		Affected  int
	}
	rpcOK(t, url, &killed, "xgr_control", map[string]any{"action": "kill", "permit": envs[2]})
	if !killed.OK || killed.Owner != owner || killed.ProcessID != s || killed.Status != "killed" || killed.Affected != 3 {
		t.Fatalf("xgr_control kill: %+v (want the 3 waiting processes affected)", killed)
	}
	if alive() {
		t.Fatal("xgr_sessionAlive: true after the kill")
	}
	if d := executed(2); d == nil || !*d {
		t.Fatalf("xgr_stepExecuted %s:2 after the kill: %v", sid, d)
	}
	// A kill is idempotent: the same permit again affects nothing.
	rpcOK(t, url, &killed, "xgr_control", map[string]any{"permit": envs[2]})
	if !killed.OK || killed.Affected != 0 {
		t.Fatalf("second kill: %+v", killed)
	}
}
